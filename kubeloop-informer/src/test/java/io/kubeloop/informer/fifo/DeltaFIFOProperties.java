package io.kubeloop.informer.fifo;

import static io.kubeloop.informer.fifo.FifoFixtures.key;
import static io.kubeloop.informer.fifo.FifoFixtures.pod;
import static io.kubeloop.informer.fifo.FifoFixtures.render;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.kubeloop.informer.cache.DeletedFinalStateUnknown;
import io.kubeloop.informer.fifo.FifoFixtures.Cache;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * Random interleavings of server changes (seen by the watch, or lost while it was down), relists, resyncs and
 * pops, checked against a plain reference model of reference §4.3-§4.8 plus coalescing, and against the informer's
 * promise: after a final relist and a drained queue, the consumer's cache equals the server's state.
 */
class DeltaFIFOProperties {

    private static final List<String> NAMES = List.of("a", "b", "c", "d");

    sealed interface Op {}

    /** Creates or modifies an object on the server; the watch delivers it unless {@code lost}. */
    record Write(String name, boolean lost) implements Op {}

    /** Deletes an object on the server, if it exists; the watch delivers it unless {@code lost}. */
    record Remove(String name, boolean lost) implements Op {}

    record Relist() implements Op {}

    record Resync() implements Op {}

    record Pop() implements Op {}

    @Provide
    Arbitrary<List<Op>> ops() {
        Arbitrary<String> names = Arbitraries.of(NAMES);
        Arbitrary<Boolean> lost = Arbitraries.of(false, false, false, true);
        Arbitrary<Op> op = Arbitraries.frequencyOf(
                Tuple.of(6, Combinators.combine(names, lost).as(Write::new)),
                Tuple.of(3, Combinators.combine(names, lost).as(Remove::new)),
                Tuple.of(1, Arbitraries.just(new Relist())),
                Tuple.of(1, Arbitraries.just(new Resync())),
                Tuple.of(4, Arbitraries.just(new Pop())));
        return op.list().ofMaxSize(60);
    }

    @Property(tries = 400)
    void fifoFollowsTheModelAndTheCacheEndsEqualToTheServer(@ForAll("ops") List<Op> ops, @ForAll boolean coalesce)
            throws InterruptedException {
        Cache cache = new Cache();
        DeltaFIFO<Pod> fifo = DeltaFIFO.<Pod>builder(FifoFixtures.KEY)
                .knownObjects(cache)
                .coalesceUpdates(coalesce)
                .build();
        Model model = new Model(cache, coalesce);
        Map<String, Pod> server = new TreeMap<>();
        int[] rv = {0};

        for (Op op : ops) {
            run(op, fifo, model, cache, server, rv);
            assertThat(render(fifo)).as("after %s", op).isEqualTo(model.render());
            assertThat(fifo.hasSynced()).as("hasSynced after %s", op).isEqualTo(model.synced);
        }
        run(new Relist(), fifo, model, cache, server, rv);
        for (int bound = 0; !fifo.isEmpty() && bound < 100; bound++) {
            run(new Pop(), fifo, model, cache, server, rv);
        }

        assertThat(fifo.isEmpty()).isTrue();
        assertThat(fifo.hasSynced()).isTrue();
        assertThat(new TreeMap<>(cache.map)).isEqualTo(server);
    }

    private static void run(Op op, DeltaFIFO<Pod> fifo, Model model, Cache cache, Map<String, Pod> server, int[] rv)
            throws InterruptedException {
        switch (op) {
            case Write w -> {
                boolean exists = server.containsKey(key(w.name()));
                Pod p = pod(w.name() + "@" + ++rv[0]);
                server.put(key(w.name()), p);
                if (!w.lost()) {
                    if (exists) {
                        fifo.update(p);
                        model.update(p);
                    } else {
                        fifo.add(p);
                        model.add(p);
                    }
                }
            }
            case Remove r -> {
                Pod last = server.remove(key(r.name()));
                if (last != null && !r.lost()) {
                    fifo.delete(last);
                    model.delete(last);
                }
            }
            case Relist l -> {
                List<Pod> list = new ArrayList<>(server.values());
                fifo.replace(list, String.valueOf(rv[0]));
                model.replace(list);
            }
            case Resync s -> {
                fifo.resync();
                model.resync();
            }
            case Pop p -> {
                if (!fifo.isEmpty()) {
                    boolean[] initialSeen = new boolean[1];
                    List<Delta<Pod>> popped = fifo.pop((deltas, initial) -> {
                        initialSeen[0] = initial;
                        cache.apply(deltas);
                    });
                    Model.Popped expected = model.pop();
                    assertThat(render(popped)).isEqualTo(render(expected.deltas()));
                    assertThat(initialSeen[0]).as("isInInitialList").isEqualTo(expected.initial());
                }
            }
        }
    }

