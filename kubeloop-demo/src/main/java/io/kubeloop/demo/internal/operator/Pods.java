package io.kubeloop.demo.internal.operator;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.util.List;

/** What the operator asks of a pod: whether it counts (active) and whether it serves (ready). */
final class Pods {
    private Pods() {}

    /**
     * Active: not being deleted (no {@code deletionTimestamp}) and not finished (neither {@code Succeeded} nor
     * {@code Failed}) — the pods a ReplicaSet counts. A terminating pod is replaced at once.
     */
    static boolean isActive(Pod pod) {
        if (pod.getMetadata().getDeletionTimestamp() != null) {
            return false;
        }
        String phase = phase(pod);
        return !"Succeeded".equals(phase) && !"Failed".equals(phase);
    }

    /** Ready: phase {@code Running} and condition {@code Ready=True}. */
    static boolean isReady(Pod pod) {
        if (!"Running".equals(phase(pod))) {
            return false;
        }
        List<PodCondition> conditions = pod.getStatus().getConditions() == null
                ? List.of()
                : pod.getStatus().getConditions();
        return conditions.stream().anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    /** Whether the pod is bound to a node. */
    static boolean isScheduled(Pod pod) {
        return pod.getSpec() != null
                && pod.getSpec().getNodeName() != null
                && !pod.getSpec().getNodeName().isEmpty();
    }

    static String phase(Pod pod) {
        return pod.getStatus() == null ? null : pod.getStatus().getPhase();
    }

    static String nodeName(Pod pod) {
        return isScheduled(pod) ? pod.getSpec().getNodeName() : "";
    }
}
