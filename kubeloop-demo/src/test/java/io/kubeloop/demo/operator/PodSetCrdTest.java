package io.kubeloop.demo.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.kubeloop.client.codec.Decoding;
import io.kubeloop.demo.PodGuardian;
import io.kubeloop.demo.PodSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The CRD's schema and the {@link PodSet} class cannot drift: a fully populated PodSet, serialized as the client
 * serializes it, has exactly the properties the schema declares, at every level the schema describes.
 */
class PodSetCrdTest {

    private final CustomResourceDefinition crd = PodGuardian.crd();
    private final CustomResourceDefinitionVersion v1 =
            crd.getSpec().getVersions().get(0);
    private final JSONSchemaProps root = v1.getSchema().getOpenAPIV3Schema();

    static PodSet fullyPopulated() {
        PodSet ps = new PodSet();
        ps.setMetadata(
                new ObjectMetaBuilder().withName("web").withNamespace("demo").build());
        PodSet.Spec spec = new PodSet.Spec();
        spec.setReplicas(3);
        spec.setTemplate(new PodTemplateSpecBuilder()
                .withNewMetadata()
                .addToLabels("app", "web")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("app")
                .withImage("nginx")
                .endContainer()
                .endSpec()
                .build());
        ps.setSpec(spec);
        PodSet.Status status = new PodSet.Status();
        status.setReplicas(3);
        status.setReadyReplicas(2);
        status.setObservedGeneration(4L);
        status.setSelector(PodSet.NAME_LABEL + "=web");
        status.setConditions(new ArrayList<>(List.of(new ConditionBuilder()
                .withType("Available")
                .withStatus("False")
                .withReason("ReplicasNotReady")
                .withMessage("2 of 3 pods ready")
                .withLastTransitionTime("2026-12-02T03:15:00Z")
                .withObservedGeneration(4L)
                .build())));
        ps.setStatus(status);
        return ps;
    }

    @Test
    void theSchemaHasExactlyThePropertiesOfThePodSetClass() {
        JsonNode json = Decoding.standard().mapper().valueToTree(fullyPopulated());

        assertThat(names(json)).isEqualTo(root.getProperties().keySet());
        assertThat(names(json.get("spec")))
                .isEqualTo(root.getProperties().get("spec").getProperties().keySet());
        JSONSchemaProps status = root.getProperties().get("status");
        assertThat(names(json.get("status"))).isEqualTo(status.getProperties().keySet());
        JSONSchemaProps condition =
                status.getProperties().get("conditions").getItems().getSchema();
        assertThat(names(json.get("status").get("conditions").get(0)))
                .isEqualTo(condition.getProperties().keySet());
    }

    @Test
    void everyPropertyHasTheTypeOfItsJavaField() {
        JsonNode json = Decoding.standard().mapper().valueToTree(fullyPopulated());
        Map<String, JSONSchemaProps> status = root.getProperties().get("status").getProperties();
        for (var e : status.entrySet()) {
            JsonNode value = json.get("status").get(e.getKey());
            String expected = value.isInt() || value.isLong()
                    ? "integer"
                    : value.isString() ? "string" : value.isArray() ? "array" : "object";
            assertThat(e.getValue().getType()).as("status.%s", e.getKey()).isEqualTo(expected);
        }
        assertThat(status.get("observedGeneration").getFormat()).isEqualTo("int64");
        JSONSchemaProps replicas =
                root.getProperties().get("spec").getProperties().get("replicas");
        assertThat(replicas.getType()).isEqualTo("integer");
        assertThat(replicas.getMinimum()).isEqualTo(0.0);
        assertThat(replicas.getDefault().asInt()).isEqualTo(1);
        assertThat(root.getProperties()
                        .get("spec")
                        .getProperties()
                        .get("template")
                        .getXKubernetesPreserveUnknownFields())
                .isTrue();
    }

    @Test
    void namesSubresourcesAndColumns() {
        assertThat(crd.getMetadata().getName()).isEqualTo("podsets.demo.kubeloop.io");
        assertThat(crd.getSpec().getGroup()).isEqualTo(PodSet.GROUP);
        assertThat(crd.getSpec().getScope()).isEqualTo("Namespaced");
        assertThat(crd.getSpec().getNames().getKind()).isEqualTo(PodSet.KIND);
        assertThat(crd.getSpec().getNames().getPlural()).isEqualTo(PodSet.PLURAL);
        assertThat(crd.getSpec().getNames().getShortNames()).containsExactly("ps");
        assertThat(crd.getSpec().getNames().getCategories()).containsExactly("all");
        assertThat(crd.getSpec().getVersions()).hasSize(1);
        assertThat(v1.getName()).isEqualTo(PodSet.VERSION);
        assertThat(v1.getServed()).isTrue();
        assertThat(v1.getStorage()).isTrue();
        assertThat(v1.getSubresources().getStatus()).isNotNull();
        assertThat(v1.getSubresources().getScale().getSpecReplicasPath()).isEqualTo(".spec.replicas");
        assertThat(v1.getSubresources().getScale().getStatusReplicasPath()).isEqualTo(".status.replicas");
        assertThat(v1.getSubresources().getScale().getLabelSelectorPath()).isEqualTo(".status.selector");
        assertThat(v1.getAdditionalPrinterColumns())
                .extracting(c -> c.getName() + " " + c.getType() + " " + c.getJsonPath())
                .containsExactly(
                        "Desired integer .spec.replicas",
                        "Ready integer .status.readyReplicas",
                        "Age date .metadata.creationTimestamp");
    }

    private static Set<String> names(JsonNode object) {
        Set<String> names = new TreeSet<>();
        object.propertyNames().forEach(names::add);
        return names;
    }
}
