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
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@link RateLimitingQueue}: retries delayed by the rate limiter, forget, numRequeues, the worker loop. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RateLimitingQueueTest {

    private final FakeClock clock = new FakeClock();
    private final List<RateLimitingQueue<String>> queues = new ArrayList<>();

    private RateLimitingQueue<String> queue(RateLimiter<String> limiter) {
        WorkQueueBuilder<String> b = WorkQueue.<String>builder().clock(clock);
        if (limiter != null) {
            b.rateLimiter(limiter);
        }
        RateLimitingQueue<String> q = b.buildRateLimiting();
        queues.add(q);
        return q;
    }

    @AfterEach
    void shutDownQueues() {
        queues.forEach(WorkQueue::shutDown);
    }

    /**
     * Asserts that {@code item}, just passed to addRateLimited, becomes ready exactly {@code delay} from now:
     * a sentinel ready 1 ns earlier comes out alone, then the item comes out 1 ns later.
     */
    private void assertReadyAfter(RateLimitingQueue<String> q, String item, Duration delay)
            throws InterruptedException {
        String early = "sentinel-" + delay;
        q.addAfter(early, delay.minusNanos(1));
        eventually().until(clock::hasWaiters);
        clock.step(delay.minusNanos(1));
        assertThat(q.get())
                .as("the item must not be ready 1 ns before %s", delay)
                .isEqualTo(early);
        q.done(early);
        eventually().until(clock::hasWaiters); // the timer is done with this step
        assertThat(q.len()).isZero();

        clock.step(Duration.ofNanos(1));
        eventually().until(() -> q.len() == 1);
        assertThat(q.get()).isEqualTo(item);
    }

    @Test
    void addRateLimitedWaitsTheLimitersDelayWhichGrowsWithEachFailure() throws InterruptedException {
        RateLimitingQueue<String> q =
                queue(RateLimiters.exponentialFailure(Duration.ofSeconds(1), Duration.ofHours(1)));
        for (int failure = 1; failure <= 4; failure++) {
            q.addRateLimited("a");
            assertThat(q.numRequeues("a")).isEqualTo(failure);
            assertThat(q.len()).isZero();
            assertReadyAfter(q, "a", Duration.ofSeconds(1L << (failure - 1)));
            q.done("a");
        }
    }

    @Test
    void forgetResetsNumRequeuesAndTheNextRetryStartsFromTheBaseDelay() throws InterruptedException {
        RateLimitingQueue<String> q =
                queue(RateLimiters.exponentialFailure(Duration.ofSeconds(1), Duration.ofHours(1)));
        q.addRateLimited("a");
        q.addRateLimited("a");
        q.addRateLimited("a");
        assertThat(q.numRequeues("a")).isEqualTo(3);
        q.forget("a");
        assertThat(q.numRequeues("a")).isZero();
        step(Duration.ofSeconds(1));
        eventually().until(() -> q.len() == 1);
        assertThat(q.get()).isEqualTo("a");
        q.done("a");

        q.addRateLimited("a");
        assertReadyAfter(q, "a", Duration.ofSeconds(1));
    }

    private void step(Duration d) {
        eventually().until(clock::hasWaiters);
        clock.step(d);
    }

    @Test
    void forgetDoesNotTakeAnItemOutOfTheQueueOrReleaseIt() throws InterruptedException {
        RateLimitingQueue<String> q =
                queue(RateLimiters.exponentialFailure(Duration.ofSeconds(1), Duration.ofHours(1)));
        q.add("a");
        q.add("b");
        q.forget("b");
        assertThat(q.get()).isEqualTo("a");
        q.forget("a");
        q.add("a");
        assertThat(q.len()).as("a is still processing until done").isEqualTo(1);
        q.done("a");
        assertThat(q.len()).isEqualTo(2);
    }

    @Test
    void numRequeuesIsPerItem() {
        RateLimitingQueue<String> q =
                queue(RateLimiters.exponentialFailure(Duration.ofSeconds(1), Duration.ofHours(1)));
        q.addRateLimited("a");
        q.addRateLimited("a");
        q.addRateLimited("b");
        assertThat(q.numRequeues("a")).isEqualTo(2);
        assertThat(q.numRequeues("b")).isEqualTo(1);
        assertThat(q.numRequeues("c")).isZero();
    }

    @Test
    void aLimiterAnsweringZeroAddsTheItemAtOnce() throws InterruptedException {
        RateLimitingQueue<String> q = queue(RateLimiters.fastSlow(Duration.ZERO, Duration.ofHours(1), 1));
        q.addRateLimited("a");
        assertThat(q.len()).isEqualTo(1);
        assertThat(q.get()).isEqualTo("a");
        assertThat(q.numRequeues("a")).isEqualTo(1);
    }

    @Test
    void theDefaultLimiterIsClientGosDefaultControllerLimiterOnTheQueuesClock() throws InterruptedException {
        RateLimitingQueue<String> q = queue(null);
        // 100 distinct items fit in the bucket's burst: each waits its own first backoff, 5 ms.
        for (int i = 0; i < 100; i++) {
            q.addRateLimited("item-" + i);
        }
        // The 101st waits for the bucket: 100 ms, measured on the fake clock.
        q.addRateLimited("late");
        step(Duration.ofMillis(5));
        eventually().until(() -> q.len() == 100);
        for (int i = 0; i < 100; i++) {
            q.done(q.get());
        }
        assertReadyAfter(q, "late", Duration.ofMillis(95));
    }

    @Test
    void addRateLimitedOnAShutDownQueueAddsNothing() throws InterruptedException {
        RateLimitingQueue<String> q = queue(RateLimiters.fastSlow(Duration.ZERO, Duration.ofSeconds(1), 1));
        q.shutDown();
        q.addRateLimited("a");
        q.addRateLimited("a");
        assertThat(q.len()).isZero();
        assertThat(q.get()).isNull();
    }

    /**
     * The worker loop from {@link WorkQueue}'s Javadoc, on several worker threads with real time and short
     * delays: an item that fails is retried with backoff until it succeeds, then forgotten.
     */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void theWorkerLoopFromTheJavadocRetriesFailuresUntilTheySucceed(Kind kind) throws Exception {
        RateLimitingQueue<String> q = WorkQueue.<String>builder()
                .rateLimiter(RateLimiters.exponentialFailure(Duration.ofMillis(1), Duration.ofMillis(20)))
                .buildRateLimiting();
        queues.add(q);
        // key "k<n>" fails n times, then succeeds
        Map<String, Integer> failuresToGo = new ConcurrentHashMap<>();
        Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
        Map<String, Integer> requeuesSeenAtSuccess = new ConcurrentHashMap<>();
        for (int n = 0; n < 6; n++) {
            failuresToGo.put("k" + n, n);
            attempts.put("k" + n, new AtomicInteger());
        }
        AtomicInteger succeeded = new AtomicInteger();

        List<Call<Void>> workers = new ArrayList<>();
        for (int w = 0; w < 3; w++) {
            workers.add(TestThreads.start(kind, () -> {
                for (String key; (key = q.get()) != null; ) {
                    try {
                        attempts.get(key).incrementAndGet();
                        if (failuresToGo.merge(key, -1, Integer::sum) >= 0) {
                            throw new IllegalStateException("reconcile failed for " + key);
                        }
                        requeuesSeenAtSuccess.put(key, q.numRequeues(key));
                        q.forget(key);
                        succeeded.incrementAndGet();
                    } catch (IllegalStateException e) {
                        q.addRateLimited(key);
                    } finally {
                        q.done(key);
                    }
                }
                return null;
            }));
        }
        for (String key : failuresToGo.keySet()) {
            q.add(key);
        }
        eventually().until(() -> succeeded.get() == 6);
        assertThat(q.shutDownWithDrain(Duration.ofSeconds(10))).isTrue();
        for (Call<Void> w : workers) {
            w.join();
        }
        for (int n = 0; n < 6; n++) {
            assertThat(attempts.get("k" + n).get()).as("attempts of k%d", n).isEqualTo(n + 1);
            assertThat(requeuesSeenAtSuccess.get("k" + n))
                    .as("requeues of k%d", n)
                    .isEqualTo(n);
            assertThat(q.numRequeues("k" + n)).isZero();
        }
    }

    // ---- processNextWorkItem and runWorker

    @Test
    void processNextWorkItemForgetsASuccessAndReaddsAFailureAfterTheLimitersDelay() throws InterruptedException {
        RateLimitingQueue<String> q =
                queue(RateLimiters.exponentialFailure(Duration.ofSeconds(1), Duration.ofMinutes(1)));
        List<String> seen = new ArrayList<>();
        q.add("a");
        assertThat(q.processNextWorkItem(item -> {
                    seen.add(item);
                    throw new IllegalStateException("reconcile failed");
                }))
                .isTrue();
        assertThat(q.numRequeues("a")).isEqualTo(1);
        assertThat(q.len()).as("re-added after the delay, not at once").isZero();
        eventually().until(clock::hasWaiters);
        clock.step(Duration.ofSeconds(1));
        eventually().until(() -> q.len() == 1);

        assertThat(q.processNextWorkItem(seen::add)).isTrue();
        assertThat(seen).containsExactly("a", "a");
        assertThat(q.numRequeues("a")).as("forgotten on success").isZero();
        q.add("a");
        assertThat(q.len()).as("done was called: a new add queues it").isEqualTo(1);
    }

    @Test
    void processNextWorkItemReturnsFalseOnceTheQueueIsShutDownAndEmpty() throws InterruptedException {
        RateLimitingQueue<String> q = queue(null);
        q.add("a");
        q.shutDown();
        List<String> seen = new ArrayList<>();
        assertThat(q.processNextWorkItem(seen::add))
                .as("queued items are still handed out")
                .isTrue();
        assertThat(q.processNextWorkItem(seen::add)).isFalse();
        assertThat(seen).containsExactly("a");
        assertThatThrownBy(() -> q.processNextWorkItem(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void aHandlerInterruptedMidItemLeavesTheItemToBeRetriedAndStopsTheWorker() throws Exception {
        RateLimitingQueue<String> q =
                queue(RateLimiters.exponentialFailure(Duration.ofSeconds(1), Duration.ofMinutes(1)));
        q.add("a");
        q.add("b");
        List<String> seen = new ArrayList<>();
        Call<Boolean> worker = TestThreads.start(Kind.VIRTUAL, () -> {
            q.runWorker(item -> {
                seen.add(item);
                throw new InterruptedException("stopped while reconciling " + item);
            });
            return Thread.currentThread().isInterrupted();
        });
        assertThat(worker.join()).as("the interrupt flag is set again").isTrue();
        assertThat(seen).as("the worker stopped after the interrupted item").containsExactly("a");
        assertThat(q.numRequeues("a"))
                .as("the interrupted item is retried, not lost")
                .isEqualTo(1);
        assertThat(q.len()).isEqualTo(1); // b is still waiting
    }

    /** runWorker fits a thread's lambda (it throws nothing checked) and returns when the queue drains. */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void runWorkerOnSeveralThreadsRetriesFailuresUntilTheySucceedAndEndsAtShutdown(Kind kind) throws Exception {
        RateLimitingQueue<String> q = WorkQueue.<String>builder()
                .rateLimiter(RateLimiters.exponentialFailure(Duration.ofMillis(1), Duration.ofMillis(20)))
                .buildRateLimiting();
        queues.add(q);
        Map<String, Integer> failuresToGo = new ConcurrentHashMap<>();
        Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
        for (int n = 0; n < 6; n++) {
            failuresToGo.put("k" + n, n);
            attempts.put("k" + n, new AtomicInteger());
        }
        AtomicInteger succeeded = new AtomicInteger();
        List<Thread> workers = new ArrayList<>();
        for (int w = 0; w < 3; w++) {
            workers.add(kind.builder()
                    .name("worker-" + w)
                    .start(() -> q.runWorker(key -> {
                        attempts.get(key).incrementAndGet();
                        if (failuresToGo.merge(key, -1, Integer::sum) >= 0) {
                            throw new IllegalStateException("reconcile failed for " + key);
                        }
                        succeeded.incrementAndGet();
                    })));
        }
        failuresToGo.keySet().forEach(q::add);
        eventually().until(() -> succeeded.get() == 6);
        assertThat(q.shutDownWithDrain(Duration.ofSeconds(10))).isTrue();
        for (Thread t : workers) {
            assertThat(t.join(TestThreads.TIMEOUT))
                    .as("%s ended at shutdown", t.getName())
                    .isTrue();
        }
        for (int n = 0; n < 6; n++) {
            assertThat(attempts.get("k" + n).get()).as("attempts of k%d", n).isEqualTo(n + 1);
            assertThat(q.numRequeues("k" + n)).isZero();
        }
    }

    @Test
    void runWorkerReturnsWhenItsThreadIsInterruptedWhileWaiting() throws Exception {
        RateLimitingQueue<String> q = queue(null);
        Call<Boolean> worker = TestThreads.start(Kind.VIRTUAL, () -> {
            q.runWorker(item -> {});
            return Thread.currentThread().isInterrupted();
        });
        worker.awaitBlocked();
        worker.thread().interrupt();
        assertThat(worker.join()).isTrue();
    }
}
