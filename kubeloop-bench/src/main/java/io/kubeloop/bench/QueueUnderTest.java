package io.kubeloop.bench;

import io.kubeloop.workqueue.RateLimiters;
import io.kubeloop.workqueue.WorkQueue;
import io.kubernetes.client.extended.workqueue.DefaultRateLimitingQueue;
import io.kubernetes.client.extended.workqueue.ratelimiter.BucketRateLimiter;
import io.kubernetes.client.extended.workqueue.ratelimiter.ItemExponentialFailureRateLimiter;
import io.kubernetes.client.extended.workqueue.ratelimiter.MaxOfRateLimiter;
import io.kubernetes.client.extended.workqueue.ratelimiter.RateLimiter;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The rate-limiting work queue of one library behind one small interface, so that a benchmark method is the
 * same code for both. Each JMH fork runs one {@code impl}, so every call site here sees one receiver type and
 * the JIT inlines through it as if the library were called directly.
 *
 * <p>Both queues get the same rate limiter, built explicitly (neither library's default is used):
 * <b>max of (per-item exponential backoff 5 ms .. 1000 s, token bucket 10 per second, burst 100)</b>, which is
 * client-go's {@code DefaultControllerRateLimiter}. client-java's own {@code DefaultControllerRateLimiter}
 * refills 10 tokens per <em>minute</em>, so it is not used.
 */
interface QueueUnderTest {

    /** Exponential backoff base of both rate limiters. */
    Duration BASE_DELAY = Duration.ofMillis(5);
    /** Exponential backoff cap of both rate limiters. */
    Duration MAX_DELAY = Duration.ofSeconds(1000);
    /** Token bucket rate of both rate limiters, per second. */
    int QPS = 10;
    /** Token bucket burst of both rate limiters. */
    int BURST = 100;

    void add(String item);

    String get() throws InterruptedException;

    void done(String item);

    void addRateLimited(String item);

    void forget(String item);

    /** Shuts the queue and any thread it started down, and waits for them. */
    void close() throws InterruptedException;

    /** One line about the queue's internal state, printed between iterations (not measured). */
    String diagnostics();

    static QueueUnderTest create(String impl) {
        return switch (impl) {
            case "kubeloop" -> new Kubeloop();
            case "client-java" -> new ClientJava();
            default -> throw new IllegalArgumentException("unknown impl " + impl);
        };
    }

    /** kubeloop's {@code DefaultWorkQueue}, built as a rate-limiting queue; no metrics, system clock. */
    final class Kubeloop implements QueueUnderTest {
        private final io.kubeloop.workqueue.RateLimitingQueue<String> queue = WorkQueue.<String>builder()
                .rateLimiter(RateLimiters.maxOf(
                        RateLimiters.<String>exponentialFailure(BASE_DELAY, MAX_DELAY),
                        RateLimiters.<String>bucket(QPS, BURST)))
                .buildRateLimiting();

        @Override
        public void add(String item) {
            queue.add(item);
        }

        @Override
        public String get() throws InterruptedException {
            return queue.get();
        }

        @Override
        public void done(String item) {
            queue.done(item);
        }

        @Override
        public void addRateLimited(String item) {
            queue.addRateLimited(item);
        }

        @Override
        public void forget(String item) {
            queue.forget(item);
        }

        @Override
        public void close() {
            queue.shutDown();
        }

        @Override
        public String diagnostics() {
            Object waiting;
            try {
                // Package-private; read for the report only.
                Method m = queue.getClass().getDeclaredMethod("waitingCount");
                m.setAccessible(true);
                waiting = m.invoke(queue);
            } catch (ReflectiveOperationException | RuntimeException e) {
                waiting = "?";
            }
            return "kubeloop: len=" + queue.len() + " waiting=" + waiting;
        }
    }

    /**
     * client-java's {@code DefaultRateLimitingQueue(ExecutorService, RateLimiter)}, with its waiting loop on a
     * single daemon thread of our own executor so that {@link #close} can stop it.
     *
     * <p>Its {@code addAfter} hands each delayed item to that loop through a {@code LinkedBlockingQueue} of
     * 1,000 slots with {@code offer}, which drops the item when the hand-off is full. To report how often that
     * happens, the hand-off is replaced (before the loop starts) by a {@code LinkedBlockingQueue} of the same
     * capacity whose {@code offer} also counts refusals (only on the refusal path); accepted offers run the library's
     * code unchanged.
     */
    final class ClientJava implements QueueUnderTest {
        private final ExecutorService waitingWorker = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "client-java-waiting-loop");
            t.setDaemon(true);
            return t;
        });
        private final CountingHandOff handOff = new CountingHandOff();
        private final CountingQueue queue;

        ClientJava() {
            RateLimiter<String> limiter = new MaxOfRateLimiter<>(List.of(
                    new ItemExponentialFailureRateLimiter<>(BASE_DELAY, MAX_DELAY),
                    // (capacity, tokens per period, period): burst 100, 10 per second, refilled greedily.
                    new BucketRateLimiter<>(BURST, QPS, Duration.ofSeconds(1))));
            // Hold the executor's only thread until the hand-off is swapped, so the waiting loop reads ours.
            CountDownLatch swapped = new CountDownLatch(1);
            waitingWorker.submit(() -> {
                swapped.await();
                return null;
            });
            queue = new CountingQueue(waitingWorker, limiter, handOff);
            swapped.countDown();
        }

        @Override
        public void add(String item) {
            queue.add(item);
        }

        @Override
        public String get() throws InterruptedException {
            return queue.get();
        }

        @Override
        public void done(String item) {
            queue.done(item);
        }

        @Override
        public void addRateLimited(String item) {
            queue.addRateLimited(item);
        }

        @Override
        public void forget(String item) {
            queue.forget(item);
        }

        @Override
        public void close() throws InterruptedException {
            queue.shutDown();
            // The waiting loop polls the hand-off for up to its 10 s heartbeat; interrupt it.
            waitingWorker.shutdownNow();
            if (!waitingWorker.awaitTermination(10, TimeUnit.SECONDS)) {
                System.err.println("client-java waiting loop did not stop within 10 s");
            }
        }

        @Override
        public String diagnostics() {
            Object delayed;
            try {
                Field f = io.kubernetes.client.extended.workqueue.DefaultDelayingQueue.class.getDeclaredField(
                        "delayQueue");
                f.setAccessible(true);
                delayed = ((java.util.Collection<?>) f.get(queue)).size();
            } catch (ReflectiveOperationException | RuntimeException e) {
                delayed = "?";
            }
            return "client-java: len=" + queue.length() + " delayQueue=" + delayed + " handOff=" + handOff.size()
                    + " droppedSoFar=" + handOff.dropped.sum();
        }

        /** Only swaps the protected hand-off field; every queue method is the library's own. */
        static final class CountingQueue extends DefaultRateLimitingQueue<String> {
            @SuppressWarnings({"rawtypes", "unchecked"})
            CountingQueue(ExecutorService waitingWorker, RateLimiter<String> limiter, CountingHandOff handOff) {
                super(waitingWorker, limiter);
                this.waitingForAddQueue = (java.util.concurrent.BlockingQueue) handOff;
            }
        }

        /** The library's hand-off (a 1,000-slot {@code LinkedBlockingQueue}) that counts what it refuses. */
        @SuppressWarnings("serial")
        static final class CountingHandOff extends LinkedBlockingQueue<Object> {
            /** Counted only on the refusal path, so accepted offers cost what they cost in the library. */
            final LongAdder dropped = new LongAdder();

            CountingHandOff() {
                super(1000);
            }

            @Override
            public boolean offer(Object e) {
                if (super.offer(e)) {
                    return true;
                }
                dropped.increment();
                return false;
            }
        }
    }
}
