package io.kubeloop.demo.internal.incident;

import io.kubeloop.clock.Clock;
import io.kubeloop.demo.DemoReport;
import io.kubeloop.demo.PodGuardian;
import java.util.List;

/**
 * Follows every incident of a demo — a pod of the PodSet gone — through its five instants: t0 gone, t1 the
 * operator's informer saw it, t2 the reconcile that replaced it began, t3 the replacement created, t4 the replacement
 * Running. Reports arrive from several threads in any order (the operator may see an eviction before the demo's own
 * watch does); t0 is the earliest report of the pod gone, from whichever source. Thread-safe.
 */
public final class IncidentTracker {

    /**
     * @param startNanos {@code clock.nanoTime()} when the scenario began (incidents' {@code at} counts from it)
     * @param speed the cluster's speed: {@code at} is cluster time, real elapsed time × speed
     */
    public IncidentTracker(Clock clock, long startNanos, double speed) {
        throw new UnsupportedOperationException("issue 19, work package 'report'");
    }

    /** t0: pod {@code podUid} of PodSet {@code podSet} gone ({@code cause}: killed, evicted, deleted). */
    public void podGone(
            String namespace, String pod, String podUid, String podSet, String node, String cause, long nanoTime) {
        throw new UnsupportedOperationException();
    }

    /** The hooks of operator instance {@code instance}: t1, and t2/t3 for the pods its reconciles create. */
    public PodGuardian.Listener listenerFor(String instance) {
        throw new UnsupportedOperationException();
    }

    /** t4: pod {@code pod} is Running and Ready (called for every pod that becomes so; others are ignored). */
    public void podRunning(String namespace, String pod, long nanoTime) {
        throw new UnsupportedOperationException();
    }

    /** Incidents whose replacement is not Running yet. */
    public int open() {
        throw new UnsupportedOperationException();
    }

    /** Every incident so far, in t0 order. */
    public List<DemoReport.Incident> incidents() {
        throw new UnsupportedOperationException();
    }

    /** The stages' percentiles over {@link #incidents()}, in the order {@link DemoReport.Stage} lists them. */
    public List<DemoReport.Stage> stages() {
        throw new UnsupportedOperationException();
    }
}
