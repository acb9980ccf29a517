package io.kubeloop.apiserver.internal.protobuf;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import io.kubeloop.model.ResourceRegistry;
import io.kubeloop.model.ResourceType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/** The schema registry covers the served kinds, and every Go JSON special case in their messages is known. */
class SchemasTest {

    private final Schemas schemas = new DescriptorCodec(JsonMapper.builder().build()).schemas();

    @Test
    void everyBuiltInKindAndItsListIsSupportedExceptCustomResourceDefinitions() {
        List<String> missing = new ArrayList<>();
        for (ResourceType type : ResourceRegistry.builtIn().types()) {
            String apiVersion = type.gvk().group().isEmpty()
                    ? type.gvk().version()
                    : type.gvk().group() + "/" + type.gvk().version();
            String kind = type.gvk().kind();
            boolean review = type.verbs().equals(List.of("create"));
            if (kind.equals("CustomResourceDefinition")) {
                assertThat(schemas.find(apiVersion, kind)).isEmpty();
                continue;
            }
            for (String k : review ? List.of(kind) : List.of(kind, kind + "List")) {
                if (schemas.find(apiVersion, k).isEmpty()) {
                    missing.add(apiVersion + " " + k);
                }
            }
        }
        assertThat(missing).isEmpty();
        assertThat(schemas.find("autoscaling/v1", "Scale")).isPresent();
        assertThat(schemas.find("v1", "Status")).isPresent();
    }

    @Test
    void deleteOptionsAndWatchEventsAreKnownInEveryServedGroupVersionAndMetaButNowhereElse() {
        for (String apiVersion :
                List.of("v1", "meta.k8s.io/v1", "apps/v1", "rbac.authorization.k8s.io/v1", "coordination.k8s.io/v1")) {
            assertThat(schemas.find(apiVersion, "DeleteOptions")).as(apiVersion).isPresent();
            assertThat(schemas.find(apiVersion, "WatchEvent")).as(apiVersion).isPresent();
        }
        assertThat(schemas.find("example.com/v1", "DeleteOptions")).isEmpty();
        assertThat(schemas.find("apps/v1", "Status")).isEmpty();
        assertThat(schemas.find("apps/v2", "Deployment")).isEmpty();
        assertThat(schemas.find("apiextensions.k8s.io/v1", "CustomResourceDefinitionList"))
                .isEmpty();
    }

    /**
     * Messages that look like Go types with a JSON form of their own: a lone repeated {@code items} field (a Go
     * named slice), a {@code raw} bytes field, or a small all-scalar apimachinery type (Time, Quantity, ...).
     * Each one reachable must be a {@link SpecialMessage} or known to be an ordinary struct.
     */
    @Test
    void everyReachableMessageThatLooksSpecialIsMappedOrKnownToBePlain() {
        Set<String> plain = Set.of(
                "k8s.io.apimachinery.pkg.apis.meta.v1.Preconditions",
                "k8s.io.apimachinery.pkg.apis.meta.v1.StatusCause",
                "k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement",
                "k8s.io.api.core.v1.DownwardAPIProjection");
        List<String> unknown = new ArrayList<>();
        for (Descriptor type : schemas.reachable()) {
            if (type.getOptions().getMapEntry()
                    || SpecialMessage.of(type) != null
                    || plain.contains(type.getFullName())) {
                continue;
            }
            List<FieldDescriptor> fields = type.getFields();
            boolean namedSlice = fields.size() == 1
                    && fields.getFirst().isRepeated()
                    && fields.getFirst().getName().equals("items");
            boolean raw = fields.stream().anyMatch(f -> f.getName().equalsIgnoreCase("raw"));
            boolean smallScalar = type.getFullName().startsWith("k8s.io.apimachinery.")
                    && fields.size() <= 3
                    && fields.stream().noneMatch(f -> f.getJavaType() == FieldDescriptor.JavaType.MESSAGE);
            if (namedSlice || raw || smallScalar) {
                unknown.add(type.getFullName());
            }
        }
        assertThat(unknown).isEmpty();
    }

