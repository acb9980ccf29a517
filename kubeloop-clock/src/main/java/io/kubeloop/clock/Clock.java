package io.kubeloop.clock;

import java.time.Instant;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * The one source of time for every timer, delay, backoff and duration metric in kubeloop.
 *
 * <p>Production code uses {@link #system()}; tests use a {@link FakeClock} and step it by hand, so that a
 * test of a 1000-second backoff runs in microseconds and never depends on the machine's speed.
 *
 * <p>Time is read as a monotonic nanosecond count ({@link #nanoTime()}) that, like
 * {@link System#nanoTime()}, has meaning only as a difference between two readings. Waiting goes through
 * {@link #awaitUntil}: the clock, not the caller, decides when a deadline has passed, which is what lets a
 * fake clock wake a timer thread when a test steps time forward.
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

    /** The machine's clock: {@link System#nanoTime()} and {@link Instant#now()}. */
    static Clock system() {
        return SystemClock.INSTANCE;
    }
}
