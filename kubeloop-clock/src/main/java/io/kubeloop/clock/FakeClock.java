package io.kubeloop.clock;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.PriorityQueue;
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
 * DelayingQueue<String> queue = WorkQueue.<String>builder().clock(clock).buildDelaying(); // io.kubeloop.workqueue
 * queue.addAfter("a", Duration.ofSeconds(10));
 * await().until(clock::hasWaiters);
 * clock.step(Duration.ofSeconds(10));
 * await().until(() -> queue.len() == 1);
 * }</pre>
 *
 * <p><b>Scheduled tasks</b> ({@link #schedule}) run on the thread that calls {@link #step}, before it
 * returns: once {@code step} returns, every task due at the new time has run, in the order of their
 * deadlines (tasks due at the same time in the order they were scheduled), and with the clock already at
 * the new time. A task that schedules another one already due (a zero delay) sees it run in the same step;
 * {@code step(Duration.ZERO)} runs what is due without moving time. A task's exception is thrown from
 * {@code step} after the other due tasks have run (further ones are added as suppressed).
 *
 * <p>Invariant: every thread blocked in {@link #awaitUntil} with a finite deadline is registered in
 * {@code waiters} from before it releases its lock until it returns, and {@link #step} signals, under the
 * waiter's own lock, every waiter whose deadline it reaches. A step therefore can never slip between a
 * waiter's reading of the time and its wait, and no wake-up is lost. Likewise a task is in {@code tasks}
 * from {@link #schedule} until a step takes it out to run it or {@link Scheduled#cancel} removes it, both
 * under {@code lock}, so a task runs at most once and never after a successful cancel.
 */
public final class FakeClock implements Clock {

    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by {@code lock}. */
    private long nanos;
    /** Guarded by {@code lock}. */
    private Instant wallTime;
    /** Guarded by {@code lock}: threads waiting for a finite deadline. */
    private final List<Waiter> waiters = new ArrayList<>();

    /** Guarded by {@code lock}: scheduled tasks not yet run nor cancelled, earliest deadline first. */
    private final PriorityQueue<Task> tasks = new PriorityQueue<>();
    /** Guarded by {@code lock}: orders tasks with equal deadlines by scheduling order. */
    private long scheduledSoFar;

    private record Waiter(Lock lock, Condition condition, long deadlineNanos) {}

    private final class Task implements Scheduled, Comparable<Task> {
        final long deadlineNanos;
        final long seq;
        final Runnable body;
        /** Guarded by {@code lock}: false once taken to run, or cancelled. */
        boolean pending = true;

        Task(long deadlineNanos, long seq, Runnable body) {
            this.deadlineNanos = deadlineNanos;
            this.seq = seq;
            this.body = body;
        }

        @Override
        public int compareTo(Task o) {
            int byTime = Long.compare(deadlineNanos - o.deadlineNanos, 0);
            return byTime != 0 ? byTime : Long.compare(seq, o.seq);
        }

        @Override
        public boolean cancel() {
            lock.lock();
            try {
                if (!pending) {
                    return false;
                }
                pending = false;
                tasks.remove(this);
                return true;
            } finally {
                lock.unlock();
            }
        }
    }

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

    /**
     * Moves time forward by {@code duration}, wakes every waiter whose deadline has now passed, and runs, on
     * this thread, every scheduled task that is now due.
     */
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
        runDueTasks();
    }

    /**
     * Runs {@code task} when a {@link #step} reaches {@code delay} from now, on the stepping thread (see the
     * class comment). A zero or negative delay makes the task due now: the next step, even by zero, runs it.
     */
    @Override
    public Scheduled schedule(Runnable task, Duration delay) {
        Objects.requireNonNull(task, "task");
        long delayNanos = Math.max(0, Nanos.saturated(delay));
        lock.lock();
        try {
            long deadline = nanos + delayNanos;
            if (deadline - nanos < 0) {
                deadline = nanos + Long.MAX_VALUE; // ~292 years: never, in a test
            }
            Task t = new Task(deadline, scheduledSoFar++, task);
            tasks.add(t);
            return t;
        } finally {
            lock.unlock();
        }
    }

    /** How many scheduled tasks wait for their time (not yet run, not cancelled). */
    public int scheduledCount() {
        lock.lock();
        try {
            return tasks.size();
        } finally {
            lock.unlock();
        }
    }

    /** Takes each due task out under the lock and runs it outside, so that a task may use this clock. */
    private void runDueTasks() {
        Throwable failure = null;
        while (true) {
            Task next;
            lock.lock();
            try {
                next = tasks.peek();
                if (next == null || next.deadlineNanos - nanos > 0) {
                    break;
                }
                tasks.poll();
                next.pending = false;
            } finally {
                lock.unlock();
            }
            try {
                next.body.run();
            } catch (Throwable e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure instanceof RuntimeException r) {
            throw r;
        }
        if (failure instanceof Error err) {
            throw err;
        }
        if (failure != null) {
            throw new IllegalStateException("a scheduled task failed", failure);
        }
    }

    /**
     * True while at least one thread waits on this clock for a finite deadline ({@link #awaitUntil}, {@link #sleep}).
     * Scheduled tasks are not waiters: see {@link #scheduledCount()}.
     */
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
