package io.kubeloop.clock;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/** {@link Clock#system()}: real time, real waits, and one timer thread for scheduled tasks. */
enum SystemClock implements Clock {
    INSTANCE;

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public Instant now() {
        return Instant.now();
    }

    @Override
    public void awaitUntil(Lock lock, Condition condition, long deadlineNanos) throws InterruptedException {
        if (deadlineNanos == Long.MAX_VALUE) {
            condition.await();
            return;
        }
        long remaining = deadlineNanos - System.nanoTime();
        if (remaining > 0) {
            condition.awaitNanos(remaining);
        }
    }

    @Override
    public Scheduled schedule(Runnable task, Duration delay) {
        Objects.requireNonNull(task, "task");
        long nanos = Math.max(0, Nanos.saturated(delay));
        ScheduledFuture<?> future = Timer.EXECUTOR.schedule(() -> runGuarded(task), nanos, TimeUnit.NANOSECONDS);
        return () -> future.cancel(false);
    }

    /** A task's failure goes to the uncaught exception handler instead of into a future nobody reads. */
    private static void runGuarded(Runnable task) {
        try {
            task.run();
        } catch (Throwable e) {
            Thread t = Thread.currentThread();
            t.getUncaughtExceptionHandler().uncaughtException(t, e);
        }
    }

    @Override
    public String toString() {
        return "Clock.system()";
    }

    /**
     * The one timer thread, started on first use. A platform daemon thread: it must not keep a JVM alive,
     * and its tasks are short (a volatile read and a comparison for a watch's idle rule). Cancelled tasks
     * leave the queue at once, so that a process opening and closing many watches does not keep their
     * five-minute timers around.
     */
    private static final class Timer {
        static final ScheduledThreadPoolExecutor EXECUTOR = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "kubeloop-clock");
            t.setDaemon(true);
            return t;
        });

        static {
            EXECUTOR.setRemoveOnCancelPolicy(true);
            EXECUTOR.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
        }
    }
}
