package io.kubeloop.workqueue;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * {@link PriorityWorkQueue} against a plain, linear-scan model of its rules on a fake clock: the item handed out
 * is always the model's (priority, FIFO within a priority, aging every second get), and {@code len()} agrees
 * after every operation. The clock is a {@link SettlingClock}, so that the test knows when the timer thread
 * has added the delayed items that became ready.
 */
class PriorityWorkQueueProperties {

    private static final List<String> KEYS = List.of("a", "b", "c", "d");
    private static final List<Integer> PRIORITIES = List.of(PriorityWorkQueue.LOW_PRIORITY, 0, 0, 3);
    private static final long SECOND = 1_000_000_000L;
    /** Short against the steps (0–4 s) so that sequences age items often. */
    private static final long AGING = 5 * SECOND;

    sealed interface Op {}

    record Add(String key, int priority) implements Op {}

    /** A non-blocking get: performed only when the model has a ready item or is shut down. */
    record Get() implements Op {}

    /** done() of the index-th (mod size) item being processed; skipped when none is. */
    record DoneHeld(int index) implements Op {}

    record AddAfter(String key, int seconds, int priority) implements Op {}

    record Step(int seconds) implements Op {}

    record ShutDown() implements Op {}

    /** The rules of {@link PriorityWorkQueue}'s Javadoc, by brute force. */
    static final class Model {
        static final int QUEUED = 0;
        static final int PROCESSING = 1;
        static final int PROCESSING_DIRTY = 2;

        static final class Item {
            int state;
            int priority;
            long readySince;
            /** Order in the age list (ties of readySince broken by when it became ready). */
            long ageSeq;
            /** Order in its band: set when it becomes ready or is raised. */
            long bandSeq;
        }

        /** Insertion-ordered so that DoneHeld(i) is deterministic. */
        final Map<String, Item> items = new LinkedHashMap<>();
        /** key → {readyAt, seq, priority}. */
        final Map<String, long[]> waiting = new HashMap<>();

        long now;
        long seq;
        boolean lastAged;
        boolean shuttingDown;

        void add(String k, int p) {
            if (shuttingDown) {
                return;
            }
            Item it = items.get(k);
            if (it == null) {
                it = new Item();
                it.priority = p;
                items.put(k, it);
                makeReady(it);
            } else if (it.state == PROCESSING) {
                it.state = PROCESSING_DIRTY;
                it.priority = p;
            } else if (p > it.priority) {
                it.priority = p;
                it.bandSeq = seq++; // back of the new band; age unchanged
            }
        }

        private void makeReady(Item it) {
            it.state = QUEUED;
            it.readySince = now;
            it.ageSeq = seq++;
            it.bandSeq = seq++;
        }

        int len() {
            return (int) items.values().stream().filter(i -> i.state == QUEUED).count();
        }

        String get() {
            Map.Entry<String, Item> oldest = null;
            Map.Entry<String, Item> best = null;
            for (Map.Entry<String, Item> e : items.entrySet()) {
                Item it = e.getValue();
                if (it.state != QUEUED) {
                    continue;
                }
                if (oldest == null || it.ageSeq < oldest.getValue().ageSeq) {
                    oldest = e;
                }
                if (best == null
                        || it.priority > best.getValue().priority
                        || (it.priority == best.getValue().priority && it.bandSeq < best.getValue().bandSeq)) {
                    best = e;
                }
            }
            if (oldest == null) {
                return null;
            }
            Map.Entry<String, Item> chosen;
            if (!lastAged && now - oldest.getValue().readySince >= AGING) {
                chosen = oldest;
                lastAged = true;
            } else {
                chosen = best;
                lastAged = false;
            }
            chosen.getValue().state = PROCESSING;
            return chosen.getKey();
        }

        List<String> processing() {
            return items.entrySet().stream()
                    .filter(e -> e.getValue().state != QUEUED)
                    .map(Map.Entry::getKey)
                    .toList();
        }

        void done(String k) {
            Item it = items.get(k);
            if (it.state == PROCESSING_DIRTY) {
                makeReady(it);
            } else {
                items.remove(k);
            }
        }

        void addAfter(String k, long delayNanos, int p) {
            if (shuttingDown) {
                return;
            }
            if (delayNanos <= 0) {
                add(k, p);
                return;
            }
            long readyAt = now + delayNanos;
            long[] e = waiting.get(k);
            if (e == null) {
                waiting.put(k, new long[] {readyAt, seq++, p});
            } else {
                e[2] = Math.max(e[2], p);
                if (readyAt < e[0]) {
                    e[0] = readyAt;
                    e[1] = seq++;
                }
            }
        }

        /** Advances time; returns true if some waiting item became ready (and was added). */
        boolean step(long nanos) {
            now += nanos;
            List<Map.Entry<String, long[]>> due = WorkQueueProperties.Model.takeDue(waiting, now);
            due.forEach(e -> add(e.getKey(), (int) e.getValue()[2]));
            return !due.isEmpty();
        }

        void shutDown() {
            shuttingDown = true;
            waiting.clear();
        }
    }

    @Provide
    Arbitrary<List<Op>> ops() {
        Arbitrary<String> key = Arbitraries.of(KEYS);
        Arbitrary<Integer> priority = Arbitraries.of(PRIORITIES);
        Arbitrary<Op> op = Arbitraries.frequencyOf(
                Tuple.of(12, Combinators.combine(key, priority).as(Add::new)),
                Tuple.of(12, Arbitraries.just(new Get())),
                Tuple.of(10, Arbitraries.integers().between(0, 3).map(DoneHeld::new)),
                Tuple.of(
                        6,
                        Combinators.combine(key, Arbitraries.integers().between(-1, 6), priority)
                                .as(AddAfter::new)),
                Tuple.of(8, Arbitraries.integers().between(0, 4).map(Step::new)),
                Tuple.of(1, Arbitraries.just(new ShutDown())));
        return op.list().ofMinSize(5).ofMaxSize(100);
    }

    @Property(tries = 300)
    void priorityQueueBehavesLikeTheModel(@ForAll("ops") List<Op> ops) throws Exception {
        SettlingClock clock = new SettlingClock();
        PriorityWorkQueue<String> queue = WorkQueue.<String>builder()
                .clock(clock)
                .timerThreadFactory(clock::newTimerThread)
                .agingPeriod(Duration.ofNanos(AGING))
                .buildPriority();
        Model model = new Model();
        try {
            for (Op op : ops) {
                switch (op) {
                    case Add(String k, int p) -> {
                        model.add(k, p);
                        queue.add(k, p);
                    }
                    case Get() -> {
                        if (model.len() > 0 || model.shuttingDown) { // otherwise get() would block
                            String expected = model.get();
                            assertThat(queue.get()).as("get() after %s", op).isEqualTo(expected);
                        }
                    }
                    case DoneHeld(int index) -> {
                        List<String> held = model.processing();
                        if (!held.isEmpty()) {
                            String k = held.get(index % held.size());
                            model.done(k);
                            queue.done(k);
                        }
                    }
                    case AddAfter(String k, int seconds, int p) -> {
                        model.addAfter(k, seconds * SECOND, p);
                        queue.addAfter(k, Duration.ofSeconds(seconds), p);
                    }
                    case Step(int seconds) -> {
                        boolean arrivals = model.step(seconds * SECOND);
                        clock.step(Duration.ofSeconds(seconds), arrivals);
                    }
                    case ShutDown() -> {
                        model.shutDown();
                        queue.shutDown();
                    }
                }
                assertThat(queue.len()).as("len() after %s", op).isEqualTo(model.len());
            }
        } finally {
            queue.shutDown();
        }
    }
}
