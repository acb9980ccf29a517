package io.kubeloop.cluster.internal.scheduler;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One node as the scheduler sees it (kube-scheduler's {@code NodeInfo}): what the Node object offers, parsed once per
 * change of the object, and the sums of what the pods bound or assumed to it ask.
 *
 * <p>Invariant: the sums ({@code requested*}, {@code nonZero*}, {@code podCount}, {@code usedPorts},
 * {@code ownerCounts}) are exactly those of the {@link SchedulerCache}'s pod entries on this node; only the cache
 * changes them, under its lock. {@code node} is null while pods are bound to a node the scheduler has not seen (or
 * that was deleted): such a NodeInfo is never a candidate.
 */
final class NodeInfo {

    static final String ZONE_LABEL = "topology.kubernetes.io/zone";
    static final String NOT_READY_TAINT = "node.kubernetes.io/not-ready";
    static final String UNREACHABLE_TAINT = "node.kubernetes.io/unreachable";
    static final String UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable";

    final String name;
    Node node;

    // ---- from the Node object
    long allocatableMilliCpu;
    long allocatableMemory;
    long allocatableEphemeralStorage;
    long allocatablePods;
    Map<String, Long> allocatableScalar = Map.of();
    Map<String, String> labels = Map.of();
    /** The node's NoSchedule and NoExecute taints, then the one its Ready condition implies (see {@link #setNode}). */
    List<Taint> filterTaints = List.of();

    List<Taint> preferNoScheduleTaints = List.of();
    boolean unschedulable;
    /** The zone label, or the node's own name when it has none (each such node is a zone of its own). */
    String zone;

    // ---- sums of the pods bound or assumed here
    long requestedMilliCpu;
    long requestedMemory;
    long requestedEphemeralStorage;
    final Map<String, Long> requestedScalar = new HashMap<>(2);
    long nonZeroMilliCpu;
    long nonZeroMemory;
    int podCount;
    final List<PodDemand.HostPort> usedPorts = new ArrayList<>(0);
    /** Pods per controlling owner uid. */
    final Map<String, Integer> ownerCounts = new HashMap<>();

    NodeInfo(String name) {
        this.name = name;
        this.zone = "node:" + name;
    }

    /**
     * Takes the Node object's allocatable, labels, taints and readiness. A Ready condition that is not True counts as
     * the NoSchedule taint kube's node lifecycle controller would add for it ({@code TaintNodesByCondition}):
     * {@code node.kubernetes.io/not-ready} for False or a missing condition, {@code node.kubernetes.io/unreachable}
     * for Unknown — unless the node carries that taint already. The message and the tolerations that let a pod
     * through are then the same before and after the controller has caught up.
     */
    void setNode(Node n) {
        this.node = n;
        Map<String, Quantity> alloc =
                n.getStatus() == null ? null : n.getStatus().getAllocatable();
        allocatableMilliCpu = 0;
        allocatableMemory = 0;
        allocatableEphemeralStorage = 0;
        allocatablePods = 0;
        Map<String, Long> scalar = new HashMap<>(2);
        if (alloc != null) {
            for (Map.Entry<String, Quantity> e : alloc.entrySet()) {
                switch (e.getKey()) {
                    case PodDemand.CPU -> allocatableMilliCpu = PodDemand.milli(e.getValue());
                    case PodDemand.MEMORY -> allocatableMemory = PodDemand.value(e.getValue());
                    case PodDemand.EPHEMERAL_STORAGE -> allocatableEphemeralStorage = PodDemand.value(e.getValue());
                    case PodDemand.PODS -> allocatablePods = PodDemand.value(e.getValue());
                    default -> {
                        if (PodDemand.isScalar(e.getKey())) {
                            scalar.put(e.getKey(), PodDemand.value(e.getValue()));
                        }
                    }
                }
            }
        }
        allocatableScalar = scalar;
        labels =
                n.getMetadata().getLabels() == null ? Map.of() : n.getMetadata().getLabels();
        String z = labels.get(ZONE_LABEL);
        zone = z == null || z.isEmpty() ? "node:" + name : "zone:" + z;
        unschedulable = n.getSpec() != null && Boolean.TRUE.equals(n.getSpec().getUnschedulable());
        List<Taint> filter = new ArrayList<>(2);
        List<Taint> prefer = new ArrayList<>(0);
        List<Taint> taints = n.getSpec() == null || n.getSpec().getTaints() == null
                ? List.of()
                : n.getSpec().getTaints();
        for (Taint t : taints) {
            if ("NoSchedule".equals(t.getEffect()) || "NoExecute".equals(t.getEffect())) {
                filter.add(t);
            } else if ("PreferNoSchedule".equals(t.getEffect())) {
                prefer.add(t);
            }
        }
        String implied = impliedTaintKey(n);
        if (implied != null
                && taints.stream().noneMatch(t -> implied.equals(t.getKey()) && "NoSchedule".equals(t.getEffect()))) {
            Taint t = new Taint();
            t.setKey(implied);
            t.setEffect("NoSchedule");
            filter.add(t);
        }
        filterTaints = List.copyOf(filter);
        preferNoScheduleTaints = List.copyOf(prefer);
    }

    private static String impliedTaintKey(Node n) {
        List<NodeCondition> conditions =
                n.getStatus() == null ? null : n.getStatus().getConditions();
        if (conditions != null) {
            for (NodeCondition c : conditions) {
                if ("Ready".equals(c.getType())) {
                    return switch (c.getStatus() == null ? "" : c.getStatus()) {
                        case "True" -> null;
                        case "Unknown" -> UNREACHABLE_TAINT;
                        default -> NOT_READY_TAINT;
                    };
                }
            }
        }
        return NOT_READY_TAINT;
    }

    void add(PodDemand d, int sign) {
        requestedMilliCpu += sign * d.milliCpu();
        requestedMemory += sign * d.memory();
        requestedEphemeralStorage += sign * d.ephemeralStorage();
        d.scalar().forEach((k, v) -> requestedScalar.merge(k, sign * v, (a, b) -> a + b == 0 ? null : a + b));
        nonZeroMilliCpu += sign * d.nonZeroMilliCpu();
        nonZeroMemory += sign * d.nonZeroMemory();
        podCount += sign;
        if (sign > 0) {
            usedPorts.addAll(d.hostPorts());
        } else {
            d.hostPorts().forEach(usedPorts::remove);
        }
        if (d.ownerUid() != null) {
            ownerCounts.merge(d.ownerUid(), sign, (a, b) -> a + b == 0 ? null : a + b);
        }
    }

    int ownerCount(String ownerUid) {
        return ownerUid == null ? 0 : ownerCounts.getOrDefault(ownerUid, 0);
    }

    boolean isEmpty() {
        return podCount == 0;
    }
}
