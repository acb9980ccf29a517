package io.kubeloop.workqueue;

import static io.kubeloop.testsupport.TestThreads.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link PriorityWorkQueue} on a fake clock: priority order, deduplication at the highest priority, delays,
 * single flight, shutdown and aging (controller-runtime's priority queue, §3.2 of the reference, plus the
 * aging that its queue lacks, controller-runtime#3496).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PriorityWorkQueueTest {

    private static final Duration AGING = PriorityWorkQueue.DEFAULT_AGING_PERIOD;

    private final SettlingClock clock = new SettlingClock();
    private final PriorityWorkQueue<String> q = WorkQueue.<String>builder()
            .clock(clock)
            .timerThreadFactory(clock::newTimerThread)
            .rateLimiter(RateLimiters.exponentialFailure(Duration.ofSeconds(1), Duration.ofMinutes(1)))
            .buildPriority();

    @AfterEach
    void shutDownQueue() {
        q.shutDown();
    }

    // ---- single-threaded scenarios, as a table

    /**
     * Steps, run on one thread against a fresh queue (aging period 1 min, rate limiter 1 s doubling):
     * {@code add x} (priority 0) or {@code add x@p}; {@code after x 5s} or {@code after x 5s@p} (addAfter);
     * {@code limited x@p} (addRateLimited); {@code get x} / {@code get null}; {@code done x}; {@code len n};
     * {@code step 5s} (advances the clock), {@code step 5s ready} (… and waits until the timer thread has
     * added the delayed items that became ready); {@code shutdown}. A {@code get} that would block fails through the class timeout.
     */
    static Stream<Arguments> scenarios() {
        return Stream.of(
                arguments("higher priority first", "add a@-100, add b, add c@10, get c, get b, get a, len 0"),
                arguments("FIFO within a priority", "add a, add b, add c, get a, get b, get c"),
                arguments("plain add is priority 0", "add a@-1, add b, add c@1, get c, get b, get a"),
                arguments(
                        "LOW_PRIORITY items wait behind real events",
                        "add a@-100, add b@-100, add c, get c, get a, get b"),
                arguments("a re-add at the same priority keeps the place", "add a, add b, add a, len 2, get a, get b"),
                arguments(
                        "a re-add at a lower priority changes nothing",
                        "add a@5, add b@5, add a, add a@-100, len 2, get a, get b"),
                arguments(
                        "a raise moves the item to the back of its new priority",
                        "add x@5, add a, add b@5, add a@5, len 3, get x, get b, get a"),
                arguments(
                        "an initial-list item raised by a real event goes behind the earlier events",
                        "add a@-100, add b, add a, get b, get a, len 0"),
                arguments(
                        "len counts ready items only",
                        "add a, add b, len 2, get a, len 1, add a, len 1, after c 5s, len 1, step 5s ready, len 2"),
                arguments(
                        "an item is not handed out twice while processing",
                        "add a@10, get a, add a@10, add b, len 1, get b, len 0, done a, len 1, get a"),
                arguments(
                        "re-added while processing: queued at done at the highest priority of the re-adds",
                        "add a@-100, add b@-100, get a, add a@-50, add a@-200, done a, get a, get b"),
                arguments(
                        "re-added while processing: not at the priority it was processed at",
                        "add a@10, add b, get a, add a@-100, done a, get b, get a"),
                arguments(
                        "done of an item that is not being processed has no effect",
                        "add a@-100, add b, done a, done z, len 2, get b, get a"),
                arguments(
                        "an item ready from a delay goes to the back of its priority",
                        "add a, after b 5s, add c, step 5s ready, add d, get a, get c, get b, get d"),
                arguments(
                        "a delayed item becomes ready at its priority",
                        "after b 5s@10, add a, add c@10, step 5s ready, get c, get b, get a"),
                arguments(
                        "a waiting item keeps the earlier ready time and the higher priority",
                        "after a 10s@-100, after a 5s, add b@-100, step 5s ready, get a, get b, len 0"),
                arguments(
                        "a waiting item keeps the higher priority of a later delay",
                        "after a 5s@-100, after a 10s@5, add b, step 5s ready, get a, get b, len 0, step 5s, len 0"),
                arguments(
                        "a delayed add of a queued item raises it only when it becomes ready",
                        "add b@-100, add a@-100, after a 5s, len 2, step 5s ready, len 2, get a, get b"),
                arguments(
                        "a delay of zero or less adds at once at the priority",
                        "add b, after a 0s@3, after c -1s@2, len 3, get a, get c, get b"),
                arguments(
                        "a rate-limited add waits for the limiter, then comes at its priority",
                        "limited a@7, add b, len 1, step 1s ready, len 2, get a, get b"),
                arguments(
                        "shutDown: queued items still come out in priority order, later adds are ignored",
                        "add a@-100, add b, shutdown, add c@10, after d 0s@10, len 2, get b, get a, get null"),
                arguments(
                        "shutDown drops waiting items",
                        "after a 5s@10, add b, shutdown, step 5s, len 1, get b, get null"),
                arguments(
                        "aging: an item ready for the aging period comes before newer higher priorities",
                        "add a@-100, step 60s, add b, add c, get a, get b, get c"),
                arguments(
                        "aging: an item ready for less than the aging period still waits",
                        "add a@-100, step 59s, add b, get b, get a"),
                arguments(
                        "aging: aged items alternate with the highest priority, oldest first",
                        "add a@-100, add b@-100, step 60s, add c, add d, get a, get c, get b, get d"),
                arguments(
                        "aging: a raise keeps the item's age",
                        "add a@-100, add x@-100, step 30s, add a@-50, step 30s, add b, get a, get b, get x"),
                arguments(
                        "aging: an item re-queued at done is ready from then on",
                        "add a@-100, get a, add a@-100, step 60s, done a, add b, get b, get a"),
                arguments(
                        "aging: a delayed item ages from when it became ready",
                        "after a 30s@-100, step 30s ready, step 59s, add b, get b, get a"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scenarios")
    void aSingleThreadedScenario(String description, String steps) throws InterruptedException {
        List<String> executed = new ArrayList<>();
        for (String step : steps.split(",\\s*")) {
            String[] parts = step.trim().split("\\s+");
            String as = "after " + executed + ": " + step;
            switch (parts[0]) {
                case "add" -> {
                    if (parts[1].contains("@")) {
                        q.add(item(parts[1]), priority(parts[1]));
                    } else {
                        q.add(parts[1]);
                    }
                }
                case "after" -> {
                    Duration delay = seconds(parts[2]);
                    if (parts[2].contains("@")) {
                        q.addAfter(parts[1], delay, priority(parts[2]));
                    } else {
                        q.addAfter(parts[1], delay);
                    }
                }
                case "limited" -> q.addRateLimited(item(parts[1]), priority(parts[1]));
                case "get" -> assertThat(q.get()).as(as).isEqualTo(parts[1].equals("null") ? null : parts[1]);
                case "done" -> q.done(parts[1]);
                case "len" -> assertThat(q.len()).as(as).isEqualTo(Integer.parseInt(parts[1]));
                case "step" -> clock.step(seconds(parts[1]), parts.length > 2 && parts[2].equals("ready"));
                case "shutdown" -> q.shutDown();
                default -> throw new IllegalArgumentException("unknown step " + step);
            }
            executed.add(step);
        }
    }

    private static String item(String itemAtPriority) {
        return itemAtPriority.substring(0, itemAtPriority.indexOf('@'));
    }

    private static int priority(String withPriority) {
        return Integer.parseInt(withPriority.substring(withPriority.indexOf('@') + 1));
    }

    private static Duration seconds(String spec) {
        String s = spec.contains("@") ? spec.substring(0, spec.indexOf('@')) : spec;
        return Duration.ofSeconds(Long.parseLong(s.substring(0, s.length() - 1)));
    }

    // ---- the anti-starvation bound

    /**
     * A single worker serves a queue that never runs out of priority-0 work: before the low-priority item
     * arrives there are {@code backlog} priority-0 items, and every round (one get, one done, one second) adds
     * {@code arrivalsPerRound} new ones. The bound of {@link PriorityWorkQueue}: an item that became ready when
     * {@code len()} became n is handed out by one of the first 2·n gets after the aging period — and not
     * before the aging period, since priority 0 is never exhausted. The loops are bounded by the bound itself
     * (plus one round), so a queue without aging fails the test instead of hanging.
     */
    @ParameterizedTest(name = "backlog {0}, {1} new priority-0 items per get, aging {2} s")
    @MethodSource("steadyPriorityZeroFlow")
    void aLowPriorityItemIsServedWithinTheBoundWhilePriorityZeroWorkNeverStops(
            int backlog, int arrivalsPerRound, int agingSeconds) throws InterruptedException {
        PriorityWorkQueue<String> queue = WorkQueue.<String>builder()
                .clock(clock)
                .agingPeriod(Duration.ofSeconds(agingSeconds))
                .buildPriority();
        try {
            int next = 0;
            for (; next < backlog; next++) {
                queue.add("event-" + next);
            }
            queue.add("initial-list-item", PriorityWorkQueue.LOW_PRIORITY);
            int n = queue.len();
            assertThat(n).isEqualTo(backlog + 1);

            int servedAtRound = -1;
            int boundRounds = agingSeconds + 2 * n; // a get per second: aging period, then at most 2n gets
            for (int round = 0; round <= boundRounds && servedAtRound < 0; round++) {
                String item = queue.get();
                if (item.equals("initial-list-item")) {
                    servedAtRound = round;
                }
                queue.done(item);
                for (int i = 0; i < arrivalsPerRound; i++) {
                    queue.add("event-" + next++);
                }
                assertThat(queue.len()).as("priority-0 work never runs out").isGreaterThan(1);
                clock.step(Duration.ofSeconds(1), false);
            }
            assertThat(servedAtRound)
                    .as("the low-priority item is served after the aging period, within 2n = %d gets", 2 * n)
                    .isBetween(agingSeconds, boundRounds);
        } finally {
            queue.shutDown();
        }
    }

    static Stream<Arguments> steadyPriorityZeroFlow() {
        return Stream.of(
                arguments(1, 1, 60),
                arguments(10, 1, 60),
                arguments(10, 2, 60), // the priority-0 backlog grows without end
                arguments(50, 3, 60),
                arguments(100, 1, 5), // the backlog is older than the aging period: aged work alternates
                arguments(3, 2, 1));
    }

    /**
     * The same flow with a 1000-day aging period is controller-runtime's queue: the low-priority item is
     * never served while priority-0 work keeps coming (controller-runtime#3496). This is what the bound
     * above guards against, and shows that the flow really starves a queue without aging.
     */
    @Test
    void withoutAgingTheSameFlowStarvesTheLowPriorityItem() throws InterruptedException {
        PriorityWorkQueue<String> queue = WorkQueue.<String>builder()
                .clock(clock)
                .agingPeriod(Duration.ofDays(1000))
                .buildPriority();
        try {
            queue.add("event-0");
            queue.add("initial-list-item", PriorityWorkQueue.LOW_PRIORITY);
            for (int round = 0; round < 1_000; round++) {
                String item = queue.get();
                assertThat(item).isNotEqualTo("initial-list-item");
                queue.done(item);
                queue.add("event-" + (round + 1));
                clock.step(Duration.ofMinutes(1), false);
            }
        } finally {
            queue.shutDown();
        }
    }

    @Test
    void aFloodOfAgedLowPriorityItemsTakesAtMostEverySecondGetFromFreshEvents() throws InterruptedException {
        for (int i = 0; i < 100; i++) {
            q.add("initial-" + i, PriorityWorkQueue.LOW_PRIORITY);
        }
        clock.step(AGING, false); // every initial-list item is now aged
        List<String> served = new ArrayList<>();
        for (int round = 0; round < 20; round++) {
            q.add("event-" + round);
            String item = q.get();
            served.add(item);
            q.done(item);
        }
        assertThat(served)
                .as("aged items (oldest first) alternate with fresh events (FIFO)")
                .startsWith("initial-0", "event-0", "initial-1", "event-1", "initial-2", "event-2");
        assertThat(served.stream().filter(s -> s.startsWith("event-"))).hasSize(10);
    }

    // ---- builder and arguments

    @Test
    void theAgingPeriodMustBePositive() {
        WorkQueueBuilder<String> builder = WorkQueue.builder();
        assertThatThrownBy(() -> builder.agingPeriod(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("agingPeriod must be positive, was PT0S");
        assertThatThrownBy(() -> builder.agingPeriod(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("agingPeriod must be positive");
        assertThatThrownBy(() -> builder.agingPeriod(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("agingPeriod");
    }

    @Test
    void nullItemsAndDelaysAreRejectedByName() {
        assertThatThrownBy(() -> q.add(null, 5))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("item");
        assertThatThrownBy(() -> q.addAfter(null, Duration.ofSeconds(1), 5))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("item");
        assertThatThrownBy(() -> q.addAfter("a", null, 5))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("delay");
        assertThat(q.len()).isZero();
    }

    @Test
    void onlyTheQueueBuiltByBuildPriorityIsAPriorityQueue() {
        WorkQueueBuilder<String> builder = WorkQueue.<String>builder().name("pods");
        RateLimitingQueue<String> plain = builder.buildRateLimiting();
        PriorityWorkQueue<String> pq = builder.buildPriority();
        assertThat(plain).isNotInstanceOf(PriorityWorkQueue.class);
        assertThat(pq).hasToString("PriorityWorkQueue[pods]");
        plain.shutDown();
        pq.shutDown();
    }

    @Test
    void extremePrioritiesOrderCorrectly() throws InterruptedException {
        q.add("min", Integer.MIN_VALUE);
        q.add("max", Integer.MAX_VALUE);
        q.add("zero");
        assertThat(List.of(q.get(), q.get(), q.get())).containsExactly("max", "zero", "min");
    }

    @Test
    void shutDownWithDrainWaitsForQueuedItemsOfEveryPriority() throws Exception {
        q.add("low", PriorityWorkQueue.LOW_PRIORITY);
        q.add("high", 10);
        String first = q.get();
        FutureTask<Boolean> drain = new FutureTask<>(() -> q.shutDownWithDrain(Duration.ofMinutes(1)));
        Thread.ofVirtual().start(drain);
        eventually().until(q::shuttingDown);
        q.add("ignored", 100);
        q.done(first);
        assertThat(drain.isDone()).as("still draining: 'low' is queued").isFalse();
        String second = q.get();
        q.done(second);
        assertThat(List.of(first, second)).containsExactly("high", "low");
        assertThat(drain.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(q.get()).isNull();
    }
}
