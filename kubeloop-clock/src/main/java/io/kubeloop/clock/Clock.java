package io.kubeloop.clock;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The one source of time for every timer, delay, backoff, rate limit and duration metric in kubeloop.
 *
 * <p>Production code uses {@link #system()}; tests use a {@link FakeClock} and step it by hand, so that a
 * test of a 1000-second backoff runs in microseconds and never depends on the machine's speed.
 *
 * <p>Time is read as a monotonic nanosecond count ({@link #nanoTime()}) that, like
 * {@link System#nanoTime()}, has meaning only as a difference between two readings. There are three ways
 * to wait, and each lets a fake clock decide when a deadline has passed:
 * <ul>
 *   <li>{@link #awaitUntil}: a thread that waits on a condition of its own, with a deadline (work queues,
 *       reflectors);</li>
 *   <li>{@link #sleep}: a thread that only waits (retries, rate limits);</li>
 *   <li>{@link #schedule}: no thread waits; a short task runs once the delay has passed (watch idle rules,
 *       fault timers).</li>
 * </ul>
 */
public interface Clock {

    /** Monotonic time in nanoseconds; compare readings only by subtraction ({@code a - b > 0}). */
    long nanoTime();

    /** Wall-clock time, for timestamps that people read; never for measuring intervals. */
    Instant now();

    /**
     * Waits on {@code condition} until it is signalled, the thread is interrupted, or this clock's
     * {@link #nanoTime()} reaches {@code deadlineNanos}. The caller holds {@code lock}, which owns
     * {@code condition}, and holds it again on return.
     *
     * <p>May return early (spuriously), so callers wait in a loop that re-checks their own state and
     * the time. A deadline of {@link Long#MAX_VALUE} means no deadline: only a signal or an interrupt ends
     * the wait.
     */
    void awaitUntil(Lock lock, Condition condition, long deadlineNanos) throws InterruptedException;

    /**
     * Runs {@code task} once, when {@code delay} has passed on this clock (at once when the delay is zero
     * or negative, on the clock's thread, not the caller's). The task runs on a thread that belongs to the
     * clock and that every task of the clock shares: it must be short and must not block; hand longer work
     * to a thread of your own. A task's exception is given to its thread's uncaught exception handler (the
     * system clock) or thrown from {@link FakeClock#step} (the fake clock); it never stops other tasks.
     *
     * <p>{@link #system()} runs tasks on one daemon platform thread, {@code kubeloop-clock}; a
     * {@link FakeClock} runs them on the thread that steps it past their time.
     *
     * @return the handle that cancels the task
     */
    Scheduled schedule(Runnable task, Duration delay);

    /**
     * Waits until {@code duration} has passed on this clock. Returns at once when the duration is zero or
     * negative, unless the thread is interrupted.
     *
     * @throws InterruptedException if the thread is interrupted before or while waiting; the interrupt
     *     status is then cleared
     */
    default void sleep(Duration duration) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        long nanos = Nanos.saturated(duration);
        if (nanos <= 0) {
            return;
        }
        long deadline = nanoTime() + nanos;
        // A lock and condition of the sleeper's own: nobody signals them, so only the deadline or an
        // interrupt ends the wait. java.util.concurrent locks park a virtual thread without pinning it.
        Lock lock = new ReentrantLock();
        Condition never = lock.newCondition();
        lock.lock();
        try {
            while (deadline - nanoTime() > 0) {
                awaitUntil(lock, never, deadline);
            }
        } finally {
            lock.unlock();
        }
    }

    /** The machine's clock: {@link System#nanoTime()}, {@link Instant#now()}, real waits. */
    static Clock system() {
        return SystemClock.INSTANCE;
    }

    /** A task given to {@link #schedule}. */
    interface Scheduled {

        /**
         * Keeps the task from running if it has not started yet. A task that is running when this is
         * called finishes.
         *
         * @return false if the task had already finished or been cancelled; true otherwise
         */
        boolean cancel();
    }
}
