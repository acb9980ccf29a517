package io.kubeloop.controller;

import java.time.Duration;

/**
 * Something a {@link Manager} starts and stops with itself (controller-runtime's {@code manager.Runnable}):
 * controllers are runnables, and so is anything a user adds with {@link Manager#add}.
 *
 * <p>Contract: {@link #start()} returns promptly (the work runs on the runnable's own threads); {@link #stop} ends
 * that work within the timeout; a runnable that {@link #needsLeaderElection() needs leader election} may be
 * started again after a stop, when its manager wins the lease again.
 */
public interface ManagedRunnable {

    /** Starts the work; returns once it runs. Called after the manager's caches have synced. */
    void start() throws Exception;

    /** Stops the work, letting what is in flight finish for at most {@code timeout}. Idempotent. */
    void stop(Duration timeout) throws InterruptedException;

    /** Whether this runs only while the manager holds the leader lease (default {@code true}, as controller-runtime). */
    default boolean needsLeaderElection() {
        return true;
    }

    /**
     * Null while this runnable works; otherwise why it does not (e.g. "1 of 2 workers died"), which fails the
     * manager's liveness probe ({@code /healthz}) so that Kubernetes restarts the pod. Must return quickly.
     */
    default String healthProblem() {
        return null;
    }
}
