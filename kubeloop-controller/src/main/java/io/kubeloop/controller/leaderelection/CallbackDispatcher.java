package io.kubeloop.controller.leaderelection;

import io.kubeloop.clock.Clock;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;

/**
 * Runs one campaign's callbacks one at a time, in the order submitted, on a virtual thread of its own, so that a slow
 * callback never holds up the thread that renews the Lease.
 *
 * <p>Invariants: a callback submitted before {@link #close()} runs exactly once; none runs after the thread ends; an
 * exception from a callback is logged and the next one runs.
 */
final class CallbackDispatcher {

    private final Logger log;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    /** Guarded by {@code lock}. */
    private final Deque<Named> queue = new ArrayDeque<>();
    /** Guarded by {@code lock}: no more submissions; the thread ends once the queue is empty. */
    private boolean closed;
    /** Guarded by {@code lock}: the thread has run everything and ended. */
    private boolean finished;

    private final Thread thread;

    private record Named(String name, Runnable action) {}

    CallbackDispatcher(String threadName, Logger log) {
        this.log = log;
        this.thread = Thread.ofVirtual().name(threadName).start(this::run);
    }

    /** Queues {@code action}; false (and nothing queued) once closed. */
    boolean submit(String name, Runnable action) {
        lock.lock();
        try {
            if (closed) {
                return false;
            }
            queue.add(new Named(name, action));
            changed.signalAll();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** No more submissions; what is queued still runs. */
    void close() {
        lock.lock();
        try {
            closed = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    boolean isDispatcherThread() {
        return Thread.currentThread() == thread;
    }

    /** Waits until everything queued before {@link #close()} has run, at most until {@code deadlineNanos} on {@code clock}. */
    boolean awaitFinished(Clock clock, long deadlineNanos) throws InterruptedException {
        lock.lock();
        try {
            while (!finished && deadlineNanos - clock.nanoTime() > 0) {
                clock.awaitUntil(lock, changed, deadlineNanos);
            }
            return finished;
        } finally {
            lock.unlock();
        }
    }

    private void run() {
        while (true) {
            Named next;
            lock.lock();
            try {
                while (queue.isEmpty() && !closed) {
                    changed.awaitUninterruptibly();
                }
                next = queue.poll();
                if (next == null) {
                    finished = true;
                    changed.signalAll();
                    return;
                }
            } finally {
                lock.unlock();
            }
            try {
                next.action().run();
            } catch (RuntimeException | Error e) {
                log.error("leader election callback {} failed; the elector goes on", next.name(), e);
            }
        }
    }
}
