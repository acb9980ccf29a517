package io.kubeloop.workqueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import io.kubeloop.clock.FakeClock;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.Tuple.Tuple2;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * Property-based tests of the work queue against a single-threaded reference model of client-go's
 * semantics (docs §8.1–§8.4), and of the rate limiters against their formulas.
 *
 * <p>Only public API is used. The delaying queue runs on a {@link FakeClock} wrapped in a {@link SettlingClock}
 * that tells the test when the (asynchronous) timer thread has finished reacting to a clock step.
 */
class WorkQueueProperties {

    private static final List<String> KEYS = List.of("a", "b", "c", "d");
    private static final long SECOND = 1_000_000_000L;
    /** The rate limiter of the model-checked rate-limiting queue: 1 s, 2 s, 4 s, then 8 s. */
    private static final Duration RL_BASE = Duration.ofSeconds(1);

    private static final Duration RL_MAX = Duration.ofSeconds(8);

    // ------------------------------------------------------------------------------------------------
    // Operations

    sealed interface Op {}

    record Add(String key) implements Op {}

    /** A non-blocking get: performed only when the model says an item is queued or the queue is shut down. */
    record Get() implements Op {}

    /** done() of the index-th (mod size) item currently held; skipped when nothing is held. */
    record DoneHeld(int index) implements Op {}

    /** done() of any key, possibly one that is not being processed (then a no-op). */
    record DoneAny(String key) implements Op {}

    record ShutDown() implements Op {}

    /** shutDownWithDrain(0): shuts down and reports whether the queue is drained right now. */
    record DrainNow() implements Op {}

    record AddAfter(String key, int seconds) implements Op {}

    record Step(int seconds) implements Op {}

    record AddRateLimited(String key) implements Op {}

    record Forget(String key) implements Op {}

    // ------------------------------------------------------------------------------------------------
    // Reference model (docs §8.1–§8.3), single-threaded

    static final class Model {
        final ArrayDeque<String> queue = new ArrayDeque<>();
        final Set<String> dirty = new HashSet<>();
        /** In the order the items were handed out, so that DoneHeld(i) is deterministic. */
        final LinkedHashSet<String> processing = new LinkedHashSet<>();

        boolean shuttingDown;
        /** key -> {readyAt, seq}: the waiting heap orders by ready time, then by order of (re)insertion. */
        final Map<String, long[]> waiting = new HashMap<>();

        long now;
        long nextSeq;
        boolean timerStarted;
        final Map<String, Integer> failures = new HashMap<>();

        void add(String k) {
            if (shuttingDown || !dirty.add(k)) {
                return;
            }
            if (processing.contains(k)) {
                return;
            }
            queue.addLast(k);
        }

        String get() {
            String k = queue.pollFirst();
            if (k == null) {
                return null;
            }
            processing.add(k);
            dirty.remove(k);
            return k;
        }

        void done(String k) {
            if (processing.remove(k) && dirty.contains(k)) {
                queue.addLast(k);
            }
        }

        void shutDown() {
            shuttingDown = true;
            waiting.clear();
        }

        boolean drained() {
            return queue.isEmpty() && processing.isEmpty();
        }

        void addAfter(String k, long delayNanos) {
            if (shuttingDown) {
                return;
            }
            if (delayNanos <= 0) {
                add(k);
                return;
            }
            timerStarted = true;
            long readyAt = now + delayNanos;
            long[] e = waiting.get(k);
            if (e == null) {
                waiting.put(k, new long[] {readyAt, nextSeq++});
            } else if (readyAt < e[0]) { // an earlier time replaces a later one, never the reverse
                e[0] = readyAt;
                e[1] = nextSeq++;
            }
        }

        /** Advances time; returns true if some waiting item became ready (and was added). */
        boolean step(long nanos) {
            now += nanos;
            List<String> keys =
                    takeDue(waiting, now).stream().map(Map.Entry::getKey).toList();
            keys.forEach(this::add);
            return !keys.isEmpty();
        }

