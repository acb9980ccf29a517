package io.kubeloop.informer.cache;

import static io.kubeloop.informer.cache.Fixtures.generic;
import static io.kubeloop.informer.cache.Fixtures.node;
import static io.kubeloop.informer.cache.Fixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class KeysTest {

    static Stream<Arguments> keys() {
        return Stream.of(
                Arguments.of("namespaced pod", pod("default", "web-0"), "default/web-0"),
                Arguments.of("cluster-scoped node", node("node-1"), "node-1"),
                Arguments.of("empty namespace is cluster-scoped", pod("", "p"), "p"),
                Arguments.of("generic namespaced", generic("Widget", "ns1", "w"), "ns1/w"),
                Arguments.of("generic cluster-scoped", generic("ClusterWidget", null, "cw"), "cw"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("keys")
    void metaNamespaceKey(String scenario, Object object, String key) {
        assertThat(Keys.META_NAMESPACE.keyOf(object)).isEqualTo(key);
        assertThat(Keys.DELETION_HANDLING.keyOf(object)).isEqualTo(key);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("keys")
    void tombstoneYieldsItsRecordedKey(String scenario, Object object, String key) {
        var tombstone = new DeletedFinalStateUnknown<>(key, object);
        assertThat(Keys.DELETION_HANDLING.keyOf(tombstone)).isEqualTo(key);
        // Even when the last known state is gone or names something else: the recorded key wins.
        assertThat(Keys.DELETION_HANDLING.keyOf(new DeletedFinalStateUnknown<>("ns/gone", null)))
                .isEqualTo("ns/gone");
        assertThat(Keys.DELETION_HANDLING.keyOf(new DeletedFinalStateUnknown<>("a/b", pod("c", "d"))))
                .isEqualTo("a/b");
    }

    static Stream<Arguments> keyErrors() {
        Pod noMetadata = new Pod();
        noMetadata.setMetadata(null);
        Pod noName = pod("default", null);
        Pod emptyName = pod("default", "");
        ConfigMap generated = new ConfigMap();
        generated.setMetadata(new ObjectMeta());
        generated.getMetadata().setGenerateName("cm-");
        GenericKubernetesResource genericNoName = generic("Widget", "ns1", null);
        return Stream.of(
                Arguments.of("null", null, "couldn't create key for null: object has no meta"),
                Arguments.of(
                        "not a Kubernetes object",
                        "just a string",
                        "couldn't create key for an object of class java.lang.String: object has no meta"),
                Arguments.of(
                        "tombstone under META_NAMESPACE",
                        new DeletedFinalStateUnknown<>("a/b", null),
                        "couldn't create key for the tombstone of a/b: META_NAMESPACE does not unwrap tombstones"),
                Arguments.of("no metadata", noMetadata, "couldn't create key for Pod: object has no metadata"),
                Arguments.of(
                        "no name", noName, "couldn't create key for Pod in namespace default: metadata.name is empty"),
                Arguments.of(
                        "empty name",
                        emptyName,
                        "couldn't create key for Pod in namespace default: metadata.name is empty"),
                Arguments.of(
                        "only generateName",
                        generated,
                        "couldn't create key for ConfigMap (generateName cm-): metadata.name is empty"),
                Arguments.of(
                        "generic without name",
                        genericNoName,
                        "couldn't create key for Widget in namespace ns1: metadata.name is empty"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("keyErrors")
    void keyErrorsNameTheObject(String scenario, Object object, String message) {
        assertThatThrownBy(() -> Keys.META_NAMESPACE.keyOf(object))
                .isInstanceOf(KeyException.class)
                .hasMessageContaining(message);
        if (!(object instanceof DeletedFinalStateUnknown<?>)) {
            assertThatThrownBy(() -> Keys.DELETION_HANDLING.keyOf(object))
                    .isInstanceOf(KeyException.class)
                    .hasMessageContaining(message);
        }
    }

    static Stream<Arguments> splits() {
        return Stream.of(
                Arguments.of("name", "", "name"),
                Arguments.of("ns/name", "ns", "name"),
                Arguments.of("", "", ""),
                Arguments.of("/name", "", "name"),
                Arguments.of("ns/", "ns", ""));
    }

    @ParameterizedTest(name = "\"{0}\"")
    @MethodSource("splits")
    void split(String key, String namespace, String name) {
        ObjectName parts = Keys.split(key);
        assertThat(parts).isEqualTo(new ObjectName(namespace, name));
        assertThat(parts.namespace()).isEqualTo(namespace);
        assertThat(parts.name()).isEqualTo(name);
    }

    @ParameterizedTest(name = "\"{0}\"")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"a/b/c", "//", "a//", "/a/b"})
    void splitRejectsMoreThanOneSlash(String key) {
        assertThatThrownBy(() -> Keys.split(key))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unexpected key format: \"" + key + "\"");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("keys")
    void objectNameToStringIsTheKey(String scenario, Object object, String key) {
        assertThat(Keys.split(key).toString()).isEqualTo(key);
    }
}
