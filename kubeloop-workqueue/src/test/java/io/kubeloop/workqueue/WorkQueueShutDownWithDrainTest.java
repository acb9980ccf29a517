package io.kubeloop.workqueue;

import static io.kubeloop.testsupport.TestThreads.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubeloop.clock.FakeClock;
import io.kubeloop.testsupport.TestThreads;
import io.kubeloop.testsupport.TestThreads.Call;
import io.kubeloop.testsupport.TestThreads.Kind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link WorkQueue#shutDownWithDrain}: unlike client-go it waits for in-flight <em>and</em> still-queued items,
 * with a timeout measured on the queue's clock.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class WorkQueueShutDownWithDrainTest {

    private final FakeClock clock = new FakeClock();
    private final WorkQueue<String> q = WorkQueue.<String>builder().clock(clock).build();

    private Call<Boolean> drainInBackground(Duration timeout) {
        Call<Boolean> drain = TestThreads.start(() -> q.shutDownWithDrain(timeout));
        eventually().until(() -> clock.hasWaiters() || drain.result().isDone());
        return drain;
    }

    @Test
    void withNothingInFlightItReturnsTrueAtOnce() throws InterruptedException {
        assertThat(q.shutDownWithDrain(Duration.ofHours(1))).isTrue();
        assertThat(q.shuttingDown()).isTrue();
        assertThat(clock.hasWaiters()).isFalse();
    }

    @Test
    void withAZeroTimeoutAndNothingInFlightItReturnsTrue() throws InterruptedException {
        assertThat(q.shutDownWithDrain(Duration.ZERO)).isTrue();
    }

    @Test
    void withAZeroTimeoutAndAnItemInFlightItReturnsFalseAtOnce() throws InterruptedException {
        q.add("a");
        q.get();
        assertThat(q.shutDownWithDrain(Duration.ZERO)).isFalse();
        assertThat(q.shuttingDown()).isTrue();
    }

    @Test
    void itWaitsForAnItemInFlightUntilItIsDone() throws Exception {
        q.add("a");
        assertThat(q.get()).isEqualTo("a");
        Call<Boolean> drain = drainInBackground(Duration.ofHours(1));
        assertThat(drain.result()).isNotDone();
        assertThat(q.shuttingDown()).isTrue();

        q.done("a");
        assertThat(drain.join()).isTrue();
        assertThat(q.get()).isNull();
    }

    @Test
    void itWaitsForEveryItemInFlight() throws Exception {
        q.add("a");
        q.add("b");
        q.get();
        q.get();
        Call<Boolean> drain = drainInBackground(Duration.ofHours(1));
        q.done("b");
        assertThat(drain.awaitBlocked().result()).isNotDone();
        q.done("a");
        assertThat(drain.join()).isTrue();
    }

    @Test
    void itWaitsForStillQueuedItemsUntilWorkersTakeAndFinishThem() throws Exception {
        q.add("a");
        q.add("b");
        q.add("c");
        assertThat(q.get()).isEqualTo("a");
        Call<Boolean> drain = drainInBackground(Duration.ofHours(1));

        q.done("a");
        assertThat(drain.awaitBlocked().result()).as("b and c are still queued").isNotDone();
        assertThat(q.get()).isEqualTo("b");
        assertThat(q.get()).isEqualTo("c");
        q.done("b");
        assertThat(drain.awaitBlocked().result()).as("c is still in flight").isNotDone();
        q.done("c");
        assertThat(drain.join()).isTrue();
        assertThat(q.get()).isNull();
    }

    @Test
    void itWaitsForQueuedItemsEvenWhenNothingIsInFlight() throws Exception {
        q.add("a");
        Call<Boolean> drain = drainInBackground(Duration.ofHours(1));
        assertThat(drain.awaitBlocked().result()).isNotDone();
        assertThat(q.get()).isEqualTo("a");
        assertThat(drain.awaitBlocked().result()).isNotDone();
        q.done("a");
        assertThat(drain.join()).isTrue();
    }

    @Test
    void anItemReAddedDuringProcessingIsProcessedAgainDuringTheDrain() throws Exception {
        q.add("a");
        assertThat(q.get()).isEqualTo("a");
        q.add("a");
        Call<Boolean> drain = drainInBackground(Duration.ofHours(1));

        q.done("a");
        assertThat(drain.awaitBlocked().result()).as("a was re-queued by done").isNotDone();
        assertThat(q.len()).isEqualTo(1);
        assertThat(q.get()).isEqualTo("a");
        q.done("a");
        assertThat(drain.join()).isTrue();
    }

    @Test
    void anAddDuringTheDrainIsIgnored() throws Exception {
        q.add("a");
        q.get();
        Call<Boolean> drain = drainInBackground(Duration.ofHours(1));
        q.add("a");
        q.add("b");
        assertThat(q.len()).isZero();
        q.done("a");
        assertThat(drain.join()).isTrue();
        assertThat(q.len()).isZero();
    }

    @Test
    void itReturnsFalseOnceTheClockPassesTheTimeout() throws Exception {
        q.add("a");
        q.get();
        Call<Boolean> drain = drainInBackground(Duration.ofSeconds(30));

        clock.step(Duration.ofSeconds(29));
        assertThat(clock.waiterCount()).isEqualTo(1);
        assertThat(drain.awaitBlocked().result()).isNotDone();

        clock.step(Duration.ofSeconds(1));
        assertThat(drain.join()).isFalse();
        assertThat(q.shuttingDown()).isTrue();
        assertThat(clock.hasWaiters()).isFalse();
        q.done("a"); // the worker finishing late is harmless
        assertThat(q.get()).isNull();
    }

    @Test
    void afterATimeoutTheItemsStillQueuedAreStillHandedOut() throws Exception {
        q.add("a");
        q.add("b");
        q.get();
        Call<Boolean> drain = drainInBackground(Duration.ofSeconds(5));
        clock.step(Duration.ofSeconds(5));
        assertThat(drain.join()).isFalse();
        assertThat(q.get()).isEqualTo("b");
        assertThat(q.get()).isNull();
    }

    @Test
    void aLaterShutDownReleasesABlockedDrain() throws Exception {
        q.add("a");
        q.get();
        Call<Boolean> drain = drainInBackground(Duration.ofHours(1));
        q.shutDown();
        assertThat(drain.join()).as("released before a was done: not drained").isFalse();
        assertThat(clock.hasWaiters()).isFalse();
    }

    @Test
    void interruptingABlockedDrainThrowsInterruptedExceptionAndTheQueueStaysShutDown() throws Exception {
        q.add("a");
        q.get();
        Call<Boolean> drain = drainInBackground(Duration.ofHours(1));
        drain.thread().interrupt();
        assertThatThrownBy(drain::join).cause().isInstanceOf(InterruptedException.class);
        assertThat(q.shuttingDown()).isTrue();
        q.add("b");
        assertThat(q.len()).isZero();
        assertThat(clock.hasWaiters()).isFalse();
    }

    @Test
    void aDrainAfterShutDownStillWaitsForTheItemsInFlight() throws Exception {
        q.add("a");
        q.get();
        q.shutDown();
        Call<Boolean> drain = drainInBackground(Duration.ofHours(1));
        assertThat(drain.result()).isNotDone();
        q.done("a");
        assertThat(drain.join()).isTrue();
    }

    /**
     * Two drains wait at once, for 5 s and for 60 s. When the clock passes 5 s the first returns false; the
     * second has neither timed out nor seen the queue drained, so it must keep waiting and return true once
     * the item in flight is done. Whether it does depends on which drain thread re-takes the queue lock first
     * after the step wakes both, so the scenario is repeated on fresh queues.
     */
    @Test
    void aDrainThatTimesOutDoesNotCutShortAConcurrentDrainWithALongerTimeout() throws Exception {
        for (int attempt = 0; attempt < 200; attempt++) {
            FakeClock clock = new FakeClock();
            WorkQueue<String> queue = WorkQueue.<String>builder().clock(clock).build();
            queue.add("a");
            queue.get();
            Call<Boolean> shortDrain = TestThreads.start(() -> queue.shutDownWithDrain(Duration.ofSeconds(5)));
            eventually().until(() -> clock.waiterCount() == 1);
            Call<Boolean> longDrain = TestThreads.start(() -> queue.shutDownWithDrain(Duration.ofSeconds(60)));
            eventually().until(() -> clock.waiterCount() == 2);

            clock.step(Duration.ofSeconds(5));
            assertThat(shortDrain.join()).isFalse();
            eventually()
                    .until(() ->
                            longDrain.result().isDone() || (clock.waiterCount() == 1 && longDrain.isParkedOrDone()));
            assertThat(longDrain.result())
                    .as("attempt %d: the 60 s drain neither timed out nor saw the queue drained", attempt)
                    .isNotDone();

            queue.done("a");
            assertThat(longDrain.join()).isTrue();
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void drainingWithRealWorkersProcessesEveryQueuedItemExactlyOnce(Kind kind) throws Exception {
        WorkQueue<String> workQueue = WorkQueue.<String>builder().build();
        int items = 200;
        for (int i = 0; i < items; i++) {
            workQueue.add("item-" + i);
        }
        ConcurrentHashMap<String, AtomicInteger> processed = new ConcurrentHashMap<>();
        List<Call<Void>> workers = new ArrayList<>();
        for (int w = 0; w < 3; w++) {
            workers.add(TestThreads.start(kind, () -> {
                for (String item; (item = workQueue.get()) != null; ) {
                    processed.computeIfAbsent(item, k -> new AtomicInteger()).incrementAndGet();
                    workQueue.done(item);
                }
                return null;
            }));
        }
        assertThat(workQueue.shutDownWithDrain(Duration.ofSeconds(10))).isTrue();
        for (Call<Void> w : workers) {
            w.join();
        }
        assertThat(processed).hasSize(items);
        assertThat(processed.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
    }
}
