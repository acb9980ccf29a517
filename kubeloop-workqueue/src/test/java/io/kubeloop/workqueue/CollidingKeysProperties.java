package io.kubeloop.workqueue;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * The queue must behave the same whatever the keys' hash codes: keys that collide, keys
 * whose hashes cluster into long probe runs, and key sets that grow the index and shrink it again. The
 * queue is checked step by step against client-go's model (a FIFO list plus dirty and processing sets).
 */
class CollidingKeysProperties {

    /** A key whose hash code the test chooses; equality is by id only. */
    record Key(int id, int hash) {
        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.id == id;
        }
    }

    /** client-go's work queue, single-threaded, as the reference. */
    static final class Model {
        final ArrayDeque<Key> queue = new ArrayDeque<>();
        final Set<Key> dirty = new HashSet<>();
        final Set<Key> processing = new HashSet<>();

        void add(Key k) {
            if (dirty.add(k) && !processing.contains(k)) {
                queue.addLast(k);
            }
        }

        Key get() {
            Key k = queue.pollFirst();
            if (k != null) {
                processing.add(k);
                dirty.remove(k);
            }
            return k;
        }

        void done(Key k) {
            if (processing.remove(k) && dirty.contains(k)) {
                queue.addLast(k);
            }
        }
    }

    @Property(tries = 300)
    void matchesClientGoModelForAnyHashDistribution(
            @ForAll("hashSpreads") int hashSpread,
            @ForAll @IntRange(min = 1, max = 400) int keyCount,
            @ForAll("operations") List<Integer> operations)
            throws InterruptedException {
        List<Key> keys = new ArrayList<>();
        for (int id = 0; id < keyCount; id++) {
            // hashSpread 1: every key collides; 7: seven buckets; large: clustered runs of neighbours.
            keys.add(new Key(id, (id % hashSpread) * 16));
        }
        WorkQueue<Key> queue = WorkQueue.<Key>builder().build();
        Model model = new Model();
        List<Key> held = new ArrayList<>();
        for (int op : operations) {
            Key key = keys.get(Math.floorMod(op, keyCount));
            switch (Math.floorMod(op >>> 16, 4)) {
                case 0, 1 -> {
                    queue.add(key);
                    model.add(key);
                }
                case 2 -> {
                    if (!model.queue.isEmpty()) {
                        Key expected = model.get();
                        assertThat(queue.get()).isEqualTo(expected);
                        held.add(expected);
                    }
                }
                default -> {
                    if (!held.isEmpty()) {
                        Key k = held.remove(Math.floorMod(op, held.size()));
                        queue.done(k);
                        model.done(k);
                    }
                }
            }
            assertThat(queue.len()).isEqualTo(model.queue.size());
        }
        // Drain both and compare the full remaining order.
        for (Key k : held) {
            queue.done(k);
            model.done(k);
        }
        queue.shutDown();
        List<Key> rest = new ArrayList<>();
        for (Key k; (k = queue.get()) != null && rest.size() <= keyCount; ) {
            rest.add(k);
        }
        assertThat(rest).containsExactlyElementsOf(model.queue);
    }

    @Property(tries = 50)
    void growsAndShrinksWithoutLosingItems(@ForAll @IntRange(min = 1, max = 5000) int n) throws InterruptedException {
        WorkQueue<Key> queue = WorkQueue.<Key>builder().build();
        for (int round = 0; round < 2; round++) {
            for (int id = 0; id < n; id++) {
                queue.add(new Key(id, id * 31 % 257));
            }
            assertThat(queue.len()).isEqualTo(n);
            for (int id = 0; id < n; id++) {
                Key k = queue.get();
                assertThat(k.id()).isEqualTo(id);
                queue.done(k);
            }
            assertThat(queue.len()).isZero();
        }
        assertThat(queue.shutDownWithDrain(java.time.Duration.ZERO)).isTrue();
    }

    @Provide
    Arbitrary<Integer> hashSpreads() {
        return Arbitraries.of(1, 2, 7, 64, 100_000);
    }

    @Provide
    Arbitrary<List<Integer>> operations() {
        return Arbitraries.integers().list().ofMinSize(1).ofMaxSize(600);
    }
}
