package io.kubeloop.demo.internal.operator;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.Comparator;
import java.util.List;

/**
 * Which pods a PodSet deletes first when it has too many, after kube's ReplicaSet ({@code ActivePodsWithRanks},
 * reduced to what a PodSet needs): unscheduled before scheduled, then Pending before Running, then not ready
 * before ready, then the newest first (creation timestamp, then name, so the order is total and stable).
 */
final class ExcessPods {
    private ExcessPods() {}

    static final Comparator<Pod> DELETION_ORDER = Comparator.comparing(Pods::isScheduled)
            .thenComparing(pod -> phaseRank(Pods.phase(pod)))
            .thenComparing(Pods::isReady)
            .thenComparing((Pod pod) -> creation(pod), Comparator.nullsFirst(Comparator.<String>reverseOrder()))
            .thenComparing(pod -> pod.getMetadata().getName(), Comparator.reverseOrder());

    /** The {@code count} pods of {@code pods} to delete first. */
    static List<Pod> choose(List<Pod> pods, int count) {
        return pods.stream().sorted(DELETION_ORDER).limit(Math.max(0, count)).toList();
    }

    /** Pending (or no phase yet) before Unknown before Running, as kube's ranking. */
    private static int phaseRank(String phase) {
        if (phase == null || phase.equals("Pending")) {
            return 0;
        }
        return phase.equals("Unknown") ? 1 : 2;
    }

    /** RFC 3339 timestamps of one server compare as strings (fixed width, UTC). */
    private static String creation(Pod pod) {
        return pod.getMetadata().getCreationTimestamp();
    }
}
