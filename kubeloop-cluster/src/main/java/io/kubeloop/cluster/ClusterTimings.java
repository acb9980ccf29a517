package io.kubeloop.cluster;

import java.time.Duration;
import java.util.Objects;

/**
 * The timers of the embedded cluster, in cluster time, with Kubernetes' defaults (kubelet, kube-controller-manager,
 * kube-apiserver's DefaultTolerationSeconds admission), and the speed at which cluster time runs.
 *
 * <p>Invariant: components never schedule a cluster duration on the clock directly; they schedule {@link
 * #wall(Duration)} of it. At speed 1 (the default) cluster time is clock time; at speed 10 a node failure's whole
 * timeline (50 s to NotReady, 300 s to eviction) plays in 35 s of clock time, while the objects keep the real values
 * ({@code leaseDurationSeconds: 40}, {@code tolerationSeconds: 300}).
 *
 * @param speed how many seconds of cluster time pass per second of clock time; &gt; 0
 * @param nodeLeaseDuration the kubelet's Lease duration ({@code nodeLeaseDurationSeconds}, 40 s)
 * @param nodeLeaseRenewInterval how often the kubelet renews its Lease (0.25 × the duration, 10 s)
 * @param nodeStatusUpdateFrequency how often the kubelet computes node status and posts it if it changed (10 s)
 * @param nodeStatusReportFrequency how often the kubelet posts node status even if unchanged (5 min)
 * @param nodeMonitorPeriod how often the node lifecycle controller checks nodes ({@code --node-monitor-period}, 5 s)
 * @param nodeMonitorGracePeriod how long without a heartbeat before a node is Unknown (50 s since 1.32)
 * @param nodeStartupGracePeriod the grace period of a node that never posted status ({@code 60 s})
 * @param nodeEvictionRate nodes per second of cluster time whose pods are evicted in a healthy zone (0.1)
 * @param secondaryNodeEvictionRate the same in a partially disrupted zone (0.01)
 * @param defaultTolerationSeconds the {@code tolerationSeconds} admission gives pods for the not-ready and
 *     unreachable NoExecute taints (300)
 */
public record ClusterTimings(
        double speed,
        Duration nodeLeaseDuration,
        Duration nodeLeaseRenewInterval,
        Duration nodeStatusUpdateFrequency,
        Duration nodeStatusReportFrequency,
        Duration nodeMonitorPeriod,
        Duration nodeMonitorGracePeriod,
        Duration nodeStartupGracePeriod,
        double nodeEvictionRate,
        double secondaryNodeEvictionRate,
        long defaultTolerationSeconds) {

    /** Kubernetes 1.32's defaults at speed 1. */
    public static final ClusterTimings DEFAULTS = new ClusterTimings(
            1.0,
            Duration.ofSeconds(40),
            Duration.ofSeconds(10),
            Duration.ofSeconds(10),
            Duration.ofMinutes(5),
            Duration.ofSeconds(5),
            Duration.ofSeconds(50),
            Duration.ofSeconds(60),
            0.1,
            0.01,
            300);

    public ClusterTimings {
        if (!(speed > 0) || Double.isInfinite(speed)) {
            throw new IllegalArgumentException("speed must be a positive number, was " + speed);
        }
        positive(nodeLeaseDuration, "nodeLeaseDuration");
        positive(nodeLeaseRenewInterval, "nodeLeaseRenewInterval");
        positive(nodeStatusUpdateFrequency, "nodeStatusUpdateFrequency");
        positive(nodeStatusReportFrequency, "nodeStatusReportFrequency");
        positive(nodeMonitorPeriod, "nodeMonitorPeriod");
        positive(nodeMonitorGracePeriod, "nodeMonitorGracePeriod");
        positive(nodeStartupGracePeriod, "nodeStartupGracePeriod");
        if (!(nodeEvictionRate > 0) || !(secondaryNodeEvictionRate >= 0)) {
            throw new IllegalArgumentException("eviction rates must be positive (the secondary one may be 0), were "
                    + nodeEvictionRate + " and " + secondaryNodeEvictionRate);
        }
        if (defaultTolerationSeconds < 0) {
            throw new IllegalArgumentException(
                    "defaultTolerationSeconds must not be negative, was " + defaultTolerationSeconds);
        }
    }

    /** These timings at another speed. */
    public ClusterTimings withSpeed(double newSpeed) {
        return new ClusterTimings(
                newSpeed,
                nodeLeaseDuration,
                nodeLeaseRenewInterval,
                nodeStatusUpdateFrequency,
                nodeStatusReportFrequency,
                nodeMonitorPeriod,
                nodeMonitorGracePeriod,
                nodeStartupGracePeriod,
                nodeEvictionRate,
                secondaryNodeEvictionRate,
                defaultTolerationSeconds);
    }

    /** The clock time a cluster-time duration takes: {@code clusterTime / speed}, at least 1 ns unless zero. */
    public Duration wall(Duration clusterTime) {
        Objects.requireNonNull(clusterTime, "clusterTime");
        if (clusterTime.isZero() || clusterTime.isNegative() || speed == 1.0) {
            return clusterTime.isNegative() ? Duration.ZERO : clusterTime;
        }
        double nanos = clusterTime.toNanos() / speed;
        return Duration.ofNanos(Math.max(1, (long) nanos));
    }

    /** {@link #wall(Duration)} of a number of cluster seconds (a field such as {@code tolerationSeconds}). */
    public Duration wallSeconds(long clusterSeconds) {
        return wall(Duration.ofSeconds(clusterSeconds));
    }

    /** A rate per second of cluster time as a rate per second of clock time. */
    public double wallRate(double perClusterSecond) {
        return perClusterSecond * speed;
    }

    private static void positive(Duration d, String name) {
        Objects.requireNonNull(d, name);
        if (d.isZero() || d.isNegative()) {
            throw new IllegalArgumentException(name + " must be positive, was " + d);
        }
    }
}