        /**
         * The waiting heap's hand-over: removes the entries of {@code waiting} (key → {readyAt, seq, …}) that are
         * ready at {@code now} and returns them in the order the timer adds them, by ready time, then by seq.
         */
        static List<Map.Entry<String, long[]>> takeDue(Map<String, long[]> waiting, long now) {
            List<Map.Entry<String, long[]>> due = new ArrayList<>();
            for (Map.Entry<String, long[]> e : waiting.entrySet()) {
                if (e.getValue()[0] <= now) {
                    due.add(e);
                }
            }
            due.sort(Comparator.<Map.Entry<String, long[]>>comparingLong(e -> e.getValue()[0])
                    .thenComparingLong(e -> e.getValue()[1]));
            due.forEach(e -> waiting.remove(e.getKey()));
            return due;
        }

        /** ItemExponentialFailureRateLimiter(1 s, 8 s): records a failure and returns the delay in nanos. */
        long rateLimitedDelay(String k) {
            int n = failures.merge(k, 1, Integer::sum);
            return Math.min(RL_MAX.toNanos(), RL_BASE.toNanos() << Math.min(n - 1, 10));
        }
    }

    // ------------------------------------------------------------------------------------------------
    // Model-checking properties

    @Provide
    Arbitrary<List<Op>> basicOps() {
        Arbitrary<String> key = Arbitraries.of(KEYS);
        Arbitrary<Op> op = Arbitraries.frequencyOf(
                Tuple.of(12, key.map(Add::new)),
                Tuple.of(12, Arbitraries.just(new Get())),
                Tuple.of(10, Arbitraries.integers().between(0, 3).map(DoneHeld::new)),
                Tuple.of(3, key.map(DoneAny::new)),
                Tuple.of(1, Arbitraries.of(new ShutDown(), new DrainNow())));
        return op.list().ofMinSize(5).ofMaxSize(100);
    }

    @Provide
    Arbitrary<List<Op>> delayingOps() {
        Arbitrary<String> key = Arbitraries.of(KEYS);
        Arbitrary<Op> op = Arbitraries.frequencyOf(
                Tuple.of(8, key.map(Add::new)),
                Tuple.of(12, Arbitraries.just(new Get())),
                Tuple.of(10, Arbitraries.integers().between(0, 3).map(DoneHeld::new)),
                Tuple.of(2, key.map(DoneAny::new)),
                Tuple.of(
                        8,
                        Combinators.combine(key, Arbitraries.integers().between(-1, 6))
                                .as(AddAfter::new)),
                Tuple.of(7, Arbitraries.integers().between(0, 4).map(Step::new)),
                Tuple.of(5, key.map(AddRateLimited::new)),
                Tuple.of(2, key.map(Forget::new)),
                Tuple.of(1, Arbitraries.of(new ShutDown(), new DrainNow())));
        return op.list().ofMinSize(5).ofMaxSize(80);
    }

    /** Plain queue: after every operation, len() and shuttingDown() agree with the model; get() returns its head. */
    @Property(tries = 500)
    void basicQueueBehavesLikeTheModel(@ForAll("basicOps") List<Op> ops) throws Exception {
        WorkQueue<String> queue = WorkQueue.<String>builder().build();
        try {
            Model model = new Model();
            for (Op op : ops) {
                apply(op, queue, null, null, model);
            }
        } finally {
            queue.shutDown();
        }
    }

    /**
     * Rate-limiting queue on a fake clock: the same, plus addAfter / addRateLimited / forget / numRequeues and
     * clock steps. Items that become ready in one step arrive in order of ready time, then of insertion.
     */
    @Property(tries = 300)
    void rateLimitingQueueBehavesLikeTheModel(@ForAll("delayingOps") List<Op> ops) throws Exception {
        SettlingClock clock = new SettlingClock();
        RateLimitingQueue<String> queue = WorkQueue.<String>builder()
                .clock(clock)
                .rateLimiter(RateLimiters.exponentialFailure(RL_BASE, RL_MAX))
                .timerThreadFactory(clock::newTimerThread)
                .buildRateLimiting();
        Model model = new Model();
        try {
            for (Op op : ops) {
                apply(op, queue, queue, clock, model);
            }
        } finally {
            queue.shutDown();
            Thread timer = clock.timer();
            if (timer != null) {
                assertThat(timer.join(Duration.ofSeconds(5)))
                        .as("the timer thread ends after shutDown")
                        .isTrue();
            }
        }
        assertThat(clock.timer() != null)
                .as("a timer thread exists iff a positive delay was accepted")
                .isEqualTo(model.timerStarted);
    }

