package io.kubeloop.demo.internal.view;

import java.time.Duration;
import java.util.List;

/**
 * One refresh of the live view: a snapshot the demo builds and {@link LiveView} draws.
 *
 * @param clusterTime cluster time since the scenario began
 * @param step the step in progress, or what the demo is waiting for ("converging", "node-2 failing: NotReady")
 * @param nodes one row per node
 * @param desired the PodSet's spec.replicas
 * @param ready its pods Running and Ready
 * @param queueDepth the leader's pod-guardian work queue depth ({@code workqueue_depth}), -1 when no leader
 * @param reconcilesPerSecond reconciles of pod-guardian per real second, over the last refresh interval
 * @param informerState the leader's pod informer: {@code watching}, {@code backing off}, {@code relisting}, …
 * @param leader the leader's identity, or {@code none}
 * @param openIncidents incidents whose replacement is not Running yet
 * @param faults the faults in force now ({@code network-cut 18s left}, {@code node-2 stopped})
 */
public record Frame(
        Duration clusterTime,
        String step,
        List<NodeRow> nodes,
        int desired,
        int ready,
        int queueDepth,
        double reconcilesPerSecond,
        String informerState,
        String leader,
        int openIncidents,
        List<String> faults) {

    public Frame {
        nodes = List.copyOf(nodes);
        faults = List.copyOf(faults);
    }

    /**
     * A node: {@code state} Ready, NotReady, Unknown (plus {@code ,SchedulingDisabled}); {@code pods} of the PodSet
     * on it not being deleted, of which {@code running} Running and Ready; {@code terminating} being deleted.
     */
    public record NodeRow(String name, String state, int pods, int running, int terminating) {}
}
