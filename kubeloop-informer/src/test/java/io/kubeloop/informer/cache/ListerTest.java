package io.kubeloop.informer.cache;

import static io.kubeloop.informer.cache.Fixtures.names;
import static io.kubeloop.informer.cache.Fixtures.node;
import static io.kubeloop.informer.cache.Fixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.kubeloop.model.selector.LabelSelector;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Listers (reference §3.4): by name, by label selector, per namespace (index or scan), by index. */
class ListerTest {

    private static Indexer<Pod> pods(boolean withNamespaceIndex) {
        Indexer<Pod> indexer = withNamespaceIndex
                ? Indexers.newIndexer(
                        Keys.DELETION_HANDLING,
                        Map.of(Indexers.NAMESPACE_INDEX, Indexers.namespaceIndex(), "byNode", Fixtures::byNode))
                : Indexers.newIndexer(Keys.DELETION_HANDLING, Map.of("byNode", Fixtures::byNode));
        indexer.add(pod("prod", "web-1", "n1", Map.of("app", "web", "tier", "front")));
        indexer.add(pod("prod", "web-2", "n2", Map.of("app", "web", "tier", "front", "canary", "true")));
        indexer.add(pod("prod", "db-1", "n1", Map.of("app", "db", "tier", "back")));
        indexer.add(pod("dev", "web-1", "n2", Map.of("app", "web")));
        indexer.add(pod("dev", "plain", null, Map.of()));
        return indexer;
    }

    static Stream<Arguments> selections() {
        return Stream.of(
                // namespace, selector, expected names
                Arguments.of("", "", List.of("db-1", "plain", "web-1", "web-1", "web-2")),
                Arguments.of("", "app=web", List.of("web-1", "web-1", "web-2")),
                Arguments.of("", "app=web,!canary", List.of("web-1", "web-1")),
                Arguments.of("", "tier in (front,back)", List.of("db-1", "web-1", "web-2")),
                Arguments.of("", "app!=web", List.of("db-1", "plain")),
                Arguments.of("", "app=nothing", List.of()),
                Arguments.of("prod", "", List.of("db-1", "web-1", "web-2")),
                Arguments.of("prod", "app=web", List.of("web-1", "web-2")),
                Arguments.of("prod", "canary", List.of("web-2")),
                Arguments.of("dev", "", List.of("plain", "web-1")),
                Arguments.of("dev", "tier", List.of()),
                Arguments.of("absent", "", List.of()));
    }

    @ParameterizedTest(name = "namespace \"{0}\" selector \"{1}\"")
    @MethodSource("selections")
    void listWithSelectorThroughTheNamespaceIndex(String namespace, String selector, List<String> expected) {
        check(Lister.of(pods(true)), namespace, selector, expected);
    }

    @ParameterizedTest(name = "namespace \"{0}\" selector \"{1}\"")
    @MethodSource("selections")
    void listWithSelectorByScanningWithoutNamespaceIndex(String namespace, String selector, List<String> expected) {
        check(Lister.of(pods(false)), namespace, selector, expected);
    }

    private static void check(Lister<Pod> lister, String namespace, String selector, List<String> expected) {
        LabelSelector parsed = LabelSelector.parse(selector);
        NamespaceLister<Pod> ns = lister.namespace(namespace);
        assertThat(ns.namespace()).isEqualTo(namespace);
        assertThat(names(ns.list(parsed))).isEqualTo(expected);
        if (selector.isEmpty()) {
            assertThat(names(ns.list())).isEqualTo(expected);
        }
        if (namespace.isEmpty()) {
            assertThat(names(lister.list(parsed))).isEqualTo(expected);
        }
        assertThat(ns.list(parsed)).allSatisfy(p -> {
            if (!namespace.isEmpty()) {
                assertThat(p.getMetadata().getNamespace()).isEqualTo(namespace);
            }
        });
    }

    @Test
    void nothingSelectsNothingAndEverythingSelectsAll() {
        Lister<Pod> lister = Lister.of(pods(true));
        assertThat(lister.list(LabelSelector.nothing())).isEmpty();
        assertThat(lister.namespace("prod").list(LabelSelector.nothing())).isEmpty();
        assertThat(lister.list(LabelSelector.everything())).hasSize(5);
    }

    @Test
    void getByNamespaceAndName() {
        Indexer<Pod> indexer = pods(true);
        Lister<Pod> lister = Lister.of(indexer);
        assertThat(lister.namespace("dev").get("web-1"))
                .containsSame(indexer.getByKey("dev/web-1").orElseThrow());
        assertThat(lister.namespace("prod").get("web-1").map(p -> p.getMetadata()
                        .getNamespace()))
                .contains("prod");
        assertThat(lister.namespace("prod").get("plain")).isEmpty();
        // A namespaced object is not found by name alone.
        assertThat(lister.get("web-1")).isEmpty();
        assertThatThrownBy(() -> lister.namespace("").get("web-1"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("all-namespaces lister");
    }

    @Test
    void clusterScopedGetAndList() {
        Indexer<Node> indexer = Indexers.newIndexer(
                Keys.DELETION_HANDLING, Map.of(Indexers.NAMESPACE_INDEX, Indexers.namespaceIndex()));
        Node n1 = node("n1");
        indexer.add(n1);
        indexer.add(node("n2"));
        Lister<Node> lister = Lister.of(indexer);
        assertThat(lister.get("n1")).containsSame(n1);
        assertThat(lister.get("n3")).isEmpty();
        assertThat(names(lister.list())).containsExactly("n1", "n2");
    }

    @Test
    void byIndex() {
        Lister<Pod> lister = Lister.of(pods(true));
        assertThat(lister.byIndex("byNode", "n1"))
                .extracting(p ->
                        p.getMetadata().getNamespace() + "/" + p.getMetadata().getName())
                .containsExactlyInAnyOrder("prod/web-1", "prod/db-1");
        assertThatThrownBy(() -> lister.byIndex("nope", "x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Index with name nope does not exist");
    }

    @Test
    void listerSeesLaterWritesAndIndexesAddedLater() {
        Indexer<Pod> indexer = pods(false);
        Lister<Pod> lister = Lister.of(indexer);
        assertThat(names(lister.namespace("dev").list())).containsExactly("plain", "web-1");
        indexer.addIndexers(Map.of(Indexers.NAMESPACE_INDEX, Indexers.namespaceIndex()));
        indexer.add(pod("dev", "late"));
        indexer.delete(pod("dev", "plain"));
        assertThat(names(lister.namespace("dev").list())).containsExactly("late", "web-1");
    }
}