    private static void apply(
            Op op, WorkQueue<String> queue, RateLimitingQueue<String> rlq, SettlingClock clock, Model model)
            throws InterruptedException {
        switch (op) {
            case Add(String k) -> {
                model.add(k);
                queue.add(k);
            }
            case Get() -> {
                if (!model.queue.isEmpty() || model.shuttingDown) { // otherwise get() would block
                    String expected = model.get();
                    assertThat(queue.get()).as("get() after %s", op).isEqualTo(expected);
                }
            }
            case DoneHeld(int index) -> {
                if (!model.processing.isEmpty()) {
                    String k = new ArrayList<>(model.processing).get(index % model.processing.size());
                    model.done(k);
                    queue.done(k);
                }
            }
            case DoneAny(String k) -> {
                model.done(k);
                queue.done(k);
            }
            case ShutDown() -> {
                model.shutDown();
                queue.shutDown();
            }
            case DrainNow() -> {
                boolean expected = model.drained();
                model.shutDown();
                assertThat(queue.shutDownWithDrain(Duration.ZERO))
                        .as("shutDownWithDrain(0)")
                        .isEqualTo(expected);
            }
            case AddAfter(String k, int seconds) -> {
                model.addAfter(k, seconds * SECOND);
                rlq.addAfter(k, Duration.ofSeconds(seconds));
            }
            case AddRateLimited(String k) -> {
                model.addAfter(k, model.rateLimitedDelay(k));
                rlq.addRateLimited(k);
            }
            case Forget(String k) -> {
                model.failures.remove(k);
                rlq.forget(k);
            }
            case Step(int seconds) -> {
                boolean arrivals = model.step(seconds * SECOND);
                clock.step(Duration.ofSeconds(seconds), arrivals);
            }
        }
        assertThat(queue.len())
                .as("len() after %s; model queue %s", op, model.queue)
                .isEqualTo(model.queue.size());
        assertThat(queue.shuttingDown()).as("shuttingDown() after %s", op).isEqualTo(model.shuttingDown);
        if (rlq != null) {
            for (String k : KEYS) {
                assertThat(rlq.numRequeues(k))
                        .as("numRequeues(%s) after %s", k, op)
                        .isEqualTo(model.failures.getOrDefault(k, 0));
            }
        }
    }

    // ------------------------------------------------------------------------------------------------
    // ItemExponentialFailureRateLimiter

    private static BigInteger nanos(Duration d) {
        return BigInteger.valueOf(d.getSeconds())
                .multiply(BigInteger.valueOf(SECOND))
                .add(BigInteger.valueOf(d.getNano()));
    }

    /**
     * The n-th consecutive failure's delay per docs §8.4: base × 2^(n-1), or max if that exceeds max or the
     * longest representable duration (Long.MAX_VALUE ns, as in Go).
     */
    private static Duration expectedExponential(Duration base, Duration max, int n) {
        BigInteger b = nanos(base).shiftLeft(n - 1);
        if (b.compareTo(BigInteger.valueOf(Long.MAX_VALUE)) > 0 || b.compareTo(nanos(max)) >= 0) {
            return max;
        }
        return Duration.ofNanos(b.longValueExact());
    }

    @Provide
    Arbitrary<Tuple2<Duration, Duration>> baseAndMax() {
        Arbitrary<Long> baseNanos = Arbitraries.longs().between(1_000_000L, SECOND);
        return baseNanos.flatMap(b -> Arbitraries.oneOf(
                        // anything from base up to the longest representable duration
                        Arbitraries.longs().between(0, Long.MAX_VALUE - b).map(extra -> Duration.ofNanos(b + extra)),
                        // exactly base × 2^k
                        Arbitraries.integers()
                                .between(0, 62 - (64 - Long.numberOfLeadingZeros(b)))
                                .map(k -> Duration.ofNanos(b << k)),
                        // small caps, like real controllers
                        Arbitraries.longs().between(b, 1000 * SECOND).map(Duration::ofNanos),
                        // longer than Long.MAX_VALUE nanoseconds
                        Arbitraries.longs()
                                .between(Long.MAX_VALUE / SECOND + 1, Long.MAX_VALUE / 2)
                                .map(Duration::ofSeconds))
                .map(max -> Tuple.of(Duration.ofNanos(b), max)));
    }

