package io.kubeloop.controller.internal.manager;

/**
 * What the manager needs of a leader elector: campaign on its own thread (and again after a loss), release on stop.
 * Kept as an interface so that the manager's leader logic (start leader runnables on a win, stop them on a loss,
 * keep caches warm) does not depend on how the lease is held.
 */
public interface Elector {

    /** Starts campaigning; returns at once. */
    void start();

    /** Stops campaigning and releases the lease if held; returns when done. */
    void stop();

    boolean isLeader();

    /** The current leader's identity as last observed, or null. */
    String leaderIdentity();

    /** This candidate's identity. */
    String identity();

    /**
     * Null while the elector works; otherwise why it is wedged (it claims leadership but has not renewed within the
     * renew deadline), which fails liveness.
     */
    default String healthProblem() {
        return null;
    }

    /** What the elector tells the manager; called on the elector's thread, must not block for long. */
    interface Listener {
        void startedLeading();

        void stoppedLeading();

        void newLeader(String identity);
    }
}
