package io.kubeloop.cluster.internal.scheduler;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Taint;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The scheduler's view of the cluster and its decisions (kube-scheduler's cache, snapshot and {@code schedulePod}
 * in one): the nodes, what the pods bound or <em>assumed</em> to each node ask, and the filter and score steps that
 * pick a node for a pod.
 *
 * <p>Assume: a decision counts the pod on its node at once, before the binding is sent, so the next decision — made
 * microseconds later, long before the informer reports the binding — sees it; {@link #forget} takes it back when
 * the binding fails. An assumed entry becomes a bound one when the informer shows the pod on a node, and disappears
 * when the pod is deleted or ends. Many pods decided at once therefore never overcommit a node.
 *
 * <p>Invariants, all under {@code lock}: a pod uid has at most one entry in {@code pods}; every entry is counted in
 * exactly one NodeInfo, the one it names; an update that shows a pod <em>unbound</em> never removes an assumed
 * entry (it is an older state of a pod whose binding is in flight). Events are applied with "set" semantics, so
 * replaying a state (a controller restart, the {@link #seed}) is harmless.
 */
final class SchedulerCache {

    /** kube-scheduler's {@code minFeasibleNodesToFind}. */
    static final int MIN_FEASIBLE_NODES_TO_FIND = 100;
    /** kube-scheduler's {@code minFeasibleNodesPercentageToFind}. */
    static final int MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5;

    static final String NO_NODES = "no nodes available to schedule pods";
    static final String NOT_HELPFUL = "Preemption is not helpful for scheduling";
    static final String NO_VICTIMS = "No preemption victims found for incoming pod";

    /** A pod whose requests count on a node. */
    private record PodEntry(String uid, String nodeName, PodDemand demand, PodSpec spec, boolean assumed) {}

    /** The outcome of {@link #schedule}. */
    sealed interface Decision {
        /** The pod is assumed on {@code node}; bind it there. */
        record Fit(String node) implements Decision {}

        /** No node fits; {@code message} is kube-scheduler's. */
        record Unfit(String message) implements Decision {}

        /** The pod is already bound or assumed (a binding is in flight). */
        record AlreadyPlaced() implements Decision {}
    }

    /** Why one node does not fit: the filter's reasons, and whether preemption could change that. */
    private record Rejection(List<String> reasons, boolean resolvable) {}

    private final ReentrantLock lock = new ReentrantLock();
    /** By node name; includes NodeInfos without a Node object that still count pods. */
    private final Map<String, NodeInfo> nodes = new HashMap<>();
    /** By pod uid. */
    private final Map<String, PodEntry> pods = new HashMap<>();
    /** The NodeInfos with a Node object, by name; null when the set changed and it must be rebuilt. */
    private NodeInfo[] candidates;
    /** Where the next decision starts looking, so that a partial search visits every node in turn (kube's rule). */
    private int nextStartNodeIndex;

    // ---- events --------------------------------------------------------------------------------------------------

    void nodeChanged(Node node) {
        String name = node.getMetadata().getName();
        lock.lock();
        try {
            NodeInfo info = nodes.computeIfAbsent(name, NodeInfo::new);
            if (info.node == null) {
                candidates = null;
            }
            info.setNode(node);
        } finally {
            lock.unlock();
        }
    }

    void nodeDeleted(Node node) {
        String name = node.getMetadata().getName();
        lock.lock();
        try {
            NodeInfo info = nodes.get(name);
            if (info == null) {
                return;
            }
            info.node = null;
            candidates = null;
            if (info.isEmpty()) {
                nodes.remove(name);
            }
        } finally {
            lock.unlock();
        }
    }

    void podChanged(Pod pod) {
        String uid = pod.getMetadata().getUid();
        if (uid == null) {
            return;
        }
        String nodeName = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
        boolean bound = nodeName != null && !nodeName.isEmpty();
        boolean terminal = isTerminal(pod);
        lock.lock();
        try {
            PodEntry old = pods.get(uid);
            if (!bound || terminal) {
                if (old != null && (terminal || !old.assumed())) {
                    remove(old);
                }
                return;
            }
            if (old != null && !old.assumed() && old.nodeName().equals(nodeName) && old.spec() == pod.getSpec()) {
                return; // a status update: nothing the scheduler counts changed
            }
            if (old != null) {
                remove(old);
            }
            add(new PodEntry(uid, nodeName, PodDemand.of(pod), pod.getSpec(), false));
        } finally {
            lock.unlock();
        }
    }

    void podDeleted(Pod pod) {
        String uid = pod.getMetadata().getUid();
        if (uid == null) {
            return;
        }
        lock.lock();
        try {
            PodEntry old = pods.get(uid);
            if (old != null) {
                remove(old);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Applies the informers' current state (idempotent; see the class comment). */
    void seed(List<Node> allNodes, List<Pod> allPods) {
        allNodes.forEach(this::nodeChanged);
        allPods.forEach(this::podChanged);
    }

    /** Takes back an assumption whose binding failed; a bound entry (the informer saw the pod bound) stays. */
    void forget(String uid) {
        lock.lock();
        try {
            PodEntry old = pods.get(uid);
            if (old != null && old.assumed()) {
                remove(old);
            }
        } finally {
            lock.unlock();
        }
    }

    boolean isPlaced(String uid) {
        lock.lock();
        try {
            return pods.containsKey(uid);
        } finally {
            lock.unlock();
        }
    }

    private void add(PodEntry e) {
        pods.put(e.uid(), e);
        nodes.computeIfAbsent(e.nodeName(), NodeInfo::new).add(e.demand(), 1);
    }

    private void remove(PodEntry e) {
        pods.remove(e.uid());
        NodeInfo info = nodes.get(e.nodeName());
        if (info == null) {
            return;
        }
        info.add(e.demand(), -1);
        if (info.node == null && info.isEmpty()) {
            nodes.remove(e.nodeName());
        }
    }

    static boolean isTerminal(Pod pod) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return "Succeeded".equals(phase) || "Failed".equals(phase);
    }

    // ---- decisions -----------------------------------------------------------------------------------------------

    /**
     * Picks a node for {@code pod} and assumes the pod there, or says why none fits. Filters (kube-scheduler's
     * default profile, in its order; a node fails at the first that rejects it): NodeUnschedulable, TaintToleration,
     * NodeAffinity (nodeSelector and required terms), NodePorts, NodeResourcesFit. Score (lexicographic, then the
     * node name, so decisions are deterministic): fewest PreferNoSchedule taints the pod does not tolerate; fewest
     * pods of the same controlling owner on the node plus in its zone; the most free CPU and memory after placing
     * the pod (kube's LeastAllocated, with its non-zero request defaults).
     */
    Decision schedule(Pod pod) {
        PodDemand demand = PodDemand.of(pod);
        String uid = pod.getMetadata().getUid();
        lock.lock();
        try {
            if (uid != null && pods.containsKey(uid)) {
                return new Decision.AlreadyPlaced();
            }
            NodeInfo[] all = candidates();
            int n = all.length;
            if (n == 0) {
                return new Decision.Unfit(NO_NODES);
            }
            int toFind = numFeasibleNodesToFind(n);
            List<NodeInfo> feasible = new ArrayList<>(Math.min(n, toFind));
            Map<String, Integer> reasons = new HashMap<>();
            Map<String, Integer> preemption = new HashMap<>();
            int start = nextStartNodeIndex % n;
            int processed = 0;
            for (int i = 0; i < n && feasible.size() < toFind; i++) {
                NodeInfo info = all[(start + i) % n];
                processed++;
                Rejection r = filter(pod.getSpec(), demand, info);
                if (r == null) {
                    feasible.add(info);
                } else {
                    r.reasons().forEach(reason -> reasons.merge(reason, 1, Integer::sum));
                    preemption.merge(r.resolvable() ? NO_VICTIMS : NOT_HELPFUL, 1, Integer::sum);
                }
            }
            nextStartNodeIndex = (start + processed) % n;
            if (feasible.isEmpty()) {
                return new Decision.Unfit(fitError(pod.getSpec(), n, reasons, preemption));
            }
            NodeInfo best = pickBest(pod.getSpec(), demand, feasible, all);
            if (uid != null) {
                add(new PodEntry(uid, best.name, demand, pod.getSpec(), true));
            }
            return new Decision.Fit(best.name);
        } finally {
            lock.unlock();
        }
    }

    private NodeInfo[] candidates() {
        if (candidates == null) {
            candidates = nodes.values().stream()
                    .filter(i -> i.node != null)
                    .sorted(Comparator.comparing(i -> i.name))
                    .toArray(NodeInfo[]::new);
        }
        return candidates;
    }

    /** kube-scheduler's {@code numFeasibleNodesToFind} with the default (adaptive) percentage. */
    static int numFeasibleNodesToFind(int numAllNodes) {
        if (numAllNodes < MIN_FEASIBLE_NODES_TO_FIND) {
            return numAllNodes;
        }
        int percentage = Math.max(MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND, 50 - numAllNodes / 125);
        return Math.max(MIN_FEASIBLE_NODES_TO_FIND, numAllNodes * percentage / 100);
    }

    private static Rejection filter(PodSpec spec, PodDemand demand, NodeInfo info) {
        // NodeUnschedulable
        if (info.unschedulable
                && (spec.getTolerations() == null
                        || spec.getTolerations().stream()
                                .noneMatch(t ->
                                        NodeMatching.tolerates(t, NodeInfo.UNSCHEDULABLE_TAINT, null, "NoSchedule")))) {
            return new Rejection(List.of("node(s) were unschedulable"), false);
        }
        // TaintToleration (NoSchedule and NoExecute)
        Taint untolerated = NodeMatching.firstUntolerated(spec.getTolerations(), info.filterTaints);
        if (untolerated != null) {
            return new Rejection(
                    List.of("node(s) had untolerated taint {" + untolerated.getKey() + ": "
                            + (untolerated.getValue() == null ? "" : untolerated.getValue()) + "}"),
                    false);
        }
        // NodeAffinity
        if (!NodeMatching.matchesNodeSelectorAndAffinity(spec, info.name, info.labels)) {
            return new Rejection(List.of("node(s) didn't match Pod's node affinity/selector"), false);
        }
        // NodePorts
        for (PodDemand.HostPort wanted : demand.hostPorts()) {
            for (PodDemand.HostPort used : info.usedPorts) {
                if (wanted.conflictsWith(used)) {
                    return new Rejection(List.of("node(s) didn't have free ports for the requested pod ports"), true);
                }
            }
        }
        // NodeResourcesFit
        List<String> insufficient = fitsRequest(demand, info);
        return insufficient.isEmpty() ? null : new Rejection(insufficient, true);
    }

    /** NodeResourcesFit's {@code fitsRequest}: every resource the pod asks for, against what is left. */
    private static List<String> fitsRequest(PodDemand d, NodeInfo info) {
        List<String> reasons = new ArrayList<>(1);
        if (info.podCount + 1 > info.allocatablePods) {
            reasons.add("Too many pods");
        }
        if (d.requestsNothing()) {
            return reasons;
        }
        if (d.milliCpu() > 0 && d.milliCpu() > info.allocatableMilliCpu - info.requestedMilliCpu) {
            reasons.add("Insufficient cpu");
        }
        if (d.memory() > 0 && d.memory() > info.allocatableMemory - info.requestedMemory) {
            reasons.add("Insufficient memory");
        }
        if (d.ephemeralStorage() > 0
                && d.ephemeralStorage() > info.allocatableEphemeralStorage - info.requestedEphemeralStorage) {
            reasons.add("Insufficient ephemeral-storage");
        }
        for (Map.Entry<String, Long> e : d.scalar().entrySet()) {
            long want = e.getValue();
            if (want > 0
                    && want
                            > info.allocatableScalar.getOrDefault(e.getKey(), 0L)
                                    - info.requestedScalar.getOrDefault(e.getKey(), 0L)) {
                reasons.add("Insufficient " + e.getKey());
            }
        }
        return reasons;
    }

    private static NodeInfo pickBest(PodSpec spec, PodDemand demand, List<NodeInfo> feasible, NodeInfo[] all) {
        Map<String, Integer> perZone = null;
        if (demand.ownerUid() != null) {
            perZone = new HashMap<>();
            for (NodeInfo info : all) {
                int c = info.ownerCount(demand.ownerUid());
                if (c > 0) {
                    perZone.merge(info.zone, c, Integer::sum);
                }
            }
        }
        NodeInfo best = null;
        int bestPrefer = 0;
        int bestSpread = 0;
        long bestFree = 0;
        for (NodeInfo info : feasible) {
            int prefer = 0;
            for (Taint t : info.preferNoScheduleTaints) {
                if (!NodeMatching.tolerated(spec.getTolerations(), t)) {
                    prefer++;
                }
            }
            int spread = perZone == null ? 0 : info.ownerCount(demand.ownerUid()) + perZone.getOrDefault(info.zone, 0);
            long free = leastAllocatedScore(demand, info);
            boolean better;
            if (best == null) {
                better = true;
            } else if (prefer != bestPrefer) {
                better = prefer < bestPrefer;
            } else if (spread != bestSpread) {
                better = spread < bestSpread;
            } else if (free != bestFree) {
                better = free > bestFree;
            } else {
                better = info.name.compareTo(best.name) < 0;
            }
            if (better) {
                best = info;
                bestPrefer = prefer;
                bestSpread = spread;
                bestFree = free;
            }
        }
        return best;
    }

    /** NodeResourcesFit's LeastAllocated score (0–100), CPU and memory weighted 1:1, with non-zero requests. */
    static long leastAllocatedScore(PodDemand d, NodeInfo info) {
        long cpu = free(info.allocatableMilliCpu, info.nonZeroMilliCpu + d.nonZeroMilliCpu());
        long mem = free(info.allocatableMemory, info.nonZeroMemory + d.nonZeroMemory());
        return (cpu + mem) / 2;
    }

    private static long free(long capacity, long requested) {
        if (capacity == 0 || requested > capacity) {
            return 0;
        }
        return (capacity - requested) * 100 / capacity;
    }

    /**
     * kube-scheduler's FitError message, with the DefaultPreemption post-filter's part: {@code 0/3 nodes are
     * available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }, 2 Insufficient cpu. preemption:
     * 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming
     * pod.} Reasons are counted per node and sorted as strings, as Go's {@code sort.Strings} does.
     */
    static String fitError(PodSpec spec, int n, Map<String, Integer> reasons, Map<String, Integer> preemption) {
        StringBuilder sb = new StringBuilder("0/").append(n).append(" nodes are available: ");
        sb.append(histogram(reasons)).append('.');
        if ("Never".equals(spec.getPreemptionPolicy())) {
            sb.append(" preemption: not eligible due to preemptionPolicy=Never.");
        } else {
            sb.append(" preemption: 0/").append(n).append(" nodes are available: ");
            sb.append(histogram(preemption)).append('.');
        }
        return sb.toString();
    }

    private static String histogram(Map<String, Integer> counts) {
        String[] parts = counts.entrySet().stream()
                .map(e -> e.getValue() + " " + e.getKey())
                .toArray(String[]::new);
        Arrays.sort(parts);
        return String.join(", ", parts);
    }
}
