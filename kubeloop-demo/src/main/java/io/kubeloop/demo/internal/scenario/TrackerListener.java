package io.kubeloop.demo.internal.scenario;

import io.kubeloop.demo.PodGuardian;

/**
 * The listener an operator instance is built with, forwarding to the incident tracker's listener for that instance
 * once the scenario began ({@link #attach}); before that (the initial pods, the operator's start) it drops the calls,
 * so that the report counts only the scenario's incidents.
 */
final class TrackerListener implements PodGuardian.Listener {

    private volatile PodGuardian.Listener target;

    void attach(PodGuardian.Listener target) {
        this.target = target;
    }

    @Override
    public void podDeletionSeen(String namespace, String podSet, String pod, String podUid, long nanoTime) {
        PodGuardian.Listener t = target;
        if (t != null) {
            t.podDeletionSeen(namespace, podSet, pod, podUid, nanoTime);
        }
    }

    @Override
    public void podCreated(String namespace, String podSet, String pod, long reconcileStartNanos, long createdNanos) {
        PodGuardian.Listener t = target;
        if (t != null) {
            t.podCreated(namespace, podSet, pod, reconcileStartNanos, createdNanos);
        }
    }
}
