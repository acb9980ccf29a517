package io.kubeloop.demo.internal.scenario;

import java.time.Duration;
import java.util.Objects;

/**
 * One thing a scenario does, at a moment of cluster time after the scenario began.
 *
 * @param at cluster time since the scenario began; steps of a scenario are in {@code at} order
 * @param kind what to do
 * @param pods how many pods to kill ({@link Kind#KILL_PODS}, {@link Kind#NOISY_NEIGHBOUR}: killed while the writes
 *     go on); 0 for the other kinds
 * @param span cluster time the step lasts, for steps that begin something another step ends ({@link
 *     Kind#NETWORK_CUT} until its restore, {@link Kind#NODE_STOP} until its start, {@link Kind#NOISY_NEIGHBOUR}: how
 *     long the writers may go on); zero for the others
 */
public record Step(Duration at, Kind kind, int pods, Duration span) {

    /** The kinds of steps. */
    public enum Kind {
        /** Delete {@code pods} random pods of the PodSet with grace period 0. */
        KILL_PODS("kill-pods"),
        /** Stop the kubelet of the node that hosts most of the PodSet's pods. */
        NODE_STOP("node-failure"),
        /** Start the stopped node again (its Terminating pods finish). */
        NODE_START("node-restore"),
        /** Cut every operator instance's link to the API server. */
        NETWORK_CUT("network-cut"),
        /** Restore the links. */
        NETWORK_RESTORE("network-restore"),
        /** Compact the server's watch history and reset the links: watches resume at an expired version, 410. */
        COMPACT("compaction"),
        /** Kill the leader (link cut for good, manager closed without releasing the Lease); start a new standby. */
        LEADER_KILL("leader-kill"),
        /** ConfigMap writes in namespace {@code noisy} from 8 writers, {@code pods} pods killed meanwhile. */
        NOISY_NEIGHBOUR("noisy-neighbour");

        private final String faultName;

        Kind(String faultName) {
            this.faultName = faultName;
        }

        /** The name of the fault in the report and in the step lines. */
        public String faultName() {
            return faultName;
        }
    }

    public Step {
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(span, "span");
        if (at.isNegative() || span.isNegative() || pods < 0) {
            throw new IllegalArgumentException(
                    "a step needs at ≥ 0, span ≥ 0, pods ≥ 0: " + at + ", " + span + ", " + pods);
        }
    }

    static Step of(Duration at, Kind kind) {
        return new Step(at, kind, 0, Duration.ZERO);
    }

    static Step kill(Duration at, int pods) {
        return new Step(at, Kind.KILL_PODS, pods, Duration.ZERO);
    }

    /** The same step {@code offset} later. */
    Step shiftedBy(Duration offset) {
        return new Step(at.plus(offset), kind, pods, span);
    }

    @Override
    public String toString() {
        return "+" + at.toMillis() / 1000.0 + "s " + kind.faultName() + (pods > 0 ? " (" + pods + " pods)" : "")
                + (span.isZero() ? "" : " for " + span.toMillis() / 1000.0 + "s");
    }
}