    @Property(tries = 500)
    void exponentialDelayIsBaseTimesTwoToTheFailuresCappedAtMax(
            @ForAll("baseAndMax") Tuple2<Duration, Duration> baseAndMax,
            @ForAll @IntRange(min = 1, max = 200) int failures) {
        Duration base = baseAndMax.get1();
        Duration max = baseAndMax.get2();
        RateLimiter<String> limiter = RateLimiters.exponentialFailure(base, max);
        for (int n = 1; n <= failures; n++) {
            Duration d = limiter.when("item");
            assertThat(d.isNegative()).as("delay %d is negative: %s", n, d).isFalse();
            assertThat(d)
                    .as("delay of failure %d with base %s, max %s", n, base, max)
                    .isEqualTo(expectedExponential(base, max, n));
            assertThat(limiter.numRequeues("item")).isEqualTo(n);
        }
        limiter.forget("item");
        assertThat(limiter.numRequeues("item")).isZero();
        assertThat(limiter.when("item")).as("first delay after forget").isEqualTo(expectedExponential(base, max, 1));
    }

    /** Failures are counted per item, and forget clears only the item forgotten. */
    @Property(tries = 300)
    void exponentialFailuresAreCountedPerItem(
            @ForAll("baseAndMax") Tuple2<Duration, Duration> baseAndMax,
            @ForAll("keyOrForget") List<Tuple2<String, Boolean>> calls) {
        Duration base = baseAndMax.get1();
        Duration max = baseAndMax.get2();
        RateLimiter<String> limiter = RateLimiters.exponentialFailure(base, max);
        Map<String, Integer> model = new HashMap<>();
        for (Tuple2<String, Boolean> call : calls) {
            String k = call.get1();
            if (call.get2()) {
                model.remove(k);
                limiter.forget(k);
            } else {
                int n = model.merge(k, 1, Integer::sum);
                assertThat(limiter.when(k)).isEqualTo(expectedExponential(base, max, n));
            }
            for (String key : KEYS) {
                assertThat(limiter.numRequeues(key)).isEqualTo(model.getOrDefault(key, 0));
            }
        }
    }

    @Provide
    Arbitrary<List<Tuple2<String, Boolean>>> keyOrForget() {
        return Combinators.combine(Arbitraries.of(KEYS), Arbitraries.of(true, false, false, false, false))
                .as(Tuple::of)
                .list()
                .ofMaxSize(80);
    }

    /**
     * The property above with max targeted just above an exact doubling: when max is within half a double ulp above
     * base × 2^(n-1) (possible once that exceeds 2^53 ns ≈ 104 days), the delay is max instead of
     * base × 2^(n-1). client-go compares in int64 and returns base × 2^(n-1).
     */
    @Property(tries = 200)
    void exponentialDelayNeverExceedsExactDoublingJustBelowMax(
            @ForAll @LongRange(min = 1_000_000L, max = SECOND) long baseNanos,
            @ForAll @LongRange(min = 1, max = 3) long above) {
        // the first k with base × 2^k above 2^53 ns, so that base × 2^k + 1 is not representable as a double
        int k = 0;
        while ((baseNanos << k) <= (1L << 53)) {
            k++;
        }
        long exact = baseNanos << k;
        Duration max = Duration.ofNanos(exact + above);
        RateLimiter<String> limiter = RateLimiters.exponentialFailure(Duration.ofNanos(baseNanos), max);
        Duration d = Duration.ZERO;
        for (int n = 0; n <= k; n++) {
            d = limiter.when("item");
        }
        assertThat(d)
                .as("failure %d: base %d ns × 2^%d = %d ns < max %s", k + 1, baseNanos, k, exact, max)
                .isEqualTo(Duration.ofNanos(exact));
    }

