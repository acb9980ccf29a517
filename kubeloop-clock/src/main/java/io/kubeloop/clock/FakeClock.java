package io.kubeloop.clock;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link Clock} that moves only when a test tells it to.
 *
 * <p>A typical test arranges a delayed action, waits until the code under test is blocked on this clock
 * ({@link #hasWaiters()}), then {@link #step steps} time past the deadline and asserts what happened:
 *
 * <pre>{@code
 * FakeClock clock = new FakeClock();
 * DelayingQueue<String> queue = WorkQueue.<String>builder().clock(clock).buildDelaying() // io.kubeloop.workqueue;
 * queue.addAfter("a", Duration.ofSeconds(10));
 * await().until(clock::hasWaiters);
 * clock.step(Duration.ofSeconds(10));
 * await().until(() -> queue.len() == 1);
 * }</pre>
 *
 * <p>Invariant: every thread blocked in {@link #awaitUntil} with a finite deadline is registered in
 * {@code waiters} from before it releases its lock until it returns, and {@link #step} signals, under the
 * waiter's own lock, every waiter whose deadline it reaches. A step therefore can never slip between a
 * waiter's reading of the time and its wait, and no wake-up is lost.
 */
public final class FakeClock implements Clock {

    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by {@code lock}. */
    private long nanos;
    /** Guarded by {@code lock}. */
    private Instant wallTime;
    /** Guarded by {@code lock}: threads waiting for a finite deadline. */
    private final List<Waiter> waiters = new ArrayList<>();

    private record Waiter(Lock lock, Condition condition, long deadlineNanos) {}

    /** A fake clock that starts at 2026-01-01T00:00:00Z. */
    public FakeClock() {
        this(Instant.parse("2026-01-01T00:00:00Z"));
    }

    /** A fake clock whose wall time starts at {@code start}. */
    public FakeClock(Instant start) {
        this.wallTime = Objects.requireNonNull(start, "start");
    }

    @Override
    public long nanoTime() {
        lock.lock();
        try {
            return nanos;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Instant now() {
        lock.lock();
        try {
            return wallTime;
        } finally {
            lock.unlock();
        }
    }

    /** Moves time forward by {@code duration} and wakes every waiter whose deadline has now passed. */
    public void step(Duration duration) {
        Objects.requireNonNull(duration, "duration");
        if (duration.isNegative()) {
            throw new IllegalArgumentException("a fake clock only moves forward, not by " + duration);
        }
        long stepNanos;
        try {
            stepNanos = duration.toNanos();
        } catch (ArithmeticException tooLong) {
            throw new IllegalArgumentException("a fake clock steps at most about 292 years, not " + duration);
        }
        List<Waiter> due = new ArrayList<>();
        lock.lock();
        try {
            nanos += stepNanos;
            wallTime = wallTime.plus(duration);
            for (Waiter w : waiters) {
                if (w.deadlineNanos - nanos <= 0) {
                    due.add(w);
                }
            }
        } finally {
            lock.unlock();
        }
        // Signal outside our own lock: a waiter holds its lock while it registers with us.
        for (Waiter w : due) {
            w.lock.lock();
            try {
                w.condition.signalAll();
            } finally {
                w.lock.unlock();
            }
        }
    }

    /** True while at least one thread waits on this clock for a finite deadline. */
    public boolean hasWaiters() {
        lock.lock();
        try {
            return !waiters.isEmpty();
        } finally {
            lock.unlock();
        }
    }

    /** How many threads wait on this clock for a finite deadline. */
    public int waiterCount() {
        lock.lock();
        try {
            return waiters.size();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void awaitUntil(Lock callerLock, Condition condition, long deadlineNanos) throws InterruptedException {
        if (deadlineNanos == Long.MAX_VALUE) {
            condition.await();
            return;
        }
        Waiter waiter = new Waiter(callerLock, condition, deadlineNanos);
        lock.lock();
        try {
            if (deadlineNanos - nanos <= 0) {
                return;
            }
            waiters.add(waiter);
        } finally {
            lock.unlock();
        }
        try {
            condition.await();
        } finally {
            lock.lock();
            try {
                waiters.remove(waiter);
            } finally {
                lock.unlock();
            }
        }
    }

    @Override
    public String toString() {
        return "FakeClock[" + now() + "]";
    }
}
