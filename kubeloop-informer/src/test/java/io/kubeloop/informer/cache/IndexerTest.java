package io.kubeloop.informer.cache;

import static io.kubeloop.informer.cache.Fixtures.names;
import static io.kubeloop.informer.cache.Fixtures.pod;
import static io.kubeloop.informer.cache.Fixtures.podIndexer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** client-go's threadSafeMap/storeIndex rules (reference §3.2, §3.3), through {@link Indexers#newIndexer}. */
class IndexerTest {

    // ------------------------------------------------------------------------------------------------
    // Index maintenance: each scenario runs writes, then the "byNode" index must be exactly as given.

    static Stream<Arguments> indexScenarios() {
        return Stream.of(
                scenario("add indexes the object", Map.of("n1", List.of("a")), s -> s.add(pod("ns", "a", "n1"))),
                scenario("unscheduled pod is under no value", Map.of(), s -> s.add(pod("ns", "a", null))),
                scenario(
                        "update moves the key from the old value to the new (old value emptied and removed)",
                        Map.of("n2", List.of("a")),
                        s -> s.add(pod("ns", "a", "n1")),
                        s -> s.update(pod("ns", "a", "n2"))),
                scenario(
                        "add of an existing key is an update",
                        Map.of("n2", List.of("a")),
                        s -> s.add(pod("ns", "a", "n1")),
                        s -> s.add(pod("ns", "a", "n2"))),
                scenario(
                        "update to the same value keeps it",
                        Map.of("n1", List.of("a", "b")),
                        s -> s.add(pod("ns", "a", "n1")),
                        s -> s.add(pod("ns", "b", "n1")),
                        s -> s.update(pod("ns", "a", "n1"))),
                scenario(
                        "update to no value removes it",
                        Map.of("n1", List.of("b")),
                        s -> s.add(pod("ns", "a", "n1")),
                        s -> s.add(pod("ns", "b", "n1")),
                        s -> s.update(pod("ns", "a", null))),
                scenario(
                        "delete removes from the index and drops the empty value",
                        Map.of("n2", List.of("b")),
                        s -> s.add(pod("ns", "a", "n1")),
                        s -> s.add(pod("ns", "b", "n2")),
                        s -> s.delete(pod("ns", "a", "whatever"))),
                scenario(
                        "delete of an absent key is a no-op",
                        Map.of("n1", List.of("a")),
                        s -> s.add(pod("ns", "a", "n1")),
                        s -> s.delete(pod("ns", "zz", "n1"))),
                scenario(
                        "delete uses the stored values, not the argument's",
                        Map.of(),
                        s -> s.add(pod("ns", "a", "n1")),
                        s -> s.delete(pod("ns", "a", "n9"))),
                scenario(
                        "same name in two namespaces are two keys",
                        Map.of("n1", List.of("a", "a")),
                        s -> s.add(pod("ns1", "a", "n1")),
                        s -> s.add(pod("ns2", "a", "n1"))),
                scenario(
                        "replace rebuilds every index",
                        Map.of("n3", List.of("c"), "n1", List.of("d")),
                        s -> s.add(pod("ns", "a", "n1")),
                        s -> s.add(pod("ns", "b", "n2")),
                        s -> s.replace(List.of(pod("ns", "c", "n3"), pod("ns", "d", "n1")), "7")),
                scenario(
                        "replace with nothing empties everything",
                        Map.of(),
                        s -> s.add(pod("ns", "a", "n1")),
                        s -> s.replace(List.of(), "8")),
                scenario(
                        "replace: the last of two objects with one key wins",
                        Map.of("n2", List.of("a")),
                        s -> s.replace(List.of(pod("ns", "a", "n1"), pod("ns", "a", "n2")), "9")),
                scenario(
                        "writes after replace",
                        Map.of("n1", List.of("e"), "n3", List.of("c")),
                        s -> s.replace(List.of(pod("ns", "c", "n3"), pod("ns", "d", "n1")), "7"),
                        s -> s.delete(pod("ns", "d", null)),
                        s -> s.add(pod("ns", "e", "n1"))));
    }

