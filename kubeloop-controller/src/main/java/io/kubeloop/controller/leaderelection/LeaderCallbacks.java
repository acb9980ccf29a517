package io.kubeloop.controller.leaderelection;

import java.util.Objects;

/**
 * What a {@link LeaderElector} tells its owner (client-go's {@code LeaderCallbacks}).
 *
 * <p>Contract:
 * <ul>
 *   <li>Callbacks run one at a time, in the order of the transitions, on a virtual thread of the elector's own
 *       ({@code kubeloop-leader-election-<lease>-callbacks}), never on the thread that renews the Lease: a slow
 *       callback never delays a renewal. It does delay the callbacks after it, so start work and return.</li>
 *   <li>Every {@link #onStartedLeading()} is followed by exactly one {@link #onStoppedLeading()}, and
 *       {@code onStoppedLeading} never comes without an {@code onStartedLeading} before it (unlike client-go, whose
 *       {@code OnStoppedLeading} also runs when the candidate never led). No transition is reported twice.</li>
 *   <li>By the time {@code onStoppedLeading} runs, {@link LeaderElector#isLeader()} is already false; it became
 *       false no later than the renew deadline after the last successful renewal, which is before any other candidate
 *       may take over (see {@link LeaderElectionConfig}).</li>
 *   <li>An exception thrown by a callback is logged and does not stop the elector.</li>
 * </ul>
 */
public interface LeaderCallbacks {

    /** This candidate now leads: start the work only a leader does. Return promptly. */
    void onStartedLeading();

    /**
     * This candidate no longer leads (the renew deadline passed, another candidate holds the Lease, or the elector
     * was stopped): stop the work only a leader does. The elector campaigns again afterwards unless it was stopped; it
     * never exits the process.
     */
    void onStoppedLeading();

    /**
     * The Lease's holder changed to {@code identity} (never empty; this candidate's own identity too, when it wins), as
     * client-go's {@code OnNewLeader}. Default: nothing.
     */
    default void onNewLeader(String identity) {}

    /** Callbacks from two actions: {@code started} on {@link #onStartedLeading()}, {@code stopped} on the stop. */
    static LeaderCallbacks of(Runnable started, Runnable stopped) {
        Objects.requireNonNull(started, "started");
        Objects.requireNonNull(stopped, "stopped");
        return new LeaderCallbacks() {
            @Override
            public void onStartedLeading() {
                started.run();
            }

            @Override
            public void onStoppedLeading() {
                stopped.run();
            }
        };
    }
}
