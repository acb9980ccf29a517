package io.kubeloop.testsupport;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.core.ConditionFactory;

/** Small helpers shared by the scenario tests of kubeloop-workqueue and kubeloop-clock: bounded waiting, background calls, counting thread factories. */
public final class TestThreads {

    /** The longest any single wait in these tests may take before the test fails. */
    public static final Duration TIMEOUT = Duration.ofSeconds(10);

    private TestThreads() {}

    /** Awaitility with an explicit bound and a fast poll, so that passing tests stay fast. */
    public static ConditionFactory eventually() {
        return await().atMost(TIMEOUT).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1));
    }

    /** Platform or virtual threads: the code under test must behave the same on both. */
    public enum Kind {
        PLATFORM,
        VIRTUAL;

        public Thread.Builder builder() {
            return this == PLATFORM ? Thread.ofPlatform().daemon(true) : Thread.ofVirtual();
        }
    }

    /** A call running on its own thread, whose outcome the test can inspect. */
    public record Call<V>(Thread thread, CompletableFuture<V> result) {

        /** True once the thread is parked: blocked in the call, or finished. */
        public boolean isParkedOrDone() {
            Thread.State s = thread.getState();
            return result.isDone() || s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING;
        }

        /** Waits until the call has blocked (its thread is parked) and asserts it has not returned. */
        public Call<V> awaitBlocked() {
            eventually().until(this::isParkedOrDone);
            if (result.isDone()) {
                throw new AssertionError("expected the call to block, but it returned " + result.getNow(null)
                        + (result.isCompletedExceptionally() ? " (exceptionally)" : ""));
            }
            return this;
        }

        /** Waits for the call's outcome, failing after {@link #TIMEOUT}. */
        public V join() throws Exception {
            return result.get(TIMEOUT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        }
    }

    public static <V> Call<V> start(Kind kind, Callable<V> body) {
        CompletableFuture<V> result = new CompletableFuture<>();
        Thread t = kind.builder().unstarted(() -> {
            try {
                result.complete(body.call());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
        t.start();
        return new Call<>(t, result);
    }

    public static <V> Call<V> start(Callable<V> body) {
        return start(Kind.PLATFORM, body);
    }

    /** A thread factory that counts and keeps the threads it makes. */
    public static final class CountingThreadFactory implements ThreadFactory {
        private final AtomicInteger count = new AtomicInteger();
        public final List<Thread> threads = new CopyOnWriteArrayList<>();

        @Override
        public Thread newThread(Runnable r) {
            count.incrementAndGet();
            Thread t = Thread.ofPlatform()
                    .daemon(true)
                    .name("test-timer-" + count.get())
                    .unstarted(r);
            threads.add(t);
            return t;
        }

        public int created() {
            return count.get();
        }
    }
}