    /**
     * Go's inline embedded structs get a protobuf field named after their type (localObjectReference,
     * volumeSource) or, for Probe, "handler". Every such field must be declared inline or known to be a plain
     * field whose JSON is nested.
     */
    @Test
    void everyFieldNamedLikeItsTypeIsDeclaredInlineOrKnownToBeNested() {
        String core = "k8s.io.api.core.v1.";
        Set<String> nested = Set.of(
                core + "Affinity.nodeAffinity",
                core + "Affinity.podAffinity",
                core + "Affinity.podAntiAffinity",
                core + "ClusterTrustBundleProjection.labelSelector",
                core + "Container.lifecycle",
                core + "Container.securityContext",
                core + "EphemeralContainerCommon.lifecycle",
                core + "EphemeralContainerCommon.securityContext",
                core + "PersistentVolumeClaimStatus.modifyVolumeStatus",
                core + "PodAffinityTerm.labelSelector",
                core + "PodSecurityContext.seccompProfile",
                core + "PodSecurityContext.appArmorProfile",
                core + "PodSpec.affinity",
                core + "SecurityContext.capabilities",
                core + "SecurityContext.seccompProfile",
                core + "SecurityContext.appArmorProfile",
                core + "ServiceSpec.sessionAffinityConfig",
                core + "TopologySpreadConstraint.labelSelector",
                core + "WeightedPodAffinityTerm.podAffinityTerm",
                "k8s.io.api.authentication.v1.SelfSubjectReviewStatus.userInfo",
                "k8s.io.api.authentication.v1.TokenReviewStatus.user",
                "k8s.io.api.authorization.v1.SelfSubjectAccessReviewSpec.resourceAttributes",
                "k8s.io.api.authorization.v1.SelfSubjectAccessReviewSpec.nonResourceAttributes",
                "k8s.io.api.authorization.v1.SubjectAccessReviewSpec.resourceAttributes",
                "k8s.io.api.authorization.v1.SubjectAccessReviewSpec.nonResourceAttributes",
                "k8s.io.api.rbac.v1.ClusterRole.aggregationRule",
                "k8s.io.api.policy.v1.Eviction.deleteOptions",
                "k8s.io.api.batch.v1.JobSpec.podFailurePolicy",
                "k8s.io.api.batch.v1.JobSpec.successPolicy",
                "k8s.io.api.batch.v1.JobStatus.uncountedTerminatedPods",
                "k8s.io.api.rbac.v1.ClusterRoleBinding.roleRef",
                "k8s.io.api.rbac.v1.RoleBinding.roleRef",
                "k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions.preconditions",
                "k8s.io.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry.time",
                "k8s.io.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry.fieldsV1");
        List<String> unknown = new ArrayList<>();
        for (Descriptor type : schemas.reachable()) {
            for (FieldDescriptor field : type.getFields()) {
                if (field.getJavaType() != FieldDescriptor.JavaType.MESSAGE || field.isRepeated()) {
                    continue;
                }
                String typeName = field.getMessageType().getName();
                String lowerCamel = Character.toLowerCase(typeName.charAt(0)) + typeName.substring(1);
                boolean looksEmbedded =
                        field.getName().equals(lowerCamel) || field.getName().equals("handler");
                if (looksEmbedded && !EmbeddedStructs.isInline(field) && !nested.contains(field.getFullName())) {
                    unknown.add(field.getFullName());
                }
            }
        }
        assertThat(unknown).isEmpty();
    }

    @Test
    void everyTableEntryNamesARealFieldOfTheRightShape() {
        Map<String, FieldDescriptor> fields = new HashMap<>();
        for (Descriptor type : schemas.reachable()) {
            for (FieldDescriptor field : type.getFields()) {
                fields.put(field.getFullName(), field);
            }
        }
        List<String> wrong = new ArrayList<>();
        for (String entry : ExplicitZeros.all()) {
            FieldDescriptor field = fields.get(entry);
            if (field == null || field.isRepeated() || field.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
                wrong.add("zero " + entry);
            }
        }
        for (String entry : EmbeddedStructs.all()) {
            FieldDescriptor field = fields.get(entry);
            if (field == null || field.isRepeated() || field.getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
                wrong.add("inline " + entry);
            }
        }
        for (String entry : GoJsonNames.all().keySet()) {
            if (fields.get(entry) == null) {
                wrong.add("renamed " + entry);
            }
        }
        assertThat(wrong).isEmpty();
    }
}
