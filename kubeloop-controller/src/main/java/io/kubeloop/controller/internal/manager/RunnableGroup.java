package io.kubeloop.controller.internal.manager;

import io.kubeloop.clock.Clock;
import io.kubeloop.controller.ManagedRunnable;
import io.kubeloop.controller.Manager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runnables started and stopped together: the manager's "others" (no leader election) and its leader runnables.
 * Started in the order added, stopped in reverse within one shared budget. A runnable added while the group runs is
 * started at once. A runnable whose {@code start} throws is logged, remembered and reported by {@link #problems()}
 * (the manager's liveness), and does not keep the others from starting. The group can be started again after a
 * stop (leader runnables, after a lost and regained lease). Thread-safe; start and stop are serialized.
 */
public final class RunnableGroup {

    private static final Logger log = LoggerFactory.getLogger(Manager.class);

    private final String what;
    private final Clock clock;
    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by {@code lock}. */
    private final List<ManagedRunnable> runnables = new ArrayList<>();
    /** Guarded by {@code lock}: the runnables started and not stopped since, in start order. */
    private final List<ManagedRunnable> started = new ArrayList<>();
    /** Guarded by {@code lock}: runnables whose last start failed, with the reason. */
    private final Map<ManagedRunnable, String> failed = new LinkedHashMap<>();
    /** Guarded by {@code lock}. */
    private boolean running;

    public RunnableGroup(String what, Clock clock) {
        this.what = what;
        this.clock = clock;
    }

    /** Adds a runnable; starts it if the group runs. */
    public void add(ManagedRunnable runnable) {
        lock.lock();
        try {
            runnables.add(runnable);
            if (running) {
                startOne(runnable);
            }
        } finally {
            lock.unlock();
        }
    }

    public void start() {
        lock.lock();
        try {
            if (running) {
                return;
            }
            running = true;
            for (ManagedRunnable r : runnables) {
                startOne(r);
            }
        } finally {
            lock.unlock();
        }
    }

    private void startOne(ManagedRunnable r) {
        try {
            r.start();
            started.add(r);
            failed.remove(r);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failed.put(r, "start interrupted");
        } catch (Exception | Error e) {
            failed.put(r, "start failed: " + e);
            log.error("manager: {} runnable {} failed to start", what, r, e);
        }
    }

    /**
     * Stops what was started, in reverse order, each with what is left of {@code budget}; returns when all have
     * returned or the budget is spent (a runnable that overruns is logged and still asked to stop).
     */
    public void stop(Duration budget) {
        lock.lock();
        try {
            running = false;
            long deadline = clock.nanoTime() + budget.toNanos();
            List<ManagedRunnable> reversed = new ArrayList<>(started);
            Collections.reverse(reversed);
            started.clear();
            for (ManagedRunnable r : reversed) {
                Duration left = Duration.ofNanos(Math.max(0, deadline - clock.nanoTime()));
                try {
                    r.stop(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    log.warn("manager: interrupted while stopping {} runnable {}", what, r);
                } catch (RuntimeException | Error e) {
                    log.error("manager: {} runnable {} failed to stop", what, r, e);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Every runnable added, in order. */
    public List<ManagedRunnable> runnables() {
        lock.lock();
        try {
            return List.copyOf(runnables);
        } finally {
            lock.unlock();
        }
    }

    public boolean isRunning() {
        lock.lock();
        try {
            return running;
        } finally {
            lock.unlock();
        }
    }

    /** Why runnables of this group are not healthy: failed starts and their own reports; empty when all are. */
    public List<String> problems() {
        List<ManagedRunnable> all;
        List<String> problems = new ArrayList<>();
        lock.lock();
        try {
            failed.forEach((r, reason) -> problems.add(r + ": " + reason));
            all = running ? List.copyOf(started) : List.of();
        } finally {
            lock.unlock();
        }
        for (ManagedRunnable r : all) {
            String p = r.healthProblem();
            if (p != null) {
                problems.add(r + ": " + p);
            }
        }
        return problems;
    }
}
