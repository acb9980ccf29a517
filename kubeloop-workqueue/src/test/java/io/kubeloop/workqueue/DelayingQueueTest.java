package io.kubeloop.workqueue;

import static io.kubeloop.testsupport.TestThreads.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.kubeloop.clock.FakeClock;
import io.kubeloop.testsupport.TestThreads;
import io.kubeloop.testsupport.TestThreads.CountingThreadFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link DelayingQueue#addAfter} on a {@link FakeClock}.
 *
 * <p>To show which items became ready at a step without sleeping, a test offers a sentinel that becomes ready
 * exactly at the step, after every other item it cares about, and takes items until the sentinel comes out:
 * the timer adds ready items in ready-time order (offer order for equal times), so every item that was ready
 * by then comes out before the sentinel. To show that nothing else was added, it then waits until the timer
 * is parked on the clock again (it is then done with the step) and checks that the queue is empty.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class DelayingQueueTest {

    private final FakeClock clock = new FakeClock();
    private final CountingThreadFactory timerThreads = new CountingThreadFactory();
    private final DelayingQueue<String> q = WorkQueue.<String>builder()
            .name("delaying-test")
            .clock(clock)
            .timerThreadFactory(timerThreads)
            .buildDelaying();

    @AfterEach
    void shutDownQueue() {
        q.shutDown();
    }

    /** Steps the clock once the timer thread is waiting on it. */
    private void step(Duration d) {
        eventually().until(clock::hasWaiters);
        clock.step(d);
    }

    /** Gets (and marks done) items until {@code sentinel} comes out; returns everything taken, sentinel last. */
    private List<String> takeUntil(String sentinel) throws InterruptedException {
        List<String> taken = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            String item = q.get();
            assertThat(item)
                    .as("queue shut down before %s came out; got %s", sentinel, taken)
                    .isNotNull();
            q.done(item);
            taken.add(item);
            if (item.equals(sentinel)) {
                return taken;
            }
        }
        throw new AssertionError("sentinel " + sentinel + " never came out; got " + taken.size() + " items");
    }

    /** Waits until the timer is parked on the clock again (items still wait), then checks the queue is empty. */
    private void assertNothingElseAdded() {
        eventually().until(clock::hasWaiters);
        assertThat(q.len()).isZero();
    }

    // ---- when an item becomes ready

    static Stream<Arguments> readiness() {
        return Stream.of(
                arguments("ready exactly at the ready time", Duration.ofSeconds(10), Duration.ofSeconds(10), true),
                arguments("ready after the ready time", Duration.ofSeconds(10), Duration.ofMinutes(1), true),
                arguments(
                        "not ready 1 ns before",
                        Duration.ofSeconds(10),
                        Duration.ofSeconds(10).minusNanos(1),
                        false),
                arguments("not ready half way", Duration.ofSeconds(10), Duration.ofSeconds(5), false),
                arguments("1 ns delay ready after 1 ns", Duration.ofNanos(1), Duration.ofNanos(1), true),
                arguments("1000 s delay ready after 1000 s", Duration.ofSeconds(1000), Duration.ofSeconds(1000), true),
                arguments(
                        "1000 s delay not ready after 999 s",
                        Duration.ofSeconds(1000),
                        Duration.ofSeconds(999),
                        false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("readiness")
    void anItemAddedAfterADelayIsAddedOnlyOnceTheClockPassesItsReadyTime(
            String description, Duration delay, Duration step, boolean ready) throws InterruptedException {
        q.addAfter("a", delay);
        q.addAfter("sentinel", step);
        assertThat(q.len()).isZero();
        step(step);
        if (ready) {
            assertThat(takeUntil("sentinel")).containsExactly("a", "sentinel");
        } else {
            assertThat(takeUntil("sentinel")).containsExactly("sentinel");
            assertNothingElseAdded();
            // and it does come out once the rest of the delay passes
            step(delay.minus(step));
            eventually().until(() -> q.len() == 1);
            assertThat(q.get()).isEqualTo("a");
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {0, -1, -1_000_000_000L, Long.MIN_VALUE})
    void aDelayOfZeroOrLessAddsTheItemAtOnceWithoutATimerThread(long delayNanos) throws InterruptedException {
        q.addAfter("a", Duration.ofNanos(delayNanos));
        assertThat(q.len()).isEqualTo(1);
        assertThat(q.get()).isEqualTo("a");
        assertThat(timerThreads.created()).isZero();
    }

    @Test
    void aDelayOfZeroIsDeduplicatedLikeAnAdd() {
        q.add("a");
        q.addAfter("a", Duration.ZERO);
        q.addAfter("a", Duration.ofNanos(-5));
        assertThat(q.len()).isEqualTo(1);
    }

    @Test
    void addAfterWithANullItemOrDelayThrowsNullPointerException() {
        assertThatThrownBy(() -> q.addAfter(null, Duration.ofSeconds(1))).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> q.addAfter("a", null)).isInstanceOf(NullPointerException.class);
        assertThat(q.len()).isZero();
    }

    // ---- ordering

    @Test
    void itemsWithDifferentDelaysComeOutInReadyTimeOrderAfterOneBigStep() throws InterruptedException {
        q.addAfter("e", Duration.ofSeconds(5));
        q.addAfter("b", Duration.ofSeconds(2));
        q.addAfter("d", Duration.ofSeconds(4));
        q.addAfter("a", Duration.ofSeconds(1));
        q.addAfter("c", Duration.ofSeconds(3));
        step(Duration.ofSeconds(10));
        eventually().until(() -> q.len() == 5);
        assertThat(List.of(q.get(), q.get(), q.get(), q.get(), q.get())).containsExactly("a", "b", "c", "d", "e");
    }

    @Test
    void itemsComeOutOneByOneAsTheClockReachesEachReadyTime() throws InterruptedException {
        q.addAfter("c", Duration.ofSeconds(3));
        q.addAfter("a", Duration.ofSeconds(1));
        q.addAfter("b", Duration.ofSeconds(2));
        for (String expected : List.of("a", "b", "c")) {
            step(Duration.ofSeconds(1));
            eventually().until(() -> q.len() == 1);
            assertThat(q.get()).isEqualTo(expected);
        }
    }

    @Test
    void itemsReadyAtTheSameTimeComeOutInTheOrderTheyWereOffered() throws InterruptedException {
        List<String> offered =
                IntStream.range(0, 50).mapToObj(i -> "item-" + ((i * 37) % 50)).toList();
        for (String item : offered) {
            q.addAfter(item, Duration.ofSeconds(1));
        }
        step(Duration.ofSeconds(1));
        eventually().until(() -> q.len() == offered.size());
        List<String> out = new ArrayList<>();
        for (int i = 0; i < offered.size(); i++) {
            out.add(q.get());
        }
        assertThat(out).containsExactlyElementsOf(offered);
    }

    @Test
    void itemsOfferedAtDifferentTimesForTheSameReadyTimeKeepOfferOrder() throws InterruptedException {
        q.addAfter("first", Duration.ofSeconds(2));
        step(Duration.ofSeconds(1));
        q.addAfter("second", Duration.ofSeconds(1));
        step(Duration.ofSeconds(1));
        eventually().until(() -> q.len() == 2);
        assertThat(List.of(q.get(), q.get())).containsExactly("first", "second");
    }

    // ---- an item that is already waiting keeps the earlier ready time

    static Stream<Arguments> rewaits() {
        return Stream.of(
                arguments(
                        "a shorter delay replaces a longer one",
                        Duration.ofSeconds(10),
                        Duration.ofSeconds(1),
                        Duration.ofSeconds(1)),
                arguments(
                        "a longer delay never postpones a shorter one",
                        Duration.ofSeconds(1),
                        Duration.ofSeconds(10),
                        Duration.ofSeconds(1)),
                arguments(
                        "the same delay keeps the ready time",
                        Duration.ofSeconds(3),
                        Duration.ofSeconds(3),
                        Duration.ofSeconds(3)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rewaits")
    void anItemAlreadyWaitingKeepsTheEarlierReadyTimeAndIsAddedOnce(
            String description, Duration first, Duration second, Duration expectedReady) throws InterruptedException {
        q.addAfter("a", first);
        q.addAfter("a", second);
        Duration later = first.compareTo(second) > 0 ? first : second;

        // Not ready 1 ns before the expected time.
        q.addAfter("early", expectedReady.minusNanos(1));
        step(expectedReady.minusNanos(1));
        assertThat(takeUntil("early")).containsExactly("early");
        assertNothingElseAdded();

        // Ready at the expected time.
        q.addAfter("on-time", Duration.ofNanos(1));
        step(Duration.ofNanos(1));
        assertThat(takeUntil("on-time")).containsExactly("a", "on-time");

        // Not added a second time when the other, later, ready time passes.
        if (later.compareTo(expectedReady) > 0) {
            q.addAfter("late", later.minus(expectedReady));
            step(later.minus(expectedReady));
            assertThat(takeUntil("late")).containsExactly("late");
        }
        assertThat(q.len()).isZero();
    }

    @Test
    void aShorterDelayOfferedLaterMovesTheItemAheadOfOthers() throws InterruptedException {
        q.addAfter("a", Duration.ofSeconds(10));
        q.addAfter("b", Duration.ofSeconds(5));
        q.addAfter("a", Duration.ofSeconds(2));
        step(Duration.ofSeconds(10));
        eventually().until(() -> q.len() == 2);
        assertThat(List.of(q.get(), q.get())).containsExactly("a", "b");
    }

    /**
     * Random offers (with re-offers of the same items) and steps, checked against a model of the waiting heap:
     * an item keeps its earliest ready time, the offer that set it fixes its place among equal times, and each
     * step releases exactly the items whose time has come, in (ready time, offer) order.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 42, 1234, 99_999})
    void randomOffersAndStepsReleaseItemsExactlyAsAModelOfTheHeapPredicts(long seed) throws InterruptedException {
        Random random = new Random(seed);
        record Waiting(long readyAt, long seq) {}
        Map<String, Waiting> model = new HashMap<>();
        long[] now = {0};
        long[] seq = {0};
        BiConsumer<String, Long> offer = (item, delayMillis) -> {
            q.addAfter(item, Duration.ofMillis(delayMillis));
            long readyAt = now[0] + delayMillis;
            Waiting w = model.get(item);
            if (w == null || readyAt < w.readyAt()) {
                model.put(item, new Waiting(readyAt, seq[0]++));
            }
        };
        for (int round = 0; round < 12; round++) {
            for (int i = 0; i < 25; i++) {
                offer.accept("item-" + random.nextInt(12), 1L + random.nextInt(20));
            }
            long stepMillis = 1 + random.nextInt(15);
            String sentinel = "sentinel-" + round;
            offer.accept(sentinel, stepMillis);
            now[0] += stepMillis;
            List<String> expected = model.entrySet().stream()
                    .filter(e -> e.getValue().readyAt() <= now[0])
                    .sorted(Comparator.comparingLong((Map.Entry<String, Waiting> e) ->
                                    e.getValue().readyAt())
                            .thenComparingLong(e -> e.getValue().seq()))
                    .map(Map.Entry::getKey)
                    .toList();
            expected.forEach(model::remove);

            step(Duration.ofMillis(stepMillis));
            assertThat(takeUntil(sentinel)).as("round %d", round).containsExactlyElementsOf(expected);
            if (!model.isEmpty()) {
                assertNothingElseAdded();
            }
        }
    }

    // ---- waiting is independent of the dirty set

    @Test
    void anItemThatIsQueuedAndAlsoWaitingIsDeduplicatedWhenItsTimerFires() throws InterruptedException {
        q.add("a");
        q.addAfter("a", Duration.ofSeconds(1));
        q.addAfter("sentinel", Duration.ofSeconds(1));
        assertThat(q.len()).isEqualTo(1);
        step(Duration.ofSeconds(1));
        eventually().until(() -> q.len() == 2);
        assertThat(takeUntil("sentinel")).containsExactly("a", "sentinel");
        assertThat(q.len()).isZero();
    }

    @Test
    void anItemThatIsBeingProcessedAndAlsoWaitingIsQueuedAgainAtDoneWhenItsTimerFired() throws InterruptedException {
        q.add("a");
        assertThat(q.get()).isEqualTo("a");
        q.addAfter("a", Duration.ofSeconds(1));
        q.addAfter("sentinel", Duration.ofSeconds(1));
        step(Duration.ofSeconds(1));
        eventually().until(() -> q.len() == 1);
        assertThat(q.get())
                .as("a is processing, so only the sentinel is queued")
                .isEqualTo("sentinel");
        q.done("sentinel");
        q.done("a");
        assertThat(q.len()).as("a was marked dirty by its timer").isEqualTo(1);
        assertThat(q.get()).isEqualTo("a");
    }

    @Test
    void anItemProcessedWhileItWasWaitingIsAddedAgainWhenItsTimerFires() throws InterruptedException {
        q.addAfter("a", Duration.ofSeconds(1));
        q.add("a");
        assertThat(q.get()).isEqualTo("a");
        q.done("a");
        assertThat(q.len()).isZero();
        step(Duration.ofSeconds(1));
        eventually().until(() -> q.len() == 1);
        assertThat(q.get()).isEqualTo("a");
    }

    // ---- many waiting items

    @Test
    void fiveThousandWaitingItemsAreAllDeliveredInReadyTimeOrder() throws InterruptedException {
        int n = 5_000;
        record Offer(String item, long delayMillis, int seq) {}
        List<Offer> offers = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long delayMillis = 1 + (i * 7919L) % 500;
            offers.add(new Offer("item-" + i, delayMillis, i));
            q.addAfter("item-" + i, Duration.ofMillis(delayMillis));
        }
        assertThat(q.len()).isZero();
        step(Duration.ofSeconds(1));
        eventually().until(() -> q.len() == n);

        List<String> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(q.get());
        }
        List<String> expected = offers.stream()
                .sorted(Comparator.comparingLong(Offer::delayMillis).thenComparingInt(Offer::seq))
                .map(Offer::item)
                .toList();
        assertThat(out).containsExactlyElementsOf(expected);
        assertThat(timerThreads.created()).isEqualTo(1);
    }

    @Test
    void concurrentAddAfterCallsWhileTheClockMovesLoseNoItem() throws Exception {
        int producers = 4;
        int perProducer = 2_000;
        List<TestThreads.Call<Void>> calls = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            int producer = p;
            calls.add(TestThreads.start(TestThreads.Kind.VIRTUAL, () -> {
                for (int i = 0; i < perProducer; i++) {
                    q.addAfter("p" + producer + "-" + i, Duration.ofMillis((i * 31L + producer) % 100));
                }
                return null;
            }));
        }
        Set<String> got = ConcurrentHashMap.newKeySet();
        TestThreads.Call<Void> consumer = TestThreads.start(() -> {
            for (String item; (item = q.get()) != null; ) {
                got.add(item);
                q.done(item);
            }
            return null;
        });
        for (int i = 0; i < 200; i++) {
            clock.step(Duration.ofMillis(1));
        }
        for (TestThreads.Call<Void> c : calls) {
            c.join();
        }
        clock.step(Duration.ofMillis(100));
        eventually().until(() -> got.size() == producers * perProducer);
        q.shutDown();
        consumer.join();
        assertThat(timerThreads.created()).isEqualTo(1);
    }

    // ---- timer thread

    @Test
    void aQueueThatNeverDelaysStartsNoTimerThread() throws InterruptedException {
        q.add("a");
        q.get();
        q.done("a");
        q.addAfter("b", Duration.ZERO);
        q.addAfter("c", Duration.ofSeconds(-1));
        assertThat(q.len()).isEqualTo(2);
        assertThat(timerThreads.created()).isZero();
    }

    @Test
    void atMostOneTimerThreadServesManyDelaysAcrossSeveralRounds() throws InterruptedException {
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 500; i++) {
                q.addAfter("r" + round + "-" + i, Duration.ofMillis(1 + i % 20));
            }
            step(Duration.ofMillis(20));
            eventually().until(() -> q.len() == 500);
            for (int i = 0; i < 500; i++) {
                q.done(q.get());
            }
        }
        assertThat(timerThreads.created()).isEqualTo(1);
    }

    // ---- shutdown

    @Test
    void addAfterOnAShutDownQueueIsIgnored() throws InterruptedException {
        q.shutDown();
        q.addAfter("a", Duration.ZERO);
        q.addAfter("b", Duration.ofSeconds(1));
        assertThat(q.len()).isZero();
        assertThat(q.get()).isNull();
        assertThat(timerThreads.created()).isZero();
        assertThat(clock.hasWaiters()).isFalse();
    }

    @Test
    void itemsStillWaitingAtShutDownAreDroppedAndTheTimerThreadEnds() throws InterruptedException {
        q.addAfter("a", Duration.ofSeconds(1));
        q.addAfter("b", Duration.ofSeconds(2));
        eventually().until(clock::hasWaiters);
        q.shutDown();
        Thread timer = timerThreads.threads.getFirst();
        eventually().until(() -> !timer.isAlive());
        assertThat(clock.hasWaiters()).isFalse();
        clock.step(Duration.ofSeconds(5));
        assertThat(q.len()).isZero();
        assertThat(q.get()).isNull();
    }

    @Test
    void shutDownWithDrainDoesNotWaitForItemsStillWaitingForTheirDelay() throws InterruptedException {
        q.addAfter("a", Duration.ofSeconds(1));
        eventually().until(clock::hasWaiters);
        assertThat(q.shutDownWithDrain(Duration.ofHours(1))).isTrue();
        Thread timer = timerThreads.threads.getFirst();
        eventually().until(() -> !timer.isAlive());
        clock.step(Duration.ofSeconds(1));
        assertThat(q.get()).isNull();
    }

    @Test
    void anItemWhoseDelayEndsDuringADrainIsNotAdded() throws Exception {
        q.add("busy");
        q.get();
        q.addAfter("late", Duration.ofSeconds(1));
        eventually().until(() -> clock.waiterCount() == 1);
        TestThreads.Call<Boolean> drain = TestThreads.start(() -> q.shutDownWithDrain(Duration.ofHours(1)));
        eventually().until(() -> clock.waiterCount() == 2);
        clock.step(Duration.ofSeconds(1));
        eventually().until(() -> clock.waiterCount() == 1); // the timer woke and found nothing to add
        assertThat(q.len()).isZero();
        q.done("busy");
        assertThat(drain.join()).isTrue();
        assertThat(q.get()).isNull();
    }

    // ---- extreme delays

    @Test
    void aDelayTooLongForNanosecondsWaitsForeverWithoutDisturbingOtherItems() throws InterruptedException {
        clock.step(Duration.ofSeconds(1)); // so that now + "forever" would overflow a long
        q.addAfter("forever", Duration.ofDays(365L * 1000));
        q.addAfter("max", Duration.ofSeconds(Long.MAX_VALUE));
        q.addAfter("soon", Duration.ofSeconds(1));
        step(Duration.ofSeconds(1));
        eventually().until(() -> q.len() == 1);
        assertThat(q.get()).isEqualTo("soon");
        q.done("soon");

        clock.step(Duration.ofDays(365L * 100));
        q.addAfter("sentinel", Duration.ofNanos(1));
        step(Duration.ofNanos(1));
        assertThat(takeUntil("sentinel")).containsExactly("sentinel");
        assertNothingElseAdded();
    }
}