    // ------------------------------------------------------------------------------------------------
    // BucketRateLimiter on a FakeClock

    @Provide
    Arbitrary<Double> qps() {
        return Arbitraries.oneOf(
                Arbitraries.doubles().between(0.01, 10),
                Arbitraries.doubles().between(10, 1_000_000),
                Arbitraries.of(1.0, 10.0, 50.0, 100.0, 3.0));
    }

    /** With no time passing, the first burst calls wait zero and later delays never shrink, growing by 1/qps. */
    @Property(tries = 300)
    void bucketFirstBurstCallsAreFreeAndDelaysGrowWithoutTime(
            @ForAll("qps") double qps,
            @ForAll @IntRange(min = 1, max = 300) int burst,
            @ForAll @IntRange(min = 0, max = 200) int extraCalls) {
        FakeClock clock = new FakeClock();
        RateLimiter<String> limiter = RateLimiters.bucket(qps, burst, clock);
        Duration previous = Duration.ZERO;
        for (int i = 1; i <= burst + extraCalls; i++) {
            Duration d = limiter.when("k" + i);
            if (i <= burst) {
                assertThat(d).as("call %d of burst %d", i, burst).isEqualTo(Duration.ZERO);
            } else {
                double expectedNanos = (i - burst) * 1e9 / qps;
                assertThat((double) d.toNanos())
                        .as("call %d, qps %s, burst %d", i, qps, burst)
                        .isCloseTo(expectedNanos, offset(2 + expectedNanos * 1e-9));
            }
            assertThat(d)
                    .as("delays never shrink without time passing (call %d)", i)
                    .isGreaterThanOrEqualTo(previous);
            previous = d;
            assertThat(limiter.numRequeues("k" + i)).isZero();
        }
    }

    /**
     * Any pattern of calls and clock steps: each delay matches an exact token-bucket model (tokens refill at qps
     * up to burst, each call takes one, a deficit is waited for), is never negative, and the moments at which
     * reservations become usable (now + delay) never go backwards.
     */
    @Property(tries = 300)
    void bucketMatchesTokenBucketModel(
            @ForAll("qps") double qps,
            @ForAll @IntRange(min = 1, max = 50) int burst,
            @ForAll("stepsOrCalls") List<Long> pattern) {
        FakeClock clock = new FakeClock();
        RateLimiter<String> limiter = RateLimiters.bucket(qps, burst, clock);
        BigDecimal tokens = BigDecimal.valueOf(burst);
        MathContext mc = MathContext.DECIMAL128;
        BigDecimal perNano = new BigDecimal(qps).divide(BigDecimal.valueOf(SECOND), mc);
        long now = 0;
        long lastRefill = 0;
        long previousReadyAt = 0;
        for (long stepNanos : pattern) {
            if (stepNanos > 0) {
                clock.step(Duration.ofNanos(stepNanos));
                now += stepNanos;
                continue;
            }
            tokens = tokens.add(perNano.multiply(BigDecimal.valueOf(now - lastRefill), mc), mc)
                    .min(BigDecimal.valueOf(burst));
            lastRefill = now;
            tokens = tokens.subtract(BigDecimal.ONE);
            double expected = tokens.signum() >= 0
                    ? 0
                    : tokens.negate()
                            .multiply(BigDecimal.valueOf(SECOND))
                            .divide(new BigDecimal(qps), mc)
                            .doubleValue();
            Duration d = limiter.when("x");
            assertThat(d.isNegative()).isFalse();
            assertThat((double) d.toNanos())
                    .as("delay at %d ns, qps %s, burst %d", now, qps, burst)
                    .isCloseTo(expected, offset(2 + expected * 1e-9));
            long readyAt = now + d.toNanos();
            assertThat(readyAt).as("reservations are handed out in order").isGreaterThanOrEqualTo(previousReadyAt - 2);
            previousReadyAt = readyAt;
        }
    }

    /** 0 = a call; a positive number = a clock step of that many nanoseconds (up to 3 s). */
    @Provide
    Arbitrary<List<Long>> stepsOrCalls() {
        return Arbitraries.frequencyOf(
                        Tuple.of(6, Arbitraries.just(0L)),
                        Tuple.of(1, Arbitraries.longs().between(1, 3 * SECOND)),
                        Tuple.of(1, Arbitraries.longs().between(1, 10_000_000L)))
                .list()
                .ofMaxSize(150);
    }

