package io.kubeloop.workqueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Many producers and many workers on one queue, on platform and on virtual threads. Checks the guarantees of
 * docs §8.1–§8.3 under contention: single-flight, no lost add, stingy (no duplicate hand-out), re-adds during
 * processing processed exactly once more, rate-limited retries, and shutdown / drain releasing every thread.
 *
 * <p>Every loop is bounded, nothing sleeps, and every thread is joined with a timeout.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WorkQueueConcurrencyTest {

    private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(30);

    enum Kind {
        PLATFORM {
            @Override
            Thread.Builder builder() {
                return Thread.ofPlatform().daemon(true);
            }
        },
        VIRTUAL {
            @Override
            Thread.Builder builder() {
                return Thread.ofVirtual();
            }
        };

        abstract Thread.Builder builder();

        ThreadFactory factory(String name) {
            return builder().name(name).factory();
        }

        /** Starts a thread whose exceptions (and assertion errors) are recorded in {@code failures}. */
        Thread start(String name, Failures failures, ThrowingRunnable body) {
            return builder().name(name).start(() -> {
                try {
                    body.run();
                } catch (Throwable t) {
                    failures.add(name + " threw " + t);
                }
            });
        }
    }

    @FunctionalInterface
    interface ThrowingRunnable {
        void run() throws Exception;
    }

    /** Failures seen by any thread; the test thread asserts there are none. */
    static final class Failures {
        private final ConcurrentLinkedQueue<String> list = new ConcurrentLinkedQueue<>();

        void add(String failure) {
            if (list.size() < 100) {
                list.add(failure);
            }
        }

        void assertNone() {
            assertThat(list).as("failures seen by producer / worker threads").isEmpty();
        }
    }

    private static void joinAll(List<Thread> threads, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Thread t : threads) {
            long remaining = Math.max(1, deadline - System.nanoTime());
            boolean ended = t.join(Duration.ofNanos(remaining));
            assertThat(ended)
                    .as(
                            "%s ended within %s; it is at%n%s",
                            t,
                            timeout,
                            Arrays.stream(t.getStackTrace())
                                    .map(e -> "\tat " + e)
                                    .collect(Collectors.joining("\n")))
                    .isTrue();
        }
    }

    private static void awaitAllParked(List<Thread> threads) {
        await("all threads parked")
                .atMost(10, TimeUnit.SECONDS)
                .pollInterval(Duration.ofMillis(5))
                .until(() -> threads.stream()
                        .allMatch(t ->
                                t.getState() == Thread.State.WAITING || t.getState() == Thread.State.TIMED_WAITING));
    }

    private static String[] keys(int n) {
        String[] keys = new String[n];
        for (int i = 0; i < n; i++) {
            keys[i] = "ns/obj-" + i;
        }
        return keys;
    }

    private static Map<String, Integer> indexOf(String[] keys) {
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < keys.length; i++) {
            index.put(keys[i], i);
        }
        return index;
    }

    // ------------------------------------------------------------------------------------------------
    // 1. Many producers × many workers

    /** Priorities the producers pick from for a priority queue; a plain queue gets plain adds. */
    private static final int[] PRIORITIES = {PriorityWorkQueue.LOW_PRIORITY, 0, 0, 7};

    static Stream<Arguments> producersAndWorkers() {
        List<Arguments> args = new ArrayList<>();
        for (Kind kind : Kind.values()) {
            args.add(Arguments.of(kind, 4, 2, 300, 20_000, false));
            args.add(Arguments.of(kind, 8, 8, 300, 20_000, false));
            args.add(Arguments.of(kind, 4, 4, 8, 20_000, false)); // a few hot keys: short queue, maximal contention
            args.add(Arguments.of(kind, 6, 4, 20_000, 20_000, false)); // every add a distinct key
            // The priority queue, with random priorities and an aging period short enough to interleave.
            args.add(Arguments.of(kind, 4, 4, 300, 20_000, true));
            args.add(Arguments.of(kind, 4, 4, 8, 20_000, true));
        }
        return args.stream();
    }

    /**
     * Producers add random keys; each bumps the key's version <em>before</em> {@code add}, so any hand-out
     * ordered after that add by the queue's lock sees at least that version. Workers check single-flight
     * with an in-flight map, record the highest version seen at the start of processing, and count hand-outs.
     * After a drain, every key's highest version seen is its final version (no add lost), and no key was
     * handed out more often than it was added (no duplicate hand-out). The same holds for a priority queue
     * whose producers add at random priorities.
     */
    @ParameterizedTest(name = "{0}: {1} producers x {2} workers, {3} keys, {4} adds, priority queue {5}")
    @MethodSource("producersAndWorkers")
    void manyProducersAndWorkersLoseNothingAndNeverShareAKey(
            Kind kind, int producers, int workers, int keySpace, int totalAdds, boolean priorityQueue)
            throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        WorkQueueBuilder<String> builder =
                WorkQueue.<String>builder().name("concurrency").meterRegistry(registry);
        WorkQueue<String> queue =
                priorityQueue ? builder.agingPeriod(Duration.ofMillis(1)).buildPriority() : builder.build();
        String[] keys = keys(keySpace);
        Map<String, Integer> index = indexOf(keys);
        AtomicIntegerArray version = new AtomicIntegerArray(keySpace);
        AtomicIntegerArray seenVersion = new AtomicIntegerArray(keySpace);
        AtomicIntegerArray handOuts = new AtomicIntegerArray(keySpace);
        ConcurrentHashMap<String, Thread> inFlight = new ConcurrentHashMap<>();
        AtomicInteger maxLen = new AtomicInteger();
        AtomicInteger workersSawNull = new AtomicInteger();
        Failures failures = new Failures();
        CountDownLatch go = new CountDownLatch(1);
        boolean distinct = keySpace == totalAdds;

        List<Thread> workerThreads = new ArrayList<>();
        List<Thread> producerThreads = new ArrayList<>();
        try {
            for (int w = 0; w < workers; w++) {
                workerThreads.add(kind.start("worker-" + w, failures, () -> {
                    assertThat(go.await(30, TimeUnit.SECONDS)).isTrue();
                    Thread me = Thread.currentThread();
                    // Each hand-out consumes at least one add, so no worker can legitimately loop more often.
                    for (int n = 0; n <= totalAdds; n++) {
                        String key = queue.get();
                        if (key == null) {
                            workersSawNull.incrementAndGet();
                            return;
                        }
                        int i = index.get(key);
                        Thread other = inFlight.putIfAbsent(key, me);
                        if (other != null) {
                            failures.add(key + " handed to " + me.getName() + " while " + other.getName()
                                    + " still holds it");
                        }
                        seenVersion.accumulateAndGet(i, version.get(i), Math::max);
                        handOuts.incrementAndGet(i);
                        if ((n & 15) == 0) {
                            maxLen.accumulateAndGet(queue.len(), Math::max);
                        }
                        if ((n & 1) == 0) {
                            Thread.yield(); // widen the processing window: let producers re-add this key
                        }
                        inFlight.remove(key, me);
                        queue.done(key);
                    }
                    failures.add(me.getName() + " exceeded its loop bound");
                }));
            }
            int perProducer = totalAdds / producers;
            for (int p = 0; p < producers; p++) {
                int producer = p;
                int count = producer == producers - 1 ? totalAdds - perProducer * (producers - 1) : perProducer;
                producerThreads.add(kind.start("producer-" + p, failures, () -> {
                    Random random = new Random(producer * 7919L + keySpace);
                    assertThat(go.await(30, TimeUnit.SECONDS)).isTrue();
                    for (int j = 0; j < count; j++) {
                        int i = distinct ? producer * perProducer + j : random.nextInt(keySpace);
                        version.incrementAndGet(i); // before add: see the class comment
                        String key = new String(keys[i]); // an equal, not identical, key
                        if (queue instanceof PriorityWorkQueue<String> pq) {
                            pq.add(key, PRIORITIES[random.nextInt(PRIORITIES.length)]);
                        } else {
                            queue.add(key);
                        }
                        if ((j & 63) == 0) {
                            maxLen.accumulateAndGet(queue.len(), Math::max);
                            Thread.yield(); // lets virtual producers and workers interleave on few carriers
                        }
                    }
                }));
            }
            go.countDown();
            joinAll(producerThreads, JOIN_TIMEOUT);
            assertThat(queue.shutDownWithDrain(DRAIN_TIMEOUT))
                    .as("drained within %s", DRAIN_TIMEOUT)
                    .isTrue();
            joinAll(workerThreads, JOIN_TIMEOUT);
        } finally {
            queue.shutDown();
        }

        failures.assertNone();
        assertThat(workersSawNull).as("every worker ends on a null from get()").hasValue(workers);
        assertThat(inFlight).isEmpty();
        assertThat(queue.len()).isZero();
        assertThat(maxLen.get())
                .as("len() never exceeds the number of distinct keys")
                .isLessThanOrEqualTo(keySpace);
        long adds = 0;
        long totalHandOuts = 0;
        for (int i = 0; i < keySpace; i++) {
            adds += version.get(i);
            totalHandOuts += handOuts.get(i);
            assertThat(seenVersion.get(i))
                    .as("%s: last add (version %d) processed", keys[i], version.get(i))
                    .isEqualTo(version.get(i));
            assertThat(handOuts.get(i)).as("%s: hand-outs ≤ adds", keys[i]).isLessThanOrEqualTo(version.get(i));
            if (version.get(i) > 0) {
                assertThat(handOuts.get(i)).as("%s handed out", keys[i]).isPositive();
            }
        }
        assertThat(adds).isEqualTo(totalAdds);
        // Every non-deduplicated add became exactly one hand-out; the metric hooks run under the queue's lock.
        assertThat(registry.get("workqueue.adds").counter().count()).isEqualTo((double) totalHandOuts);
        assertThat(registry.get("workqueue.queue.duration").timer().count()).isEqualTo(totalHandOuts);
        assertThat(registry.get("workqueue.work.duration").timer().count()).isEqualTo(totalHandOuts);
    }

    // ------------------------------------------------------------------------------------------------
    // 2. Adds during processing: exactly one more hand-out

    /**
     * A worker holds K; several producers add K many times meanwhile; a second worker is blocked in get.
     * K is not handed to the second worker until done, then exactly once, and nothing else is left over.
     */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void addsWhileProcessingCauseExactlyOneMoreHandOutAfterDone(Kind kind) throws Exception {
        WorkQueue<String> queue = WorkQueue.<String>builder().build();
        Failures failures = new Failures();
        try {
            for (int round = 0; round < 30; round++) {
                String k = "key-" + (round % 3);
                queue.add(k);
                assertThat(queue.get()).isEqualTo(k); // this thread is the worker holding K

                CompletableFuture<String> second = new CompletableFuture<>();
                Thread getter = kind.start("getter", failures, () -> second.complete(queue.get()));
                CountDownLatch go = new CountDownLatch(1);
                List<Thread> producers = new ArrayList<>();
                for (int p = 0; p < 4; p++) {
                    producers.add(kind.start("producer-" + p, failures, () -> {
                        assertThat(go.await(10, TimeUnit.SECONDS)).isTrue();
                        for (int j = 0; j < 100; j++) {
                            queue.add(k);
                        }
                    }));
                }
                go.countDown();
                joinAll(producers, JOIN_TIMEOUT);
                awaitAllParked(List.of(getter));
                assertThat(queue.len())
                        .as("K is dirty but being processed: not queued")
                        .isZero();
                assertThat(second).as("K is not handed out again before done").isNotDone();

                queue.done(k);
                assertThat(second.get(10, TimeUnit.SECONDS)).isEqualTo(k);
                joinAll(List.of(getter), JOIN_TIMEOUT);
                assertThat(queue.len()).isZero();
                queue.done(k);

                queue.add("sentinel");
                assertThat(queue.get()).as("K was handed out exactly once more").isEqualTo("sentinel");
                queue.done("sentinel");
                assertThat(queue.len()).isZero();
            }
            failures.assertNone();
        } finally {
            queue.shutDown();
        }
        assertThat(queue.get()).isNull();
    }

    /**
     * Adds of K race with the worker's done(K). Whatever the interleaving, every add happened while K was
     * processing (re-queued by done) or after done (queued): K must be queued exactly once afterwards.
     */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void addsRacingWithDoneLeaveTheKeyQueuedExactlyOnce(Kind kind) throws Exception {
        WorkQueue<String> queue = WorkQueue.<String>builder().build();
        Failures failures = new Failures();
        try {
            for (int round = 0; round < 200; round++) {
                String k = "key-" + (round % 5);
                queue.add(k);
                assertThat(queue.get()).isEqualTo(k);
                CountDownLatch go = new CountDownLatch(1);
                List<Thread> producers = new ArrayList<>();
                for (int p = 0; p < 3; p++) {
                    producers.add(kind.start("producer-" + p, failures, () -> {
                        assertThat(go.await(10, TimeUnit.SECONDS)).isTrue();
                        for (int j = 0; j < 20; j++) {
                            queue.add(k);
                        }
                    }));
                }
                go.countDown();
                queue.done(k); // races with the producers
                joinAll(producers, JOIN_TIMEOUT);

                assertThat(queue.len())
                        .as("round %d: K queued exactly once", round)
                        .isEqualTo(1);
                assertThat(queue.get()).isEqualTo(k);
                assertThat(queue.len()).isZero();
                queue.done(k);
                queue.add("sentinel");
                assertThat(queue.get())
                        .as("round %d: no second copy of K", round)
                        .isEqualTo("sentinel");
                queue.done("sentinel");
            }
            failures.assertNone();
        } finally {
            queue.shutDown();
        }
    }

    // ------------------------------------------------------------------------------------------------
    // 3. Rate-limited retries on the system clock

    static Stream<Arguments> limiters() {
        Map<String, Supplier<RateLimiter<String>>> limiters = Map.of(
                "exponentialFailure(1µs, 1ms)",
                () -> RateLimiters.exponentialFailure(Duration.ofNanos(1_000), Duration.ofMillis(1)),
                "fastSlow(1µs, 200µs, 2)",
                () -> RateLimiters.fastSlow(Duration.ofNanos(1_000), Duration.ofNanos(200_000), 2),
                "maxOf(exponentialFailure(1µs, 1ms), bucket(200k qps, burst 50))",
                () -> RateLimiters.maxOf(
                        RateLimiters.exponentialFailure(Duration.ofNanos(1_000), Duration.ofMillis(1)),
                        RateLimiters.bucket(200_000, 50)));
        List<Arguments> args = new ArrayList<>();
        for (Kind kind : Kind.values()) {
            limiters.forEach((name, limiter) -> args.add(Arguments.of(kind, name, limiter)));
        }
        return args.stream();
    }

    /**
     * Each key fails a fixed number of times (0–5) before it succeeds; failing workers call addRateLimited,
     * succeeding ones forget. Every key is added once, so it must be processed exactly failures + 1 times,
     * never by two workers at once, with numRequeues counting its failures so far.
     */
    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("limiters")
    void rateLimitedRetriesEventuallySucceedWithoutDoubleProcessing(
            Kind kind, String limiterName, Supplier<RateLimiter<String>> limiter) throws Exception {
        int keySpace = 300;
        int producers = 4;
        int workers = 4;
        RateLimitingQueue<String> queue = WorkQueue.<String>builder()
                .rateLimiter(limiter.get())
                .timerThreadFactory(kind.factory("timer"))
                .buildRateLimiting();
        String[] keys = keys(keySpace);
        Map<String, Integer> index = indexOf(keys);
        int[] failuresBeforeSuccess = new Random(42).ints(keySpace, 0, 6).toArray();
        int totalAttempts = Arrays.stream(failuresBeforeSuccess).sum() + keySpace;
        AtomicIntegerArray attempts = new AtomicIntegerArray(keySpace);
        AtomicIntegerArray successes = new AtomicIntegerArray(keySpace);
        AtomicInteger succeeded = new AtomicInteger();
        ConcurrentHashMap<String, Thread> inFlight = new ConcurrentHashMap<>();
        Failures failures = new Failures();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        try {
            for (int w = 0; w < workers; w++) {
                threads.add(kind.start("worker-" + w, failures, () -> {
                    assertThat(go.await(30, TimeUnit.SECONDS)).isTrue();
                    Thread me = Thread.currentThread();
                    for (int n = 0; n <= totalAttempts; n++) {
                        String key = queue.get();
                        if (key == null) {
                            return;
                        }
                        int i = index.get(key);
                        Thread other = inFlight.putIfAbsent(key, me);
                        if (other != null) {
                            failures.add(key + " processed by " + me.getName() + " and " + other.getName());
                        }
                        int attempt = attempts.incrementAndGet(i);
                        if (queue.numRequeues(key) != attempt - 1) {
                            failures.add(key + ": attempt " + attempt + " but numRequeues " + queue.numRequeues(key));
                        }
                        inFlight.remove(key, me);
                        if (attempt <= failuresBeforeSuccess[i]) {
                            queue.addRateLimited(key);
                        } else {
                            successes.incrementAndGet(i);
                            queue.forget(key);
                            succeeded.incrementAndGet();
                        }
                        queue.done(key);
                    }
                    failures.add(me.getName() + " exceeded its loop bound");
                }));
            }
            for (int p = 0; p < producers; p++) {
                int producer = p;
                threads.add(kind.start("producer-" + p, failures, () -> {
                    assertThat(go.await(30, TimeUnit.SECONDS)).isTrue();
                    for (int i = producer; i < keySpace; i += producers) {
                        queue.add(keys[i]);
                    }
                }));
            }
            go.countDown();
            await("every key processed successfully")
                    .atMost(30, TimeUnit.SECONDS)
                    .pollInterval(Duration.ofMillis(10))
                    .until(() -> succeeded.get() >= keySpace || !failures.list.isEmpty());
            assertThat(queue.shutDownWithDrain(DRAIN_TIMEOUT)).isTrue();
            joinAll(threads, JOIN_TIMEOUT);
        } finally {
            queue.shutDown();
        }

        failures.assertNone();
        for (int i = 0; i < keySpace; i++) {
            assertThat(successes.get(i)).as("%s succeeded once", keys[i]).isEqualTo(1);
            assertThat(attempts.get(i))
                    .as("%s processed failures + 1 times", keys[i])
                    .isEqualTo(failuresBeforeSuccess[i] + 1);
            assertThat(queue.numRequeues(keys[i])).as("%s forgotten", keys[i]).isZero();
        }
        assertThat(queue.len()).isZero();
    }

    /**
     * Producers call addAfter concurrently on a fake clock, several times per key with different delays. Stepping
     * one second at a time, every key arrives exactly once, at its shortest delay (a shorter delay replaces a
     * longer one, a longer one never postpones a shorter one), however the offers interleaved.
     */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void concurrentAddAfterOnAFakeClockDeliversEachKeyOnceAtItsShortestDelay(Kind kind) throws Exception {
        int keySpace = 200;
        int maxDelaySeconds = 40;
        SettlingClock clock = new SettlingClock(kind.builder());
        DelayingQueue<String> queue = WorkQueue.<String>builder()
                .clock(clock)
                .timerThreadFactory(clock::newTimerThread)
                .buildDelaying();
        String[] keys = keys(keySpace);
        ConcurrentHashMap<String, Integer> shortest = new ConcurrentHashMap<>();
        Failures failures = new Failures();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> producers = new ArrayList<>();
        try {
            for (int p = 0; p < 4; p++) {
                int producer = p;
                producers.add(kind.start("producer-" + p, failures, () -> {
                    Random random = new Random(1000 + producer);
                    assertThat(go.await(10, TimeUnit.SECONDS)).isTrue();
                    for (int j = 0; j < 500; j++) {
                        String key = keys[random.nextInt(keySpace)];
                        int seconds = 1 + random.nextInt(maxDelaySeconds);
                        shortest.merge(key, seconds, Math::min);
                        queue.addAfter(key, Duration.ofSeconds(seconds));
                    }
                }));
            }
            go.countDown();
            joinAll(producers, JOIN_TIMEOUT);
            failures.assertNone();
            assertThat(queue.len()).as("nothing is ready before time passes").isZero();

            Map<String, Integer> arrivedAt = new HashMap<>();
            for (int t = 1; t <= maxDelaySeconds + 1; t++) {
                int now = t;
                clock.step(Duration.ofSeconds(1), shortest.containsValue(now));
                int ready = queue.len();
                for (int n = 0; n < ready; n++) {
                    String key = queue.get();
                    assertThat(arrivedAt.put(key, now))
                            .as("%s arrived twice", key)
                            .isNull();
                    queue.done(key);
                }
            }
            assertThat(arrivedAt).isEqualTo(new HashMap<>(shortest));
            assertThat(queue.len()).isZero();
        } finally {
            queue.shutDown();
        }
        if (clock.timer() != null) {
            joinAll(List.of(clock.timer()), JOIN_TIMEOUT);
        }
    }

    /**
     * DelayingQueue promises that addAfter "never drops an item" (only shutdown drops waiting items). If anything
     * interrupts the timer thread (which a caller-supplied timerThreadFactory makes reachable), the timer exits,
     * clears the waiting items, and is never restarted: every later addAfter / addRateLimited is accepted and
     * silently never delivered, while the queue is not shut down.
     */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void delayedItemsStillArriveAfterTheTimerThreadIsInterrupted(Kind kind) throws Exception {
        List<Thread> timers = new CopyOnWriteArrayList<>();
        ThreadFactory timerFactory = kind.factory("timer");
        DelayingQueue<String> queue = WorkQueue.<String>builder()
                .timerThreadFactory(r -> {
                    Thread t = timerFactory.newThread(r);
                    timers.add(t);
                    return t;
                })
                .buildDelaying();
        try {
            queue.addAfter("before", Duration.ofMillis(1));
            assertThat(queue.get()).isEqualTo("before");
            queue.done("before");
            timers.forEach(Thread::interrupt);

            queue.addAfter("after", Duration.ofMillis(1));
            await("an item added after the interrupt arrives")
                    .atMost(5, TimeUnit.SECONDS)
                    .pollInterval(Duration.ofMillis(5))
                    .until(() -> queue.len() == 1);
            assertThat(queue.get()).isEqualTo("after");
            queue.done("after");
        } finally {
            queue.shutDown();
        }
        joinAll(timers, JOIN_TIMEOUT);
    }

    /**
     * Producers keep calling addAfter with tiny delays (and add) while the queue shuts down: no thread gets
     * stuck on the queue's two locks, workers end on null, the timer thread ends, nothing is added afterwards.
     */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void shutDownWhileDelayedAddsAreInFlight(Kind kind) throws Exception {
        List<Thread> timers = new CopyOnWriteArrayList<>();
        ThreadFactory timerFactory = kind.factory("timer");
        DelayingQueue<String> queue = WorkQueue.<String>builder()
                .timerThreadFactory(r -> {
                    Thread t = timerFactory.newThread(r);
                    timers.add(t);
                    return t;
                })
                .buildDelaying();
        Failures failures = new Failures();
        AtomicInteger processed = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> producers = new ArrayList<>();
        List<Thread> workers = new ArrayList<>();
        try {
            for (int w = 0; w < 4; w++) {
                workers.add(kind.start("worker-" + w, failures, () -> {
                    assertThat(go.await(30, TimeUnit.SECONDS)).isTrue();
                    for (int n = 0; n < 1_000_000; n++) {
                        String key = queue.get();
                        if (key == null) {
                            return;
                        }
                        processed.incrementAndGet();
                        queue.done(key);
                    }
                    failures.add("worker exceeded its loop bound");
                }));
            }
            for (int p = 0; p < 4; p++) {
                int producer = p;
                producers.add(kind.start("producer-" + p, failures, () -> {
                    Random random = new Random(producer);
                    assertThat(go.await(30, TimeUnit.SECONDS)).isTrue();
                    for (int j = 0; j < 5_000; j++) {
                        String key = "k" + random.nextInt(200);
                        if ((j & 3) == 0) {
                            queue.add(key);
                        } else {
                            queue.addAfter(key, Duration.ofNanos(1 + random.nextInt(50_000)));
                        }
                    }
                }));
            }
            go.countDown();
            // 100, not more: the 20,000 adds name only 200 keys, and when the producers outrun the workers (virtual
            // threads on two carriers) deduplication can leave only a few hundred items to process in all.
            await().atMost(10, TimeUnit.SECONDS)
                    .pollInterval(Duration.ofMillis(1))
                    .until(() -> processed.get() > 100);
            queue.shutDown();
            joinAll(producers, JOIN_TIMEOUT);
            joinAll(workers, JOIN_TIMEOUT);
            joinAll(timers, JOIN_TIMEOUT);
        } finally {
            queue.shutDown();
        }
        failures.assertNone();
        assertThat(timers).as("one timer thread at most").hasSizeLessThanOrEqualTo(1);
        queue.add("late");
        queue.addAfter("late", Duration.ZERO);
        queue.addAfter("late", Duration.ofNanos(1));
        assertThat(queue.len()).isZero();
        assertThat(queue.get()).isNull();
    }

    // ------------------------------------------------------------------------------------------------
    // 4. Shutdown and drain with blocked threads

    @ParameterizedTest
    @EnumSource(Kind.class)
    void shutDownPromptlyReleasesEveryBlockedGetter(Kind kind) throws Exception {
        WorkQueue<String> queue = WorkQueue.<String>builder().build();
        Failures failures = new Failures();
        ConcurrentLinkedQueue<String> results = new ConcurrentLinkedQueue<>();
        AtomicInteger nulls = new AtomicInteger();
        List<Thread> getters = new ArrayList<>();
        try {
            for (int i = 0; i < 64; i++) {
                getters.add(kind.start("getter-" + i, failures, () -> {
                    String item = queue.get();
                    if (item == null) {
                        nulls.incrementAndGet();
                    } else {
                        results.add(item);
                    }
                }));
            }
            awaitAllParked(getters);
            long start = System.nanoTime();
            queue.shutDown();
            joinAll(getters, Duration.ofSeconds(5));
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        } finally {
            queue.shutDown();
        }
        failures.assertNone();
        assertThat(results).isEmpty();
        assertThat(nulls).hasValue(64);
    }

    /** Items queued before shutDown are still handed out, each exactly once; every other getter gets null. */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void itemsQueuedBeforeShutDownAreHandedOutOnceEach(Kind kind) throws Exception {
        WorkQueue<String> queue = WorkQueue.<String>builder().build();
        for (int i = 0; i < 40; i++) {
            queue.add("item-" + i);
        }
        queue.shutDown();
        queue.add("late");
        Failures failures = new Failures();
        ConcurrentLinkedQueue<String> results = new ConcurrentLinkedQueue<>();
        AtomicInteger nulls = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> getters = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            getters.add(kind.start("getter-" + i, failures, () -> {
                assertThat(go.await(10, TimeUnit.SECONDS)).isTrue();
                String item = queue.get();
                if (item == null) {
                    nulls.incrementAndGet();
                } else {
                    results.add(item);
                    queue.done(item);
                }
            }));
        }
        go.countDown();
        joinAll(getters, JOIN_TIMEOUT);
        failures.assertNone();
        assertThat(results).hasSize(40).doesNotHaveDuplicates().doesNotContain("late");
        assertThat(nulls).hasValue(60);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void shutDownWithDrainPromptlyReleasesBlockedGettersOfAnEmptyQueue(Kind kind) throws Exception {
        WorkQueue<String> queue = WorkQueue.<String>builder().build();
        Failures failures = new Failures();
        AtomicInteger nulls = new AtomicInteger();
        List<Thread> getters = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            getters.add(kind.start("getter-" + i, failures, () -> {
                if (queue.get() == null) {
                    nulls.incrementAndGet();
                }
            }));
        }
        awaitAllParked(getters);
        assertThat(queue.shutDownWithDrain(Duration.ofSeconds(5))).isTrue();
        joinAll(getters, Duration.ofSeconds(5));
        failures.assertNone();
        assertThat(nulls).hasValue(64);
    }

    /**
     * The moment nothing is in flight but items are still queued, the drain must keep waiting: it returns only
     * once the queued items are handed out and done.
     */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void shutDownWithDrainKeepsWaitingWhileItemsAreQueuedButNoneInFlight(Kind kind) throws Exception {
        WorkQueue<String> queue = WorkQueue.<String>builder().build();
        Failures failures = new Failures();
        queue.add("a");
        queue.add("b");
        queue.add("c");
        assertThat(queue.get()).isEqualTo("a");
        CompletableFuture<Boolean> drained = new CompletableFuture<>();
        Thread drainer =
                kind.start("drainer", failures, () -> drained.complete(queue.shutDownWithDrain(DRAIN_TIMEOUT)));
        try {
            awaitAllParked(List.of(drainer));
            queue.done("a"); // nothing in flight now, "b" and "c" still queued
            await("the drain keeps waiting for queued items")
                    .during(Duration.ofMillis(300))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> !drained.isDone());
            assertThat(queue.len()).isEqualTo(2);

            List<String> rest = new ArrayList<>();
            Thread worker = kind.start("worker", failures, () -> {
                for (int n = 0; n < 10; n++) {
                    String item = queue.get();
                    if (item == null) {
                        return;
                    }
                    rest.add(item);
                    queue.done(item);
                }
                failures.add("worker exceeded its loop bound");
            });
            assertThat(drained.get(DRAIN_TIMEOUT.toSeconds() + 5, TimeUnit.SECONDS))
                    .isTrue();
            joinAll(List.of(drainer, worker), JOIN_TIMEOUT);
            assertThat(rest).containsExactly("b", "c");
        } finally {
            queue.shutDown();
        }
        failures.assertNone();
    }

    /** A worker that never calls done makes the drain time out (false); the queue is then shut down. */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void shutDownWithDrainTimesOutWhileAWorkerHoldsAnItem(Kind kind) throws Exception {
        WorkQueue<String> queue = WorkQueue.<String>builder().build();
        Failures failures = new Failures();
        queue.add("held");
        queue.add("queued");
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread worker = kind.start("worker", failures, () -> {
            String item = queue.get();
            holding.countDown();
            assertThat(release.await(30, TimeUnit.SECONDS)).isTrue();
            queue.done(item);
        });
        try {
            assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
            long start = System.nanoTime();
            assertThat(queue.shutDownWithDrain(Duration.ofMillis(100))).isFalse();
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .isGreaterThanOrEqualTo(Duration.ofMillis(100))
                    .isLessThan(Duration.ofSeconds(10));
            assertThat(queue.shuttingDown()).isTrue();
            assertThat(queue.get()).as("queued items are still handed out").isEqualTo("queued");
            queue.done("queued");
            release.countDown();
            joinAll(List.of(worker), JOIN_TIMEOUT);
            assertThat(queue.get()).isNull();
        } finally {
            release.countDown();
            queue.shutDown();
        }
        failures.assertNone();
    }

    /**
     * shutDownWithDrain waits for the items in flight and for those still queued (kubeloop's deliberate
     * difference from client-go); workers keep getting them, then see null; adds during the drain are ignored.
     */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void shutDownWithDrainWaitsForInFlightAndQueuedItems(Kind kind) throws Exception {
        WorkQueue<String> queue = WorkQueue.<String>builder().build();
        int items = 500;
        int workers = 4;
        for (int i = 0; i < items; i++) {
            queue.add("item-" + i);
        }
        Failures failures = new Failures();
        CountDownLatch gate = new CountDownLatch(1);
        AtomicInteger holding = new AtomicInteger();
        AtomicInteger doneCount = new AtomicInteger();
        ConcurrentHashMap<String, Integer> processed = new ConcurrentHashMap<>();
        List<Thread> workerThreads = new ArrayList<>();
        try {
            for (int w = 0; w < workers; w++) {
                workerThreads.add(kind.start("worker-" + w, failures, () -> {
                    for (int n = 0; n <= items; n++) {
                        String item = queue.get();
                        if (item == null) {
                            return;
                        }
                        processed.merge(item, 1, Integer::sum);
                        if (n == 0) { // hold the first item until the drain has started
                            holding.incrementAndGet();
                            assertThat(gate.await(30, TimeUnit.SECONDS)).isTrue();
                        }
                        doneCount.incrementAndGet();
                        queue.done(item);
                    }
                    failures.add("worker exceeded its loop bound");
                }));
            }
            await().atMost(10, TimeUnit.SECONDS).until(() -> holding.get() == workers);

            AtomicInteger doneAtReturn = new AtomicInteger(-1);
            CompletableFuture<Boolean> drained = new CompletableFuture<>();
            Thread drainer = kind.start("drainer", failures, () -> {
                boolean result = queue.shutDownWithDrain(DRAIN_TIMEOUT);
                doneAtReturn.set(doneCount.get());
                drained.complete(result);
            });
            await().atMost(10, TimeUnit.SECONDS).until(queue::shuttingDown);
            awaitAllParked(List.of(drainer));
            assertThat(drained).as("the drain waits while items are held").isNotDone();
            queue.add("late");
            assertThat(queue.len()).isEqualTo(items - workers);

            gate.countDown();
            assertThat(drained.get(DRAIN_TIMEOUT.toSeconds() + 5, TimeUnit.SECONDS))
                    .isTrue();
            joinAll(List.of(drainer), JOIN_TIMEOUT);
            joinAll(workerThreads, JOIN_TIMEOUT);
            assertThat(doneAtReturn)
                    .as("the drain returned only after every item was done")
                    .hasValue(items);
        } finally {
            gate.countDown();
            queue.shutDown();
        }
        failures.assertNone();
        assertThat(processed).hasSize(items).doesNotContainKey("late");
        assertThat(processed.values()).allMatch(c -> c == 1);
    }
}
