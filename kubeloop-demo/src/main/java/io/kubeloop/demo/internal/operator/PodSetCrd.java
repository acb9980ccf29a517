package io.kubeloop.demo.internal.operator;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinitionBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaPropsBuilder;
import io.kubeloop.demo.PodSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.node.IntNode;

/**
 * The PodSet CustomResourceDefinition (see {@link io.kubeloop.demo.PodGuardian#crd()}), written by hand to match
 * {@link PodSet}'s JSON form field for field; {@code PodSetCrdTest} compares the two so that neither can change
 * alone. The schema is structural (every field typed), so the API server prunes unknown fields, defaults
 * {@code spec.replicas} to 1 and refuses a negative count; the pod template is kept as written
 * ({@code x-kubernetes-preserve-unknown-fields}), its checking left to the pods' own validation on create.
 */
public final class PodSetCrd {
    private PodSetCrd() {}

    /** The CRD's name, {@code <plural>.<group>}. */
    public static final String NAME = PodSet.PLURAL + "." + PodSet.GROUP;

    public static CustomResourceDefinition build() {
        return new CustomResourceDefinitionBuilder()
                .withNewMetadata()
                .withName(NAME)
                .endMetadata()
                .withNewSpec()
                .withGroup(PodSet.GROUP)
                .withScope("Namespaced")
                .withNewNames()
                .withKind(PodSet.KIND)
                .withListKind(PodSet.KIND + "List")
                .withPlural(PodSet.PLURAL)
                .withSingular("podset")
                .withShortNames("ps")
                .withCategories("all")
                .endNames()
                .addNewVersion()
                .withName(PodSet.VERSION)
                .withServed(true)
                .withStorage(true)
                .withNewSubresources()
                .withNewStatus()
                .endStatus()
                .withNewScale()
                .withSpecReplicasPath(".spec.replicas")
                .withStatusReplicasPath(".status.replicas")
                .withLabelSelectorPath(".status.selector")
                .endScale()
                .endSubresources()
                .withAdditionalPrinterColumns(columns())
                .withNewSchema()
                .withOpenAPIV3Schema(schema())
                .endSchema()
                .endVersion()
                .endSpec()
                .build();
    }

    private static List<CustomResourceColumnDefinition> columns() {
        return List.of(
                column("Desired", "integer", ".spec.replicas", "Pods wanted"),
                column("Ready", "integer", ".status.readyReplicas", "Pods Running and Ready"),
                column("Age", "date", ".metadata.creationTimestamp", null));
    }

    private static CustomResourceColumnDefinition column(String name, String type, String path, String description) {
        return new CustomResourceColumnDefinitionBuilder()
                .withName(name)
                .withType(type)
                .withJsonPath(path)
                .withDescription(description)
                .build();
    }

    /** The root schema: apiVersion, kind, metadata, spec, status — PodSet's JSON properties. */
    private static JSONSchemaProps schema() {
        return object(
                "PodSet keeps spec.replicas pods made from spec.template running (the pod-guardian operator).",
                props(
                        "apiVersion", string("The API version, " + PodSet.GROUP + "/" + PodSet.VERSION + "."),
                        "kind", string("PodSet."),
                        "metadata",
                                new JSONSchemaPropsBuilder().withType("object").build(),
                        "spec", spec(),
                        "status", status()));
    }

    private static JSONSchemaProps spec() {
        JSONSchemaProps replicas = new JSONSchemaPropsBuilder()
                .withType("integer")
                .withFormat("int32")
                .withMinimum(0.0)
                .withDefault(IntNode.valueOf(1))
                .withDescription("How many pods to keep running (default 1).")
                .build();
        JSONSchemaProps template = new JSONSchemaPropsBuilder()
                .withType("object")
                .withXKubernetesPreserveUnknownFields(true)
                .withDescription("The pods' template (a PodTemplateSpec); the operator adds the label "
                        + PodSet.NAME_LABEL + " and a controller owner reference.")
                .build();
        return object("What the user wants.", props("replicas", replicas, "template", template));
    }

    private static JSONSchemaProps status() {
        JSONSchemaProps condition = object(
                "A condition, Kubernetes-style: Available, Progressing.",
                props(
                        "type",
                        string("Available or Progressing."),
                        "status",
                        string("True, False or Unknown."),
                        "reason",
                        string("Why, in UpperCamelCase."),
                        "message",
                        string("Why, for people."),
                        "lastTransitionTime",
                        new JSONSchemaPropsBuilder()
                                .withType("string")
                                .withFormat("date-time")
                                .withDescription("When status last changed.")
                                .build(),
                        "observedGeneration",
                        int64("The metadata.generation the condition describes.")));
        condition.setRequired(List.of("type", "status"));
        return object(
                "What the operator observed at its last reconcile.",
                props(
                        "replicas",
                        int32("Pods that exist and are not being deleted."),
                        "readyReplicas",
                        int32("Of those, pods Running with condition Ready=True."),
                        "observedGeneration",
                        int64("The metadata.generation this status describes."),
                        "selector",
                        string("The pods' label selector, for the scale subresource."),
                        "conditions",
                        new JSONSchemaPropsBuilder()
                                .withType("array")
                                .withNewItems()
                                .withSchema(condition)
                                .endItems()
                                .withDescription("Available and Progressing.")
                                .build()));
    }

    private static JSONSchemaProps object(String description, Map<String, JSONSchemaProps> properties) {
        return new JSONSchemaPropsBuilder()
                .withType("object")
                .withDescription(description)
                .withProperties(properties)
                .build();
    }

    private static JSONSchemaProps string(String description) {
        return new JSONSchemaPropsBuilder()
                .withType("string")
                .withDescription(description)
                .build();
    }

    private static JSONSchemaProps int32(String description) {
        return new JSONSchemaPropsBuilder()
                .withType("integer")
                .withFormat("int32")
                .withDescription(description)
                .build();
    }

    private static JSONSchemaProps int64(String description) {
        return new JSONSchemaPropsBuilder()
                .withType("integer")
                .withFormat("int64")
                .withDescription(description)
                .build();
    }

    /** An insertion-ordered property map from name, schema pairs. */
    private static Map<String, JSONSchemaProps> props(Object... pairs) {
        Map<String, JSONSchemaProps> map = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            map.put((String) pairs[i], (JSONSchemaProps) pairs[i + 1]);
        }
        return map;
    }
}