    @SafeVarargs
    @SuppressWarnings("varargs") // List.of only reads and copies the array, so no heap pollution can escape
    private static Arguments scenario(String name, Map<String, List<String>> byNode, Consumer<Indexer<Pod>>... ops) {
        return Arguments.of(name, List.of(ops), byNode);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("indexScenarios")
    void indexFollowsWrites(String scenario, List<Consumer<Indexer<Pod>>> ops, Map<String, List<String>> byNode) {
        Indexer<Pod> indexer = podIndexer();
        ops.forEach(op -> op.accept(indexer));

        assertThat(new TreeMap<>(valuesToNames(indexer, "byNode"))).isEqualTo(new TreeMap<>(sortedValues(byNode)));
        assertThat(indexer.listIndexFuncValues("byNode")).containsExactlyInAnyOrderElementsOf(byNode.keySet());
        // Every object is in the namespace index under its namespace, and nowhere else.
        for (Pod pod : indexer.list()) {
            assertThat(indexer.byIndex(
                            Indexers.NAMESPACE_INDEX, pod.getMetadata().getNamespace()))
                    .contains(pod);
        }
        int inNamespaces = indexer.listIndexFuncValues(Indexers.NAMESPACE_INDEX).stream()
                .mapToInt(ns -> indexer.byIndex(Indexers.NAMESPACE_INDEX, ns).size())
                .sum();
        assertThat(inNamespaces).isEqualTo(indexer.list().size());
    }

    private static Map<String, List<String>> valuesToNames(Indexer<Pod> indexer, String index) {
        Map<String, List<String>> out = new TreeMap<>();
        for (String value : indexer.listIndexFuncValues(index)) {
            out.put(value, names(indexer.byIndex(index, value)));
        }
        return out;
    }

    private static Map<String, List<String>> sortedValues(Map<String, List<String>> map) {
        Map<String, List<String>> out = new TreeMap<>();
        map.forEach((k, v) -> out.put(k, v.stream().sorted().toList()));
        return out;
    }

    // ------------------------------------------------------------------------------------------------
    // Store operations

    @Test
    void storeReadsAndKeys() {
        Indexer<Pod> indexer = podIndexer();
        Pod a = pod("ns", "a", "n1");
        Pod b = pod("other", "b", "n1");
        assertThat(indexer.size()).isZero();
        indexer.add(a);
        indexer.add(b);
        indexer.update(pod("ns", "a", "n1"));
        indexer.add(a);

        assertThat(indexer.size()).isEqualTo(2);
        assertThat(indexer.listKeys()).containsExactlyInAnyOrder("ns/a", "other/b");
        assertThat(indexer.list()).containsExactlyInAnyOrder(a, b);
        assertThat(indexer.getByKey("ns/a")).containsSame(a);
        assertThat(indexer.get(pod("ns", "a", "elsewhere"))).containsSame(a);
        assertThat(indexer.getByKey("ns/zz")).isEmpty();
        // Objects are stored as given: the very instance comes back, no copy.
        assertThat(indexer.byIndex("byNode", "n1"))
                .anySatisfy(p -> assertThat(p).isSameAs(a));
    }

    @Test
    void replaceAbortsOnKeyErrorAndLeavesTheStoreUnchanged() {
        Indexer<Pod> indexer = podIndexer();
        Pod a = pod("ns", "a", "n1");
        indexer.add(a);
        assertThatThrownBy(() -> indexer.replace(List.of(pod("ns", "b", "n2"), pod("ns", null, "n2")), "5"))
                .isInstanceOf(KeyException.class);
        assertThat(indexer.list()).containsExactly(a);
        assertThat(indexer.listIndexFuncValues("byNode")).containsExactly("n1");
    }

    @Test
    void writesOfObjectsWithoutKeyFailWithKeyException() {
        Indexer<Pod> indexer = podIndexer();
        assertThatThrownBy(() -> indexer.add(pod("ns", null))).isInstanceOf(KeyException.class);
        assertThatThrownBy(() -> indexer.delete(pod("ns", ""))).isInstanceOf(KeyException.class);
        assertThat(indexer.list()).isEmpty();
    }

    // ------------------------------------------------------------------------------------------------
    // Index queries

    @Test
    void indexKeysAreSortedAndByIndexFindsObjects() {
        Indexer<Pod> indexer = podIndexer();
        for (String name : List.of("c", "a", "d", "b")) {
            indexer.add(pod("ns", name, "n1"));
        }
        indexer.add(pod("ns", "x", "n2"));

        assertThat(indexer.indexKeys("byNode", "n1")).containsExactly("ns/a", "ns/b", "ns/c", "ns/d");
        assertThat(indexer.indexKeys("byNode", "n9")).isEmpty();
        assertThat(names(indexer.byIndex("byNode", "n2"))).containsExactly("x");
        assertThat(indexer.byIndex("byNode", "n9")).isEmpty();
    }

    @Test
    void indexReturnsObjectsSharingAnyValueOnce() {
        Indexer<Pod> indexer = podIndexer();
        indexer.add(pod("ns", "a", null, Map.of("app", "web", "tier", "front")));
        indexer.add(pod("ns", "b", null, Map.of("app", "web")));
        indexer.add(pod("ns", "c", null, Map.of("tier", "front")));
        indexer.add(pod("ns", "d", null, Map.of("app", "db")));

        Pod probe = pod("x", "probe", null, Map.of("app", "web", "tier", "front"));
        assertThat(names(indexer.index("byLabel", probe))).containsExactly("a", "b", "c");
        assertThat(names(indexer.index("byLabel", pod("x", "p", null, Map.of("app", "db")))))
                .containsExactly("d");
        assertThat(indexer.index("byLabel", pod("x", "p", null, Map.of()))).isEmpty();
    }

    @Test
    void multiValuedIndexUpdatesEachValue() {
        Indexer<Pod> indexer = podIndexer();
        indexer.add(pod("ns", "a", null, Map.of("app", "web", "tier", "front")));
        indexer.update(pod("ns", "a", null, Map.of("app", "web", "tier", "back")));

        assertThat(indexer.listIndexFuncValues("byLabel")).containsExactlyInAnyOrder("app=web", "tier=back");
        assertThat(indexer.indexKeys("byLabel", "tier=front")).isEmpty();
        assertThat(indexer.indexKeys("byLabel", "tier=back")).containsExactly("ns/a");
    }

    @Test
    void duplicateValuesFromOneObjectCountOnce() {
        Indexer<Pod> indexer = Indexers.newIndexer(Keys.META_NAMESPACE, Map.of("dup", p -> List.of("x", "x", "y")));
        Pod a = pod("ns", "a");
        indexer.add(a);
        assertThat(indexer.byIndex("dup", "x")).containsExactly(a);
        assertThat(indexer.index("dup", a)).containsExactly(a);
        indexer.delete(a);
        assertThat(indexer.listIndexFuncValues("dup")).isEmpty();
    }

    @Test
    void unknownIndexNames() {
        Indexer<Pod> indexer = podIndexer();
        indexer.add(pod("ns", "a", "n1"));
        String message = "Index with name nope does not exist";
        assertThatThrownBy(() -> indexer.byIndex("nope", "n1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
        assertThatThrownBy(() -> indexer.indexKeys("nope", "n1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
        assertThatThrownBy(() -> indexer.index("nope", pod("ns", "a")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
        // client-go: listIndexFuncValues of an unknown index is simply empty.
        assertThat(indexer.listIndexFuncValues("nope")).isEmpty();
    }

    @Test
    void clusterScopedObjectsAreInTheNamespaceIndexUnderEmptyString() {
        Indexer<io.fabric8.kubernetes.api.model.Node> nodes =
                Indexers.newIndexer(Keys.META_NAMESPACE, Map.of(Indexers.NAMESPACE_INDEX, Indexers.namespaceIndex()));
        nodes.add(Fixtures.node("n1"));
        assertThat(nodes.listIndexFuncValues(Indexers.NAMESPACE_INDEX)).containsExactly("");
        assertThat(nodes.indexKeys(Indexers.NAMESPACE_INDEX, "")).containsExactly("n1");
    }

    // ------------------------------------------------------------------------------------------------
    // Index functions that fail are programming errors: the write fails, naming index and key, and changes nothing.

    static Stream<Arguments> failingIndexFuncs() {
        IndexFunc<Pod> throwing = p -> {
            throw new IllegalStateException("boom");
        };
        IndexFunc<Pod> nullList = p -> null;
        IndexFunc<Pod> nullValue = p -> new ArrayList<>(java.util.Arrays.asList("ok", null));
        return Stream.of(
                Arguments.of("throws", throwing, "boom"),
                Arguments.of("returns null", nullList, "the index function returned null"),
                Arguments.of("returns a null value", nullValue, "the index function returned a null value"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("failingIndexFuncs")
    void failingIndexFunctionFailsTheWrite(String scenario, IndexFunc<Pod> bad, String cause) {
        Indexer<Pod> indexer = Indexers.newIndexer(Keys.META_NAMESPACE, Map.of("byNode", Fixtures::byNode));
        Pod a = pod("ns", "a", "n1");
        indexer.add(a);
        // Fails only for pod "b".
        indexer.addIndexers(Map.of("bad", p -> p.getMetadata().getName().equals("b") ? bad.indexValues(p) : List.of()));

        String expected = "unable to calculate an index entry for key \"ns/b\" on index \"bad\"";
        assertThatThrownBy(() -> indexer.add(pod("ns", "b", "n2")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(expected)
                .hasMessageContaining(cause);
        assertThatThrownBy(() -> indexer.replace(List.of(pod("ns", "b", "n2")), "3"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(expected);
        assertThat(indexer.list()).containsExactly(a);
        assertThat(indexer.listIndexFuncValues("byNode")).containsExactly("n1");

        // addIndexers over content that makes the function fail adds nothing.
        Indexer<Pod> other = Indexers.newIndexer(Keys.META_NAMESPACE, Map.of());
        other.add(pod("ns", "b"));
        assertThatThrownBy(() -> other.addIndexers(Map.of("bad2", bad)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("on index \"bad2\"");
        assertThat(other.indexers()).isEmpty();
    }

    // ------------------------------------------------------------------------------------------------
    // addIndexers

    @Test
    void addIndexersAfterContentBuildsTheNewIndex() {
        Indexer<Pod> indexer =
                Indexers.newIndexer(Keys.META_NAMESPACE, Map.of(Indexers.NAMESPACE_INDEX, Indexers.namespaceIndex()));
        indexer.add(pod("ns", "a", "n1"));
        indexer.add(pod("ns", "b", "n2"));
        indexer.add(pod("ns2", "c", "n1"));

        indexer.addIndexers(Map.of("byNode", Fixtures::byNode));

        assertThat(indexer.indexers()).containsOnlyKeys(Indexers.NAMESPACE_INDEX, "byNode");
        assertThat(indexer.indexKeys("byNode", "n1")).containsExactly("ns/a", "ns2/c");
        assertThat(indexer.indexKeys(Indexers.NAMESPACE_INDEX, "ns")).containsExactly("ns/a", "ns/b");
        // And it is maintained from then on.
        indexer.update(pod("ns", "a", "n2"));
        indexer.delete(pod("ns2", "c"));
        assertThat(indexer.listIndexFuncValues("byNode")).containsExactly("n2");
        assertThat(indexer.indexKeys("byNode", "n2")).containsExactly("ns/a", "ns/b");
    }

    @Test
    void addIndexersConflictAddsNothing() {
        Indexer<Pod> indexer = podIndexer();
        assertThatThrownBy(() -> indexer.addIndexers(Map.of("fresh", Fixtures::byNode, "byNode", Fixtures::byNode)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("indexer conflict: [byNode]");
        assertThat(indexer.indexers()).containsOnlyKeys(Indexers.NAMESPACE_INDEX, "byNode", "byLabel");
    }

    @Test
    void badIndexerDefinitionsAreRejected() {
        assertThatThrownBy(() -> Indexers.<Pod>newIndexer(Keys.META_NAMESPACE, Map.of("", Fixtures::byNode)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("index name");
        java.util.Map<String, IndexFunc<Pod>> nullFunc = new java.util.HashMap<>();
        nullFunc.put("byNode", null);
        assertThatThrownBy(() -> Indexers.newIndexer(Keys.META_NAMESPACE, nullFunc))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("index \"byNode\" has no index function");
    }

    @Test
    void storeWithoutIndexes() {
        Store<Pod> store = Indexers.newStore(Keys.META_NAMESPACE);
        Pod a = pod("ns", "a");
        store.add(a);
        store.update(pod("ns", "b"));
        store.delete(pod("ns", "b"));
        assertThat(store.listKeys()).containsExactly("ns/a");
        store.replace(List.of(pod("x", "y")), "2");
        assertThat(store.listKeys()).containsExactly("x/y");
        store.resync();
        assertThat(store.listKeys()).containsExactly("x/y");
    }
}
