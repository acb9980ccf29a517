package io.kubeloop.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link OwnerReferences}: controller-runtime's controllerutil rules, as a table. */
class OwnerReferencesTest {

    private static Deployment deployment(String ns, String name, String uid) {
        return new DeploymentBuilder()
                .withNewMetadata()
                .withNamespace(ns)
                .withName(name)
                .withUid(uid)
                .endMetadata()
                .build();
    }

    private static ConfigMap configMap(String ns) {
        return new ConfigMapBuilder()
                .withNewMetadata()
                .withNamespace(ns)
                .withName("child")
                .endMetadata()
                .build();
    }

    private static Namespace clusterScoped(String name, String uid) {
        return new NamespaceBuilder()
                .withNewMetadata()
                .withName(name)
                .withUid(uid)
                .endMetadata()
                .build();
    }

    static Stream<Arguments> scopes() {
        return Stream.of(
                // owner, object, expected error (null: allowed)
                Arguments.of(deployment("shop", "web", "u1"), configMap("shop"), null),
                Arguments.of(clusterScoped("team", "u2"), configMap("shop"), null),
                Arguments.of(clusterScoped("team", "u2"), clusterScoped("other", "u3"), null),
                Arguments.of(
                        deployment("shop", "web", "u1"),
                        configMap("other"),
                        "cross-namespace owner references are disallowed, owner's namespace shop, obj's namespace other"),
                Arguments.of(
                        deployment("shop", "web", "u1"),
                        clusterScoped("other", "u3"),
                        "cluster-scoped resource must not have a namespace-scoped owner, owner's namespace shop"),
                Arguments.of(deployment("shop", "web", null), configMap("shop"), "has no metadata.uid"),
                Arguments.of(deployment("shop", null, "u1"), configMap("shop"), "has no metadata.name"));
    }

    @ParameterizedTest
    @MethodSource("scopes")
    void setControllerReferenceScopeRules(HasMetadata owner, HasMetadata object, String error) {
        if (error == null) {
            OwnerReferences.setControllerReference(owner, object);
            OwnerReference ref = OwnerReferences.controllerOf(object).orElseThrow();
            assertThat(ref.getName()).isEqualTo(owner.getMetadata().getName());
            assertThat(ref.getUid()).isEqualTo(owner.getMetadata().getUid());
            assertThat(ref.getKind()).isEqualTo(owner.getKind());
            assertThat(ref.getApiVersion()).isEqualTo(owner.getApiVersion());
            assertThat(ref.getController()).isTrue();
            assertThat(ref.getBlockOwnerDeletion()).isTrue();
        } else {
            assertThatThrownBy(() -> OwnerReferences.setControllerReference(owner, object))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(error);
            assertThat(OwnerReferences.hasControllerReference(object)).isFalse();
            assertThatThrownBy(() -> OwnerReferences.setOwnerReference(owner, object))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(error);
        }
    }

    @Test
    void anotherControllerIsAnErrorTheSameOwnerIsReplaced() {
        ConfigMap child = configMap("shop");
        OwnerReferences.setControllerReference(deployment("shop", "web", "u1"), child);
        OwnerReferences.setControllerReference(deployment("shop", "web", "u1-new"), child);
        assertThat(child.getMetadata().getOwnerReferences())
                .singleElement()
                .extracting(OwnerReference::getUid)
                .isEqualTo("u1-new");

        assertThatThrownBy(() -> OwnerReferences.setControllerReference(deployment("shop", "api", "u9"), child))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Object shop/child is already owned by another Deployment controller web");

        OwnerReferences.setOwnerReference(deployment("shop", "api", "u9"), child);
        assertThat(child.getMetadata().getOwnerReferences()).hasSize(2);
        assertThat(OwnerReferences.controllerOf(child).orElseThrow().getName()).isEqualTo("web");
    }

    @Test
    void referencesToTheSameGroupKindAndNameAreTheSameOwnerWhateverTheVersion() {
        ConfigMap child = configMap("shop");
        Deployment v1 = deployment("shop", "web", "u1");
        OwnerReferences.setOwnerReference(v1, child);
        Deployment beta = deployment("shop", "web", "u1");
        beta.setApiVersion("apps/v1beta2");
        OwnerReferences.setOwnerReference(beta, child);
        assertThat(child.getMetadata().getOwnerReferences())
                .singleElement()
                .extracting(OwnerReference::getApiVersion)
                .isEqualTo("apps/v1beta2");

        assertThat(OwnerReferences.hasOwnerReference(v1, child)).isTrue();
        assertThat(OwnerReferences.hasOwnerReference(deployment("shop", "api", "u2"), child))
                .isFalse();
        assertThat(OwnerReferences.hasControllerReference(child)).isFalse();
    }

    @Test
    void removeOwnerReferenceSaysWhetherItChangedTheObject() {
        ConfigMap child = configMap("shop");
        Deployment web = deployment("shop", "web", "u1");
        Deployment api = deployment("shop", "api", "u2");
        assertThat(OwnerReferences.removeOwnerReference(web, child)).isFalse();
        OwnerReferences.setControllerReference(web, child);
        OwnerReferences.setOwnerReference(api, child);

        assertThat(OwnerReferences.removeOwnerReference(web, child)).isTrue();
        assertThat(OwnerReferences.removeOwnerReference(web, child)).isFalse();
        assertThat(child.getMetadata().getOwnerReferences())
                .extracting(OwnerReference::getName)
                .containsExactly("api");
        assertThat(OwnerReferences.hasControllerReference(child)).isFalse();
    }

    @Test
    void worksOnImmutableListsOfCompactObjects() {
        ConfigMap child = configMap("shop");
        child.getMetadata().setOwnerReferences(List.of());
        OwnerReferences.setOwnerReference(deployment("shop", "web", "u1"), child);
        assertThat(child.getMetadata().getOwnerReferences()).hasSize(1);
    }
}
