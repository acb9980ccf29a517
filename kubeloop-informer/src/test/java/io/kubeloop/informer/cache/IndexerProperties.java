package io.kubeloop.informer.cache;

import static io.kubeloop.informer.cache.Fixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Random sequences of writes against a plain map as the model: after every operation, every read of the indexer
 * (keys, objects, index values, byIndex, indexKeys, index) agrees with what the model's objects imply.
 */
class IndexerProperties {

    private static final List<String> NAMESPACES = List.of("a", "b", "");
    private static final List<String> NAMES = List.of("p0", "p1", "p2", "p3");
    private static final List<String> NODES = List.of("n1", "n2", "n3");

    sealed interface Op permits Put, Delete, Replace, AddByLabel {}

    record Put(Pod pod) implements Op {}

    record Delete(String namespace, String name) implements Op {}

    record Replace(List<Pod> pods) implements Op {}

    /** Adds the multi-valued "byLabel" index (once; a second time is a conflict and changes nothing). */
    record AddByLabel() implements Op {}

    private static Arbitrary<Pod> pods() {
        Arbitrary<String> node = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(1, Arbitraries.just((String) null)),
                net.jqwik.api.Tuple.of(3, Arbitraries.of(NODES)));
        Arbitrary<Map<String, String>> labels = Arbitraries.maps(
                        Arbitraries.of("app", "tier", "x"), Arbitraries.of("1", "2"))
                .ofMaxSize(3);
        return Combinators.combine(Arbitraries.of(NAMESPACES), Arbitraries.of(NAMES), node, labels)
                .as((ns, name, n, l) -> pod(ns, name, n, l));
    }

    @Provide
    Arbitrary<List<Op>> ops() {
        Arbitrary<Op> op = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(10, pods().map(Put::new)),
                net.jqwik.api.Tuple.of(
                        4,
                        Combinators.combine(Arbitraries.of(NAMESPACES), Arbitraries.of(NAMES))
                                .as(Delete::new)),
                net.jqwik.api.Tuple.of(1, pods().list().ofMaxSize(8).map(Replace::new)),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(new AddByLabel())));
        return op.list().ofMaxSize(40);
    }

    /** Through {@link Indexers} (a detecting store when the suite's mutation detector is on). */
    @Property(tries = 300)
    void indexerAgreesWithAMapModel(@ForAll("ops") List<Op> ops) {
        run(
                Indexers.newIndexer(
                        Keys.DELETION_HANDLING,
                        Map.of(Indexers.NAMESPACE_INDEX, Indexers.namespaceIndex(), "byNode", Fixtures::byNode)),
                ops);
    }

    /** The store itself, whether or not the detector is on. */
    @Property(tries = 300)
    void threadSafeIndexerAgreesWithAMapModel(@ForAll("ops") List<Op> ops) {
        run(
                new ThreadSafeIndexer<>(
                        Keys.DELETION_HANDLING,
                        Map.of(Indexers.NAMESPACE_INDEX, Indexers.namespaceIndex(), "byNode", Fixtures::byNode)),
                ops);
    }

    private static void run(Indexer<Pod> indexer, List<Op> ops) {
        Map<String, Pod> model = new LinkedHashMap<>();
        boolean byLabel = false;
        for (Op op : ops) {
            switch (op) {
                case Put p -> {
                    indexer.update(p.pod());
                    model.put(Keys.META_NAMESPACE.keyOf(p.pod()), p.pod());
                }
                case Delete d -> {
                    Pod probe = pod(d.namespace(), d.name());
                    indexer.delete(probe);
                    model.remove(Keys.META_NAMESPACE.keyOf(probe));
                }
                case Replace r -> {
                    indexer.replace(r.pods(), "1");
                    model.clear();
                    r.pods().forEach(pod -> model.put(Keys.META_NAMESPACE.keyOf(pod), pod));
                }
                case AddByLabel a -> {
                    try {
                        indexer.addIndexers(Map.of("byLabel", Fixtures::byLabel));
                        assertThat(byLabel)
                                .as("a second addIndexers must conflict")
                                .isFalse();
                        byLabel = true;
                    } catch (IllegalArgumentException conflict) {
                        assertThat(byLabel).isTrue();
                    }
                }
            }
            check(indexer, model, byLabel);
        }
    }

    private static void check(Indexer<Pod> indexer, Map<String, Pod> model, boolean byLabel) {
        assertThat(new TreeSet<>(indexer.listKeys())).isEqualTo(new TreeSet<>(model.keySet()));
        assertThat(indexer.size()).isEqualTo(model.size());
        assertThat(indexer.list()).containsExactlyInAnyOrderElementsOf(model.values());
        model.forEach((key, pod) -> assertThat(indexer.getByKey(key)).containsSame(pod));
        Map<String, IndexFunc<Pod>> indexes = new LinkedHashMap<>();
        indexes.put(Indexers.NAMESPACE_INDEX, Indexers.namespaceIndex());
        indexes.put("byNode", Fixtures::byNode);
        if (byLabel) {
            indexes.put("byLabel", Fixtures::byLabel);
        }
        assertThat(indexer.indexers().keySet()).isEqualTo(indexes.keySet());
        indexes.forEach((name, func) -> {
            Map<String, Set<String>> expected = new TreeMap<>();
            model.forEach(
                    (key, pod) -> func.indexValues(pod).forEach(v -> expected.computeIfAbsent(v, x -> new TreeSet<>())
                            .add(key)));
            assertThat(new TreeSet<>(indexer.listIndexFuncValues(name)))
                    .as(name)
                    .isEqualTo(expected.keySet());
            expected.forEach((value, keys) -> {
                assertThat(indexer.indexKeys(name, value)).isEqualTo(new ArrayList<>(keys));
                assertThat(indexer.byIndex(name, value))
                        .containsExactlyInAnyOrderElementsOf(
                                keys.stream().map(model::get).toList());
            });
            for (Pod probe : model.values()) {
                Set<String> probeValues = new TreeSet<>(func.indexValues(probe));
                List<Pod> sharing = model.values().stream()
                        .filter(p -> func.indexValues(p).stream().anyMatch(probeValues::contains))
                        .toList();
                assertThat(indexer.index(name, probe)).containsExactlyInAnyOrderElementsOf(sharing);
            }
        });
    }
}