    // ------------------------------------------------------------------------------------------------
    // ItemFastSlowRateLimiter, MaxOf, WithMaxWait

    @Property(tries = 300)
    void fastSlowUsesFastForTheFirstAttemptsThenSlow(
            @ForAll @LongRange(min = 0, max = 10_000) long fastMillis,
            @ForAll @LongRange(min = 0, max = 100_000) long slowMillis,
            @ForAll @IntRange(min = 0, max = 10) int maxFast,
            @ForAll("keyOrForget") List<Tuple2<String, Boolean>> calls) {
        Duration fast = Duration.ofMillis(fastMillis);
        Duration slow = Duration.ofMillis(slowMillis);
        RateLimiter<String> limiter = RateLimiters.fastSlow(fast, slow, maxFast);
        Map<String, Integer> model = new HashMap<>();
        for (Tuple2<String, Boolean> call : calls) {
            String k = call.get1();
            if (call.get2()) {
                model.remove(k);
                limiter.forget(k);
            } else {
                int n = model.merge(k, 1, Integer::sum);
                assertThat(limiter.when(k)).as("attempt %d of %s", n, k).isEqualTo(n <= maxFast ? fast : slow);
            }
            assertThat(limiter.numRequeues(k)).isEqualTo(model.getOrDefault(k, 0));
        }
    }

    /** maxOf asks every limiter, returns the longest delay and the largest numRequeues; withMaxWait caps. */
    @Property(tries = 300)
    void maxOfAndWithMaxWaitCombineTheirLimiters(
            @ForAll("baseAndMax") Tuple2<Duration, Duration> baseAndMax,
            @ForAll @IntRange(min = 0, max = 5) int maxFast,
            @ForAll @LongRange(min = 0, max = 2000) long capMillis,
            @ForAll("keyOrForget") List<Tuple2<String, Boolean>> calls) {
        Duration base = baseAndMax.get1();
        Duration max = baseAndMax.get2();
        Duration cap = Duration.ofMillis(capMillis);
        RateLimiter<String> combined = RateLimiters.withMaxWait(
                RateLimiters.maxOf(
                        RateLimiters.exponentialFailure(base, max),
                        RateLimiters.fastSlow(Duration.ofMillis(3), Duration.ofMillis(700), maxFast)),
                cap);
        RateLimiter<String> exp = RateLimiters.exponentialFailure(base, max);
        RateLimiter<String> fastSlow = RateLimiters.fastSlow(Duration.ofMillis(3), Duration.ofMillis(700), maxFast);
        for (Tuple2<String, Boolean> call : calls) {
            String k = call.get1();
            if (call.get2()) {
                combined.forget(k);
                exp.forget(k);
                fastSlow.forget(k);
            } else {
                Duration a = exp.when(k);
                Duration b = fastSlow.when(k);
                Duration longest = a.compareTo(b) >= 0 ? a : b;
                Duration expected = longest.compareTo(cap) > 0 ? cap : longest;
                assertThat(combined.when(k)).isEqualTo(expected);
            }
            assertThat(combined.numRequeues(k)).isEqualTo(Math.max(exp.numRequeues(k), fastSlow.numRequeues(k)));
        }
    }

    /** Sanity check of the settling clock itself: a 10 s delay arrives after a 10 s step, not before. */
    @Example
    void settlingClockSeesTimerArrivals() throws InterruptedException {
        SettlingClock clock = new SettlingClock();
        DelayingQueue<String> queue = WorkQueue.<String>builder()
                .clock(clock)
                .timerThreadFactory(clock::newTimerThread)
                .buildDelaying();
        try {
            queue.addAfter("x", Duration.ofSeconds(10));
            clock.step(Duration.ofSeconds(9), false);
            assertThat(queue.len()).isZero();
            clock.step(Duration.ofSeconds(1), true);
            assertThat(queue.len()).isEqualTo(1);
            assertThat(queue.get()).isEqualTo("x");
        } finally {
            queue.shutDown();
        }
    }
}
