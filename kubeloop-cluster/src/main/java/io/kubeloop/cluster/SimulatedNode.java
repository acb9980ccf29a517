package io.kubeloop.cluster;

import java.time.Duration;

/**
 * One node of the embedded cluster and the kubelet simulated for it. The Node object is the API's; this is the
 * machine behind it, which a test or the {@code kubeloop node} command can break.
 *
 * <p>A stopped kubelet neither renews the node's Lease nor posts status nor acts on its pods (a graceful deletion
 * waits, so evicted pods stay Terminating, as on a real cluster with a dead node); started again, it registers,
 * posts status and catches up with what happened meanwhile. A partitioned node keeps running its pods but reaches
 * the API server no more, until the partition ends.
 */
public interface SimulatedNode {

    /** What the node's kubelet is doing. */
    enum State {
        /** Heartbeats, status and pods are handled. */
        RUNNING,
        /** The kubelet is stopped: nothing is sent, nothing is acted on. */
        STOPPED,
        /** The kubelet runs but cannot reach the API server. */
        PARTITIONED
    }

    /** The Node's name ({@code node-1}, …). */
    String name();

    /** The node's {@code topology.kubernetes.io/zone}. */
    String zone();

    State state();

    /** Stops the kubelet (heartbeats stop → NotReady → taints → eviction). Idempotent. */
    void stop();

    /** Starts a stopped or partitioned kubelet again. Idempotent. */
    void start();

    /**
     * Cuts the node off from the API server for a duration of cluster time (then it reconnects by itself), or until
     * {@link #start()}.
     */
    void partition(Duration clusterTime);
}