    /** The rules as written in the reference, on a LinkedHashMap (insertion order = first-enqueue order). */
    static final class Model {
        record Popped(List<Delta<Pod>> deltas, boolean initial) {}

        final LinkedHashMap<String, List<Delta<Pod>>> items = new LinkedHashMap<>();
        final Cache known;
        final boolean coalesce;
        boolean populated;
        boolean synced;
        Set<String> initial = new HashSet<>();

        Model(Cache known, boolean coalesce) {
            this.known = known;
            this.coalesce = coalesce;
        }

        void enqueue(DeltaType type, Object obj) {
            String k = FifoFixtures.KEY.keyOf(obj);
            List<Delta<Pod>> list = items.computeIfAbsent(k, x -> new ArrayList<>());
            list.add(delta(type, obj));
            int n = list.size();
            if (n < 2) {
                return;
            }
            Delta<Pod> older = list.get(n - 2);
            Delta<Pod> newer = list.get(n - 1);
            if (coalesce && isUpdateOrSync(older.type()) && isUpdateOrSync(newer.type())) {
                boolean updated = older.type() == DeltaType.UPDATED || newer.type() == DeltaType.UPDATED;
                list.remove(n - 1);
                list.set(n - 2, delta(updated ? DeltaType.UPDATED : DeltaType.SYNC, newer.objectOrTombstone()));
            } else if (older.type() == DeltaType.DELETED && newer.type() == DeltaType.DELETED) {
                list.remove(n - 1);
                list.set(n - 2, older.isTombstone() ? newer : older);
            }
        }

        @SuppressWarnings("unchecked")
        private static Delta<Pod> delta(DeltaType type, Object obj) {
            return obj instanceof DeletedFinalStateUnknown<?> t
                    ? Delta.tombstone((DeletedFinalStateUnknown<Pod>) t)
                    : Delta.of(type, (Pod) obj);
        }

        private static boolean isUpdateOrSync(DeltaType t) {
            return t == DeltaType.UPDATED || t == DeltaType.SYNC;
        }

        void event() {
            if (!populated) {
                populated = true;
                synced = true;
            }
        }

        void add(Pod p) {
            event();
            enqueue(DeltaType.ADDED, p);
        }

        void update(Pod p) {
            event();
            enqueue(DeltaType.UPDATED, p);
        }

        void delete(Pod p) {
            event();
            String k = FifoFixtures.KEY.keyOf(p);
            if (items.containsKey(k) || known.getByKey(k).isPresent()) {
                enqueue(DeltaType.DELETED, p);
            }
        }

        void replace(List<Pod> list) {
            Set<String> listed = new HashSet<>();
            for (Pod p : list) {
                listed.add(FifoFixtures.KEY.keyOf(p));
                enqueue(DeltaType.REPLACED, p);
            }
            Set<String> deleted = new HashSet<>();
            for (String k : new ArrayList<>(items.keySet())) {
                if (!listed.contains(k)) {
                    List<Delta<Pod>> ds = items.get(k);
                    Object newest = ds.get(ds.size() - 1).object();
                    if (newest instanceof DeletedFinalStateUnknown<?> t) {
                        newest = t.object();
                    }
                    enqueue(DeltaType.DELETED, new DeletedFinalStateUnknown<>(k, newest));
                    deleted.add(k);
                }
            }
            for (String k : known.listKeys()) {
                if (!listed.contains(k) && !items.containsKey(k)) {
                    enqueue(
                            DeltaType.DELETED,
                            new DeletedFinalStateUnknown<>(k, known.getByKey(k).orElseThrow()));
                    deleted.add(k);
                }
            }
            if (!populated) {
                populated = true;
                initial.addAll(listed);
                initial.addAll(deleted);
                synced = initial.isEmpty();
            }
        }

        void resync() {
            for (String k : known.listKeys()) {
                if (!items.containsKey(k)) {
                    enqueue(DeltaType.SYNC, known.getByKey(k).orElseThrow());
                }
            }
        }

        Popped pop() {
            String k = items.keySet().iterator().next();
            List<Delta<Pod>> ds = items.remove(k);
            boolean wasInitial = initial.remove(k);
            if (wasInitial && initial.isEmpty()) {
                synced = true;
            }
            return new Popped(ds, wasInitial);
        }

        String render() {
            List<String> parts = new ArrayList<>();
            items.forEach(
                    (k, ds) -> parts.add(k.substring(FifoFixtures.NS.length() + 1) + ":" + FifoFixtures.render(ds)));
            return String.join(" | ", parts);
        }
    }
}
