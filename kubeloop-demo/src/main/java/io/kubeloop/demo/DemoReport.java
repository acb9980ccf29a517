package io.kubeloop.demo;

import io.kubeloop.demo.internal.incident.ReportRenderer;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What a {@link Demo} run found: the faults it injected, every incident (a pod of the PodSet gone, deleted or
 * evicted) with the time of each stage of its recovery, the stages' percentiles, the operator's errors and retries,
 * the cache audit's drift, and the seed's metrics at the end. {@link #passed()} is true when the PodSet converged
 * with nothing lost: every incident's replacement Running, {@code replicas} pods Running and Ready, no drift.
 *
 * <p>Stage times are real time, in milliseconds, measured with the demo's clock: the operator's code runs at real
 * speed whatever the cluster's speed; only the cluster's timers (heartbeats, grace periods, tolerations) and the
 * scenario's schedule are compressed, and {@link Fault#at()} is cluster time since the scenario began.
 *
 * @param wallTime how long the whole run took, real time
 * @param reconcileErrors {@code controller_runtime_reconcile_errors_total} of pod-guardian, summed over both
 *     instances
 * @param retries {@code workqueue_retries_total} of pod-guardian, summed over both instances
 * @param cacheDrift objects that differed between the leader's caches (PodSets and Pods) and the server at the end
 * @param metrics the seed's metrics at the end, from the leader's registry: Prometheus series (name and labels, as
 *     {@code /metrics} writes them) → value
 * @param reason why the run did not pass; empty when it passed
 */
public record DemoReport(
        String scenario,
        long seed,
        double speed,
        int nodes,
        int replicas,
        Duration wallTime,
        List<Fault> faults,
        List<Incident> incidents,
        List<Stage> stages,
        long reconcileErrors,
        long retries,
        long cacheDrift,
        Map<String, Double> metrics,
        boolean passed,
        String reason) {

    public DemoReport {
        faults = List.copyOf(faults);
        incidents = List.copyOf(incidents);
        stages = List.copyOf(stages);
        metrics = Map.copyOf(metrics);
    }

    /**
     * A fault the scenario injected. {@code at} is cluster time since the scenario began; {@code fault} a short name
     * ({@code kill-pods}, {@code node-failure}, {@code network-cut}, {@code compaction}, {@code leader-kill},
     * {@code noisy-neighbour}, and the restores); {@code detail} what exactly (pods, node, duration).
     */
    public record Fault(Duration at, String fault, String detail) {}

    /**
     * One pod of the PodSet gone, and its recovery. Times are milliseconds after {@code t0} (the pod deleted, or seen
     * terminating by the demo's own watch when the cluster evicted it); null when the stage was never reached.
     *
     * @param at cluster time since the scenario began at t0
     * @param cause {@code killed} (the scenario deleted it), {@code evicted} (the node failed), {@code deleted}
     *     (anything else)
     * @param informerSawMs t1: the operator's pod informer delivered the deletion
     * @param reconcileStartedMs t2: the reconcile that created the replacement began
     * @param replacementCreatedMs t3: the server answered the replacement's create
     * @param replacementRunningMs t4: the replacement was Running and Ready
     */
    public record Incident(
            String pod,
            String node,
            String cause,
            Duration at,
            String replacement,
            Double informerSawMs,
            Double reconcileStartedMs,
            Double replacementCreatedMs,
            Double replacementRunningMs) {}

    /**
     * One stage over all the incidents that reached it: {@code gone→seen} (t1−t0), {@code seen→reconcile}
     * (t2−t1), {@code reconcile→created} (t3−t2), {@code created→running} (t4−t3), and the totals
     * {@code gone→created} (t3−t0) and {@code gone→running} (t4−t0); milliseconds. Percentiles are nearest-rank
     * (the smallest sample with at least p % of the samples at or below it); a stage no incident reached has
     * {@code count} 0 and NaN values (the text shows {@code —}, the JSON {@code null}).
     */
    public record Stage(String stage, int count, double p50Ms, double p95Ms, double p99Ms, double maxMs) {}

    /** The report for a person: the incidents, the stages' percentiles, faults, errors, drift, metrics, verdict. */
    public String toText() {
        return ReportRenderer.text(this);
    }

    /**
     * The report as one JSON object (what {@code kubeloop demo --report FILE} writes): every component under its own
     * name, durations ({@code wallTime}, {@code at}) in seconds as numbers, stage times in milliseconds, {@code null}
     * for an instant never reached and for NaN.
     */
    public String toJson() {
        return ReportRenderer.json(this);
    }
}
