package io.kubeloop.cluster.internal.nodelifecycle;

import io.kubeloop.clock.Clock;
import io.kubeloop.controller.ManagedRunnable;
import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;

/**
 * Runs a body on one virtual thread of its own, one run at a time: every {@code period} on the clock (kube's
 * {@code wait.Until}, first run at start) and whenever {@link #request()} or {@link #requestAfter} asks. Requests that
 * arrive during a run make one more run afterwards, however many they were. The ticks are scheduled on the clock at a
 * fixed rate from the start, so a fake clock stepped by the period runs the body once per step.
 *
 * <p>The body's exceptions are logged and never end the loop (a controller that fails logs and retries).
 */
final class SerialLoop implements ManagedRunnable {

    private final String name;
    private final Clock clock;
    /** Null: runs only when asked. */
    private final Duration period;

    private final Runnable body;
    private final Logger log;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    /** Guarded by {@code lock}. */
    private boolean requested;
    /** Guarded by {@code lock}. */
    private boolean running;
    /** Guarded by {@code lock}: the body is running. */
    private boolean busy;
    /** Guarded by {@code lock}. */
    private long completedRuns;
    /** Guarded by {@code lock}. */
    private Clock.Scheduled tick;
    /** Guarded by {@code lock}: the earliest pending {@link #requestAfter} timer. */
    private Clock.Scheduled delayed;
    /** Guarded by {@code lock}. */
    private long delayedDeadline;
    /** Guarded by {@code lock}. */
    private Thread thread;

    SerialLoop(String name, Clock clock, Duration period, Runnable body, Logger log) {
        this.name = name;
        this.clock = clock;
        this.period = period;
        this.body = body;
        this.log = log;
    }

    @Override
    public void start() {
        lock.lock();
        try {
            if (running) {
                return;
            }
            running = true;
            requested = period != null;
            thread = Thread.ofVirtual().name(name).start(this::loop);
            if (period != null) {
                tick = clock.schedule(this::tick, period);
            }
        } finally {
            lock.unlock();
        }
    }

    private void tick() {
        lock.lock();
        try {
            if (!running) {
                return;
            }
            tick = clock.schedule(this::tick, period);
            requested = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Asks for a run as soon as the current one (if any) is done. */
    void request() {
        lock.lock();
        try {
            requested = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Asks for a run once {@code delay} has passed on the clock; only the earliest pending delayed request is kept. */
    void requestAfter(Duration delay) {
        if (delay.isZero() || delay.isNegative()) {
            request();
            return;
        }
        lock.lock();
        try {
            if (!running) {
                return;
            }
            long deadline = clock.nanoTime() + delay.toNanos();
            if (delayed != null && delayedDeadline - deadline <= 0) {
                return;
            }
            if (delayed != null) {
                delayed.cancel();
            }
            delayedDeadline = deadline;
            delayed = clock.schedule(
                    () -> {
                        lock.lock();
                        try {
                            delayed = null;
                        } finally {
                            lock.unlock();
                        }
                        request();
                    },
                    delay);
        } finally {
            lock.unlock();
        }
    }

    /** How many runs have completed (tests wait for a run after stepping the clock). */
    long completedRuns() {
        lock.lock();
        try {
            return completedRuns;
        } finally {
            lock.unlock();
        }
    }

    /** Whether no run is going on or asked for (a delayed request not yet due does not count). */
    boolean isIdle() {
        lock.lock();
        try {
            return !busy && !requested;
        } finally {
            lock.unlock();
        }
    }

    private void loop() {
        while (true) {
            lock.lock();
            try {
                while (!requested && running) {
                    changed.awaitUninterruptibly();
                }
                if (!running) {
                    return;
                }
                requested = false;
                busy = true;
            } finally {
                lock.unlock();
            }
            try {
                body.run();
            } catch (RuntimeException | Error e) {
                log.error("{} failed; it runs again at its next period", name, e);
            }
            lock.lock();
            try {
                completedRuns++;
                busy = false;
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    @Override
    public void stop(Duration timeout) throws InterruptedException {
        Thread t;
        lock.lock();
        try {
            if (!running) {
                return;
            }
            running = false;
            if (tick != null) {
                tick.cancel();
            }
            if (delayed != null) {
                delayed.cancel();
                delayed = null;
            }
            changed.signalAll();
            t = thread;
        } finally {
            lock.unlock();
        }
        if (!t.join(timeout)) {
            t.interrupt();
            t.join(Duration.ofSeconds(1));
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
