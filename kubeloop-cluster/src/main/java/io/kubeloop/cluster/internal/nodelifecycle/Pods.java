package io.kubeloop.cluster.internal.nodelifecycle;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.kubeloop.controller.ControllerClient;
import io.kubeloop.controller.Manager;
import io.kubeloop.informer.SharedIndexInformer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** The pods of a node (kube's {@code spec.nodeName} pod index) and kube's pod condition helper. */
final class Pods {

    /** The index kube-controller-manager's pod informer has (and its name), shared by the controllers that need it. */
    static final String NODE_INDEX = "spec.nodeName";

    private Pods() {}

    /** Adds the {@code spec.nodeName} index to the manager's pod informer unless a controller added it already. */
    static void indexByNode(Manager manager) {
        SharedIndexInformer<Pod> informer = manager.informerFactory().informerFor(Pod.class);
        if (!informer.indexer().indexers().containsKey(NODE_INDEX)) {
            informer.addIndexers(Map.of(NODE_INDEX, pod -> {
                String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
                return node == null || node.isEmpty() ? List.of() : List.of(node);
            }));
        }
    }

    /** The cached pods bound to {@code node}: read-only. */
    static List<Pod> onNode(ControllerClient client, String node) {
        return client.listByIndexReadOnly(Pod.class, "", NODE_INDEX, node);
    }

    static String nodeName(Pod pod) {
        return pod.getSpec() == null ? null : pod.getSpec().getNodeName();
    }

    static PodCondition condition(Pod pod, String type) {
        if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
            return null;
        }
        for (PodCondition c : pod.getStatus().getConditions()) {
            if (type.equals(c.getType())) {
                return c;
            }
        }
        return null;
    }

    /**
     * kube's {@code UpdatePodCondition}: sets {@code condition} in {@code status} (lastTransitionTime now, kept when the
     * status did not change) and says whether anything changed.
     */
    static boolean setCondition(PodStatus status, PodCondition condition, Instant now) {
        condition.setLastTransitionTime(NodeTaints.timestamp(now));
        List<PodCondition> conditions =
                status.getConditions() == null ? new ArrayList<>() : new ArrayList<>(status.getConditions());
        int index = -1;
        for (int i = 0; i < conditions.size(); i++) {
            if (Objects.equals(conditions.get(i).getType(), condition.getType())) {
                index = i;
                break;
            }
        }
        if (index < 0) {
            conditions.add(condition);
            status.setConditions(conditions);
            return true;
        }
        PodCondition old = conditions.get(index);
        if (Objects.equals(condition.getStatus(), old.getStatus())) {
            condition.setLastTransitionTime(old.getLastTransitionTime());
        }
        boolean equal = Objects.equals(condition.getStatus(), old.getStatus())
                && Objects.equals(condition.getReason(), old.getReason())
                && Objects.equals(condition.getMessage(), old.getMessage())
                && Objects.equals(condition.getLastProbeTime(), old.getLastProbeTime())
                && Objects.equals(condition.getLastTransitionTime(), old.getLastTransitionTime());
        conditions.set(index, condition);
        status.setConditions(conditions);
        return !equal;
    }

    /** A terminated pod: its phase is neither Pending, Running nor Unknown (kube's {@code isPodTerminated}). */
    static boolean isTerminated(Pod pod) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return phase != null && !phase.equals("Pending") && !phase.equals("Running") && !phase.equals("Unknown");
    }
}
