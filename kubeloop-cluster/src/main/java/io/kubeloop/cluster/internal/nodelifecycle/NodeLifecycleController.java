package io.kubeloop.cluster.internal.nodelifecycle;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.kubeloop.client.errors.KubernetesApiException;
import io.kubeloop.client.errors.NotFoundException;
import io.kubeloop.clock.Clock;
import io.kubeloop.cluster.ClusterTimings;
import io.kubeloop.controller.ControllerClient;
import io.kubeloop.controller.EventFilter;
import io.kubeloop.controller.EventRecorder;
import io.kubeloop.controller.Manager;
import io.kubeloop.controller.Request;
import io.kubeloop.controller.Result;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kube-controller-manager's node lifecycle controller (pkg/controller/nodelifecycle), on the manager's clock.
 *
 * <ul>
 *   <li><b>Health monitor</b>, every {@code wall(nodeMonitorPeriod)}: per node it keeps the moment it <em>locally</em>
 *       saw the node's Ready heartbeat ({@code lastHeartbeatTime}) or its Lease's {@code renewTime} change — kube's
 *       {@code probeTimestamp}, never the timestamps' values, so a kubelet with a skewed clock is judged by when its
 *       writes arrive. After {@code wall(nodeMonitorGracePeriod)} without one ({@code nodeStartupGracePeriod} for a node
 *       that never posted status) it sets Ready, MemoryPressure, DiskPressure and PIDPressure to Unknown, records
 *       {@code NodeNotReady} and marks the node's pods not ready.</li>
 *   <li><b>Taint-based eviction</b>: a node whose Ready condition is Unknown (False) gets the NoExecute taint
 *       {@code node.kubernetes.io/unreachable} ({@code not-ready}) on the monitor pass after it was seen so, through a
 *       per-zone queue released at {@code wallRate(nodeEvictionRate)} (burst 1); the two swap at once when the
 *       condition changes, and both go when the node is Ready. Zones are judged after every pass (kube's
 *       {@code handleDisruption}): Normal; PartialDisruption (more than 2 not ready and at least 55 %) slows tainting to
 *       {@code secondaryNodeEvictionRate} in zones larger than 50 nodes and stops it in smaller ones; FullDisruption
 *       (no node ready) keeps the normal rate, unless every zone is fully disrupted: then all taints are removed and
 *       tainting stops (the control plane more likely lost the nodes than all the nodes died).</li>
 *   <li><b>Condition taints</b> (TaintNodesByCondition): NoSchedule taints that follow the node's conditions
 *       (not-ready, unreachable, memory-, disk-, pid-pressure, network-unavailable) and {@code spec.unschedulable}
 *       ({@code node.kubernetes.io/unschedulable}, what {@code kubectl cordon} shows), on every node change.</li>
 *   <li>A pod bound to a node that is not Ready is marked not ready at once.</li>
 * </ul>
 *
 * <p>Invariant: the monitor pass, the tainting pass and pod processing hold {@code stateLock} while they read or change
 * the health map, the zone states and the zone queues, so they see one another's decisions whole.
 */
public final class NodeLifecycleController {

    private static final Logger log = LoggerFactory.getLogger(NodeLifecycleController.class);

    /** The Events' source component, as kube's. */
    static final String COMPONENT = "node-controller";

    static final String LEASE_NAMESPACE = "kube-node-lease";
    static final String EXCLUDE_DISRUPTION = "node.kubernetes.io/exclude-disruption";
    static final double UNHEALTHY_ZONE_THRESHOLD = 0.55;
    static final int LARGE_CLUSTER_THRESHOLD = 50;
    /** kube's {@code NodeHealthUpdateRetry}. */
    private static final int HEALTH_UPDATE_ATTEMPTS = 5;

    private static final List<String> MONITORED_CONDITIONS =
            List.of("Ready", "MemoryPressure", "DiskPressure", "PIDPressure");

    /** kube's {@code nodeConditionToTaintKeyStatusMap}. */
    private static final Map<String, Map<String, String>> CONDITION_TAINTS = Map.of(
            "Ready", Map.of("False", NodeTaints.NOT_READY, "Unknown", NodeTaints.UNREACHABLE),
            "MemoryPressure", Map.of("True", NodeTaints.MEMORY_PRESSURE),
            "DiskPressure", Map.of("True", NodeTaints.DISK_PRESSURE),
            "NetworkUnavailable", Map.of("True", NodeTaints.NETWORK_UNAVAILABLE),
            "PIDPressure", Map.of("True", NodeTaints.PID_PRESSURE));

    private static final Set<String> CONDITION_TAINT_KEYS = Set.of(
            NodeTaints.NOT_READY,
            NodeTaints.UNREACHABLE,
            NodeTaints.MEMORY_PRESSURE,
            NodeTaints.DISK_PRESSURE,
            NodeTaints.NETWORK_UNAVAILABLE,
            NodeTaints.PID_PRESSURE);

    static final Taint UNREACHABLE_NO_EXECUTE = NodeTaints.taint(NodeTaints.UNREACHABLE, NodeTaints.NO_EXECUTE);
    static final Taint NOT_READY_NO_EXECUTE = NodeTaints.taint(NodeTaints.NOT_READY, NodeTaints.NO_EXECUTE);

    /** kube's zone states, with their names as its logs print them. */
    enum ZoneState {
        INITIAL("Initial"),
        NORMAL("Normal"),
        FULL_DISRUPTION("FullDisruption"),
        PARTIAL_DISRUPTION("PartialDisruption");

        private final String text;

        ZoneState(String text) {
            this.text = text;
        }

        @Override
        public String toString() {
            return text;
        }
    }

    /** What the last observation of a node's Ready condition was (kube's {@code nodeHealthData.status}). */
    private record Ready(String status, String reason, String message, String heartbeat, String transition) {
        static Ready of(NodeCondition c) {
            return c == null
                    ? null
                    : new Ready(
                            c.getStatus(),
                            c.getReason(),
                            c.getMessage(),
                            c.getLastHeartbeatTime(),
                            c.getLastTransitionTime());
        }
    }

    /** kube's {@code nodeHealthData}; times are the clock's nanoTime. */
    private static final class Health {
        Ready saved;
        long probe;
        long readyTransition;
        /** The Lease's renewTime when it was last seen renewed; null: no lease seen (since the last reset). */
        ZonedDateTime lease;

        boolean hasLease;

        Health(Ready saved, long probe, long readyTransition) {
            this.saved = saved;
            this.probe = probe;
            this.readyTransition = readyTransition;
        }
    }

    private record HealthResult(Ready observed, NodeCondition current) {}

    private final ControllerClient client;
    private final Clock clock;
    private final ClusterTimings timings;
    private final EventRecorder recorder;
    private final int largeClusterThreshold;
    private final double unhealthyZoneThreshold;
    private final double evictionQps;
    private final double secondaryEvictionQps;

    private final ReentrantLock stateLock = new ReentrantLock();
    /** Guarded by {@code stateLock}. */
    private final Map<String, Health> health = new HashMap<>();
    /** Guarded by {@code stateLock}. */
    private final Map<String, Node> knownNodes = new HashMap<>();
    /** Guarded by {@code stateLock}; sorted so that passes and logs go through zones in one order. */
    private final Map<String, ZoneState> zoneStates = new TreeMap<>();
    /** Guarded by {@code stateLock}: zones are added, never removed (as kube's). */
    private final Map<String, ZoneTainter> zoneTainters = new TreeMap<>();
    /** Guarded by {@code stateLock}. */
    private final Set<String> nodesToRetry = new HashSet<>();

    private final SerialLoop monitor;
    private final SerialLoop tainter;

    private NodeLifecycleController(
            Manager manager, ClusterTimings timings, int largeClusterThreshold, double unhealthyZoneThreshold) {
        this.client = manager.client();
        this.clock = manager.clock();
        this.timings = timings;
        this.recorder = manager.eventRecorder(COMPONENT);
        this.largeClusterThreshold = largeClusterThreshold;
        this.unhealthyZoneThreshold = unhealthyZoneThreshold;
        this.evictionQps = timings.wallRate(timings.nodeEvictionRate());
        this.secondaryEvictionQps = timings.wallRate(timings.secondaryNodeEvictionRate());
        this.monitor = new SerialLoop(
                "node-lifecycle-monitor", clock, timings.wall(timings.nodeMonitorPeriod()), this::monitorPass, log);
        this.tainter = new SerialLoop("node-lifecycle-tainter", clock, null, this::taintingPass, log);
    }

    /**
     * Adds the node lifecycle controller to {@code manager}: the health monitor, the NoExecute tainting, the condition
     * (NoSchedule) taints and the marking of pods bound to nodes that are not ready.
     */
    public static NodeLifecycleController register(Manager manager, ClusterTimings timings) {
        return register(manager, timings, LARGE_CLUSTER_THRESHOLD, UNHEALTHY_ZONE_THRESHOLD);
    }

    /** {@link #register(Manager, ClusterTimings)} with kube's {@code --large-cluster-size-threshold} and
     * {@code --unhealthy-zone-threshold}. */
    static NodeLifecycleController register(
            Manager manager, ClusterTimings timings, int largeClusterThreshold, double unhealthyZoneThreshold) {
        Objects.requireNonNull(manager, "manager");
        Objects.requireNonNull(timings, "timings");
        NodeLifecycleController c =
                new NodeLifecycleController(manager, timings, largeClusterThreshold, unhealthyZoneThreshold);
        Pods.indexByNode(manager);
        manager.informerFactory().informerFor(Lease.class);
        manager.newControllerFor(Node.class)
                .named("node-lifecycle-condition-taints")
                .withEventFilter(new EventFilter<Node>() {
                    @Override
                    public boolean update(Node oldNode, Node newNode) {
                        return !conditionTaintInputs(oldNode).equals(conditionTaintInputs(newNode));
                    }

                    @Override
                    public boolean delete(Node node, boolean finalStateUnknown) {
                        return false;
                    }
                })
                .complete(c::reconcileConditionTaints);
        manager.newControllerFor(Pod.class)
                .named("node-lifecycle-pods")
                .withEventFilter(new EventFilter<Pod>() {
                    @Override
                    public boolean create(Pod pod, boolean isInInitialList) {
                        return !NodeTaints.empty(Pods.nodeName(pod));
                    }

                    @Override
                    public boolean update(Pod oldPod, Pod newPod) {
                        // kube's podUpdated: a new binding; here also a Ready condition that turned True, which a
                        // simulated kubelet may write just after the binding
                        String node = Pods.nodeName(newPod);
                        return !NodeTaints.empty(node)
                                && (!node.equals(Pods.nodeName(oldPod)) || (!isReady(oldPod) && isReady(newPod)));
                    }

                    @Override
                    public boolean delete(Pod pod, boolean finalStateUnknown) {
                        return false;
                    }
                })
                .complete(c::processPod);
        manager.add(c.monitor);
        manager.add(c.tainter);
        return c;
    }

    private static boolean isReady(Pod pod) {
        PodCondition c = Pods.condition(pod, "Ready");
        return c != null && "True".equals(c.getStatus());
    }

    /** How many health monitor passes have completed (tests step the clock and wait for the next one). */
    long completedMonitorPasses() {
        return monitor.completedRuns();
    }

    /** How many NoExecute tainting passes have completed. */
    long completedTaintingPasses() {
        return tainter.completedRuns();
    }

    /** Whether neither the monitor nor the tainting pass runs or is asked for. */
    boolean isIdle() {
        return monitor.isIdle() && tainter.isIdle();
    }

    /** The zones' states, keyed by kube's zone key printed ({@code region:\x00:zone}); for tests. */
    Map<String, String> zoneStates() {
        stateLock.lock();
        try {
            Map<String, String> out = new TreeMap<>();
            zoneStates.forEach((k, v) -> out.put(printable(k), v.toString()));
            return out;
        } finally {
            stateLock.unlock();
        }
    }

    // ---- the health monitor (kube's monitorNodeHealth)
    // ---------------------------------------------------------------

    private void monitorPass() {
        stateLock.lock();
        try {
            List<Node> nodes = client.listReadOnly(Node.class, "");
            Set<String> names = new HashSet<>();
            for (Node node : nodes) {
                String name = node.getMetadata().getName();
                names.add(name);
                if (!knownNodes.containsKey(name)) {
                    log.info("Controller observed a new Node node=\"{}\"", name);
                    recorder.eventf(
                            node, EventRecorder.NORMAL, "RegisteredNode", "Registered Node %s in Controller", name);
                    knownNodes.put(name, node);
                    addZone(node);
                    markNodeAsReachable(node);
                } else if (!zoneStates.containsKey(zoneKey(node))) {
                    addZone(node);
                }
            }
            for (var it = knownNodes.entrySet().iterator(); it.hasNext(); ) {
                var known = it.next();
                if (!names.contains(known.getKey())) {
                    log.info("Controller observed a Node deletion node=\"{}\"", known.getKey());
                    recorder.eventf(
                            known.getValue(),
                            EventRecorder.NORMAL,
                            "RemovingNode",
                            "Removing Node %s from Controller",
                            known.getKey());
                    it.remove();
                    health.remove(known.getKey());
                    nodesToRetry.remove(known.getKey());
                }
            }
            Map<String, List<NodeCondition>> zoneToConditions = new LinkedHashMap<>();
            for (Node node : nodes) {
                updateNode(node, zoneToConditions);
            }
            handleDisruption(zoneToConditions, nodes);
        } finally {
            stateLock.unlock();
        }
        tainter.request();
    }

    private void updateNode(Node cached, Map<String, List<NodeCondition>> zoneToConditions) {
        String name = cached.getMetadata().getName();
        Node node = cached;
        HealthResult result = null;
        for (int attempt = 1; attempt <= HEALTH_UPDATE_ATTEMPTS && result == null; attempt++) {
            try {
                result = tryUpdateNodeHealth(node);
            } catch (KubernetesApiException | java.io.UncheckedIOException e) {
                // a conflict (the cache was behind) or a failed write: read the node itself and judge it again
                node = client.apiReader().get(Node.class, "", name).orElse(null);
                if (node == null) {
                    log.error(
                            "Failed while getting a Node to retry updating node health. Probably Node was deleted node=\"{}\"",
                            name);
                    return;
                }
            }
        }
        if (result == null) {
            log.error(
                    "Update health of Node from Controller error, Skipping - no pods will be evicted node=\"{}\"",
                    name);
            return;
        }
        if (node.getMetadata().getLabels() == null
                || !node.getMetadata().getLabels().containsKey(EXCLUDE_DISRUPTION)) {
            zoneToConditions
                    .computeIfAbsent(zoneKey(node), k -> new ArrayList<>())
                    .add(result.current());
        }
        if (result.current() != null) {
            List<Pod> pods = Pods.onNode(client, name);
            processTaintBaseEviction(node, result.observed());
            boolean needsRetry = nodesToRetry.contains(name);
            boolean becameNotReady = !"True".equals(result.current().getStatus())
                    && "True".equals(result.observed().status());
            if (becameNotReady) {
                log.info("Recording status change event message for node status=\"NodeNotReady\" node=\"{}\"", name);
                recorder.eventf(
                        node, EventRecorder.NORMAL, "NodeNotReady", "Node %s status is now: %s", name, "NodeNotReady");
            }
            if (becameNotReady
                    || (needsRetry && !"True".equals(result.observed().status()))) {
                if (!markPodsNotReady(pods, name)) {
                    log.error("unable to mark all pods NotReady on node {}; queuing for retry", name);
                    nodesToRetry.add(name);
                    return;
                }
            }
        }
        nodesToRetry.remove(name);
    }

    /**
     * kube's {@code tryUpdateNodeHealth}: updates the node's probe and transition times from what changed since the
     * last pass, and once the grace period has passed without a change, writes every monitored condition Unknown.
     *
     * @throws KubernetesApiException the status write failed (the caller reads the node again and retries)
     */
    private HealthResult tryUpdateNodeHealth(Node node) {
        String name = node.getMetadata().getName();
        long now = clock.nanoTime();
        Health h = health.get(name);
        NodeCondition currentReady = NodeTaints.condition(node, "Ready");
        Ready observed;
        long grace;
        if (currentReady == null) {
            // never posted: a fake Unknown condition as of the node's creation, and the startup grace period
            String created = node.getMetadata().getCreationTimestamp();
            observed = new Ready("Unknown", null, null, created, created);
            grace = timings.wall(timings.nodeStartupGracePeriod()).toNanos();
            if (h != null) {
                h.saved = null;
            } else {
                long createdAt = nanosOf(NodeTaints.parse(created), now);
                h = new Health(null, createdAt, createdAt);
            }
        } else {
            observed = Ready.of(currentReady);
            grace = timings.wall(timings.nodeMonitorGracePeriod()).toNanos();
        }
        Ready saved = h == null ? null : h.saved;
        boolean savedHasLease = h != null && h.hasLease;
        ZonedDateTime savedLease = h == null ? null : h.lease;
        if (h == null) {
            log.info("Missing timestamp for Node. Assuming now as a timestamp node=\"{}\"", name);
            h = new Health(Ready.of(currentReady), now, now);
        } else if (saved == null && currentReady != null) {
            log.debug("Creating timestamp entry for newly observed Node node=\"{}\"", name);
            h = new Health(Ready.of(currentReady), now, now);
        } else if (saved != null && currentReady == null) {
            log.error("ReadyCondition was removed from Status of Node node=\"{}\"", name);
            h = new Health(null, now, now);
        } else if (saved != null && !Objects.equals(saved.heartbeat(), currentReady.getLastHeartbeatTime())) {
            long transition =
                    Objects.equals(saved.transition(), currentReady.getLastTransitionTime()) ? h.readyTransition : now;
            log.debug("Node ReadyCondition updated. Updating timestamp node=\"{}\"", name);
            h = new Health(Ready.of(currentReady), now, transition);
        }
        // Always update the probe time when the Lease was renewed (a kubelet that renews its lease but never posts
        // status is taken as healthy, as kube does).
        Lease lease = client.getReadOnly(Lease.class, LEASE_NAMESPACE, name).orElse(null);
        ZonedDateTime renewed = lease == null || lease.getSpec() == null
                ? null
                : lease.getSpec().getRenewTime();
        if (lease != null
                && (!savedHasLease || (savedLease != null && renewed != null && savedLease.isBefore(renewed)))) {
            h.hasLease = true;
            h.lease = renewed;
            h.probe = now;
        }
        health.put(name, h);

        if (now - h.probe > grace) {
            Node copy = new NodeBuilder(node).build();
            if (copy.getStatus() == null) {
                copy.setStatus(new io.fabric8.kubernetes.api.model.NodeStatus());
            }
            Instant at = clock.now();
            String ts = NodeTaints.timestamp(at);
            List<NodeCondition> conditions = copy.getStatus().getConditions() == null
                    ? new ArrayList<>()
                    : new ArrayList<>(copy.getStatus().getConditions());
            for (String type : MONITORED_CONDITIONS) {
                NodeCondition c = conditions.stream()
                        .filter(x -> type.equals(x.getType()))
                        .findFirst()
                        .orElse(null);
                if (c == null) {
                    log.debug(
                            "Condition of node was never updated by kubelet nodeConditionType=\"{}\" node=\"{}\"",
                            type,
                            name);
                    NodeCondition added = new NodeCondition();
                    added.setType(type);
                    added.setStatus("Unknown");
                    added.setReason("NodeStatusNeverUpdated");
                    added.setMessage("Kubelet never posted node status.");
                    added.setLastHeartbeatTime(node.getMetadata().getCreationTimestamp());
                    added.setLastTransitionTime(ts);
                    conditions.add(added);
                } else {
                    log.debug("Node hasn't been updated node=\"{}\" nodeConditionType=\"{}\"", name, type);
                    if (!"Unknown".equals(c.getStatus())) {
                        c.setStatus("Unknown");
                        c.setReason("NodeStatusUnknown");
                        c.setMessage("Kubelet stopped posting node status.");
                        c.setLastTransitionTime(ts);
                    }
                }
            }
            copy.getStatus().setConditions(conditions);
            NodeCondition newReady = NodeTaints.condition(copy, "Ready");
            if (!Ready.of(newReady).equals(observed)) {
                client.updateStatus(copy);
                Health updated = new Health(Ready.of(newReady), h.probe, clock.nanoTime());
                updated.hasLease = lease != null;
                updated.lease = renewed;
                health.put(name, updated);
                return new HealthResult(observed, newReady);
            }
        }
        return new HealthResult(observed, currentReady);
    }

    /** A wall-clock instant as the clock's nanoTime (now when unknown). */
    private long nanosOf(Instant instant, long now) {
        if (instant == null) {
            return now;
        }
        return now - Duration.between(instant, clock.now()).toNanos();
    }

    // ---- taint-based eviction
    // ----------------------------------------------------------------------------------------

    private void processTaintBaseEviction(Node node, Ready observed) {
        String name = node.getMetadata().getName();
        switch (observed.status()) {
            case "False" -> {
                if (NodeTaints.has(node, UNREACHABLE_NO_EXECUTE)) {
                    if (!swapQuietly(node, NOT_READY_NO_EXECUTE, UNREACHABLE_NO_EXECUTE)) {
                        log.error(
                                "Failed to instantly swap UnreachableTaint to NotReadyTaint. Will try again in the next cycle");
                    }
                } else if (markNodeForTainting(node, "False")) {
                    log.info("Node is NotReady. Adding it to the Taint queue node=\"{}\"", name);
                }
            }
            case "Unknown" -> {
                if (NodeTaints.has(node, NOT_READY_NO_EXECUTE)) {
                    if (!swapQuietly(node, UNREACHABLE_NO_EXECUTE, NOT_READY_NO_EXECUTE)) {
                        log.error(
                                "Failed to instantly swap NotReadyTaint to UnreachableTaint. Will try again in the next cycle");
                    }
                } else if (markNodeForTainting(node, "Unknown")) {
                    log.info("Node is unresponsive. Adding it to the Taint queue node=\"{}\"", name);
                }
            }
            case "True" -> {
                if (markNodeAsReachable(node)) {
                    log.info("Node is healthy again, removed all taints node=\"{}\"", name);
                }
            }
            default -> {}
        }
    }

    private boolean swapQuietly(Node node, Taint add, Taint remove) {
        try {
            return NodeTaints.swap(client, node, List.of(add), List.of(remove), clock.now());
        } catch (KubernetesApiException | java.io.UncheckedIOException e) {
            log.warn("Failed to swap taints of node {}: {}", node.getMetadata().getName(), e.toString());
            return false;
        }
    }

    private boolean markNodeForTainting(Node node, String status) {
        ZoneTainter zone = zoneTainters.get(zoneKey(node));
        String name = node.getMetadata().getName();
        if ("False".equals(status) && !NodeTaints.has(node, NOT_READY_NO_EXECUTE)) {
            zone.remove(name);
        }
        if ("Unknown".equals(status) && !NodeTaints.has(node, UNREACHABLE_NO_EXECUTE)) {
            zone.remove(name);
        }
        return zone.add(name);
    }

    /** Removes both NoExecute taints and takes the node out of its zone's queue; true if it was in the queue's set. */
    private boolean markNodeAsReachable(Node node) {
        try {
            NodeTaints.swap(
                    client, node, List.of(), List.of(UNREACHABLE_NO_EXECUTE, NOT_READY_NO_EXECUTE), clock.now());
        } catch (KubernetesApiException | java.io.UncheckedIOException e) {
            log.error(
                    "Failed to remove taints from node. Will retry in next iteration node=\"{}\": {}",
                    node.getMetadata().getName(),
                    e.toString());
            return false;
        }
        ZoneTainter zone = zoneTainters.get(zoneKey(node));
        return zone != null && zone.remove(node.getMetadata().getName());
    }

    /** kube's {@code doNoExecuteTaintingPass}: each zone's queue releases what its rate allows. */
    private void taintingPass() {
        Duration next = null;
        stateLock.lock();
        try {
            for (ZoneTainter zone : zoneTainters.values()) {
                Duration wait = zone.try_(this::taintNode);
                if (wait != null && (next == null || wait.compareTo(next) < 0)) {
                    next = wait;
                }
            }
        } finally {
            stateLock.unlock();
        }
        if (next != null) {
            tainter.requestAfter(next);
        }
    }

    private Duration taintNode(String name) {
        Node node = client.getReadOnly(Node.class, "", name).orElse(null);
        if (node == null) {
            log.info("Node no longer present in nodeLister node=\"{}\"", name);
            return null;
        }
        NodeCondition ready = NodeTaints.condition(node, "Ready");
        if (ready == null) {
            log.info("Failed to get NodeCondition from the node status node=\"{}\"", name);
            return timings.wall(Duration.ofMillis(50));
        }
        Taint add;
        Taint opposite;
        switch (ready.getStatus()) {
            case "False" -> {
                add = NOT_READY_NO_EXECUTE;
                opposite = UNREACHABLE_NO_EXECUTE;
            }
            case "Unknown" -> {
                add = UNREACHABLE_NO_EXECUTE;
                opposite = NOT_READY_NO_EXECUTE;
            }
            default -> {
                log.debug("Node was in a taint queue, but it's ready now. Ignoring taint request node=\"{}\"", name);
                return null;
            }
        }
        if (swapQuietly(node, add, opposite)) {
            log.info("Added taint {}:{} to node {}", add.getKey(), add.getEffect(), name);
            return null;
        }
        return Duration.ZERO;
    }

    // ---- zones (kube's handleDisruption)
    // ------------------------------------------------------------------------------

    private void addZone(Node node) {
        String zone = zoneKey(node);
        if (!zoneStates.containsKey(zone)) {
            zoneStates.put(zone, ZoneState.INITIAL);
            zoneTainters.put(zone, new ZoneTainter(clock, evictionQps));
            log.info("Initializing eviction metric for zone zone=\"{}\"", printable(zone));
        }
    }

    private void handleDisruption(Map<String, List<NodeCondition>> zoneToConditions, List<Node> nodes) {
        Map<String, ZoneState> newStates = new HashMap<>();
        boolean allAreFullyDisrupted = true;
        for (var e : zoneToConditions.entrySet()) {
            ZoneState state = zoneState(e.getValue());
            if (state != ZoneState.FULL_DISRUPTION) {
                allAreFullyDisrupted = false;
            }
            newStates.put(e.getKey(), state);
            if (!zoneStates.containsKey(e.getKey())) {
                log.error("Setting initial state for unseen zone zone=\"{}\"", printable(e.getKey()));
                zoneStates.put(e.getKey(), ZoneState.INITIAL);
                zoneTainters.putIfAbsent(e.getKey(), new ZoneTainter(clock, evictionQps));
            }
        }
        boolean allWasFullyDisrupted = true;
        for (var it = zoneStates.entrySet().iterator(); it.hasNext(); ) {
            var e = it.next();
            if (!zoneToConditions.containsKey(e.getKey())) {
                it.remove();
                continue;
            }
            if (e.getValue() != ZoneState.FULL_DISRUPTION) {
                allWasFullyDisrupted = false;
                break;
            }
        }
        if (allAreFullyDisrupted && allWasFullyDisrupted) {
            return;
        }
        if (allAreFullyDisrupted) {
            log.info("Controller detected that all Nodes are not-Ready. Entering master disruption mode");
            for (Node node : nodes) {
                markNodeAsReachable(node);
            }
            for (String zone : zoneStates.keySet()) {
                zoneTainters.get(zone).swapLimiter(0);
            }
            zoneStates.replaceAll((k, v) -> ZoneState.FULL_DISRUPTION);
            return;
        }
        if (allWasFullyDisrupted) {
            log.info("Controller detected that some Nodes are Ready. Exiting master disruption mode");
            long now = clock.nanoTime();
            for (Node node : nodes) {
                Health h = health.get(node.getMetadata().getName());
                if (h != null) {
                    h.probe = now;
                    h.readyTransition = now;
                }
            }
            for (var e : zoneStates.entrySet()) {
                ZoneState state = newStates.get(e.getKey());
                setLimiterInZone(e.getKey(), zoneToConditions.get(e.getKey()).size(), state);
                e.setValue(state);
            }
            return;
        }
        for (var e : zoneStates.entrySet()) {
            ZoneState state = newStates.get(e.getKey());
            if (e.getValue() == state) {
                continue;
            }
            log.info(
                    "Controller detected that zone is now in new state zone=\"{}\" newState=\"{}\"",
                    printable(e.getKey()),
                    state);
            setLimiterInZone(e.getKey(), zoneToConditions.get(e.getKey()).size(), state);
            e.setValue(state);
        }
    }

    private ZoneState zoneState(List<NodeCondition> readyConditions) {
        int ready = 0;
        int notReady = 0;
        for (NodeCondition c : readyConditions) {
            if (c != null && "True".equals(c.getStatus())) {
                ready++;
            } else {
                notReady++;
            }
        }
        if (ready == 0 && notReady > 0) {
            return ZoneState.FULL_DISRUPTION;
        }
        if (notReady > 2 && (float) notReady / (notReady + ready) >= unhealthyZoneThreshold) {
            return ZoneState.PARTIAL_DISRUPTION;
        }
        return ZoneState.NORMAL;
    }

    private void setLimiterInZone(String zone, int zoneSize, ZoneState state) {
        ZoneTainter tainter = zoneTainters.get(zone);
        switch (state) {
            case NORMAL, FULL_DISRUPTION -> tainter.swapLimiter(evictionQps); // kube's HealthyQPSFunc
            case PARTIAL_DISRUPTION -> tainter.swapLimiter(zoneSize > largeClusterThreshold ? secondaryEvictionQps : 0);
            default -> {}
        }
    }

    /** kube's {@code GetZoneKey}: region and zone (topology labels, else the beta failure-domain ones). */
    static String zoneKey(Node node) {
        Map<String, String> labels = node.getMetadata().getLabels();
        if (labels == null) {
            return "";
        }
        String zone = labels.getOrDefault(
                "topology.kubernetes.io/zone", labels.getOrDefault("failure-domain.beta.kubernetes.io/zone", ""));
        String region = labels.getOrDefault(
                "topology.kubernetes.io/region", labels.getOrDefault("failure-domain.beta.kubernetes.io/region", ""));
        if (region.isEmpty() && zone.isEmpty()) {
            return "";
        }
        return region + ":\u0000:" + zone;
    }

    /** A zone key as kube's logs print it. */
    static String printable(String zoneKey) {
        return zoneKey.replace("\u0000", "\\x00");
    }

    // ---- pods
    // ----------------------------------------------------------------------------------------------------------

    /**
     * kube's {@code MarkPodsNotReady}: the Ready condition of each pod (that has one) becomes False, and a Warning
     * {@code NodeNotReady} Event is recorded on it.
     *
     * @return false if a write failed (the node is retried on the next pass)
     */
    private boolean markPodsNotReady(List<Pod> pods, String nodeName) {
        log.debug("Update ready status of pods on node node=\"{}\"", nodeName);
        boolean ok = true;
        for (Pod cached : pods) {
            if (!nodeName.equals(Pods.nodeName(cached))) {
                continue;
            }
            PodCondition ready = Pods.condition(cached, "Ready");
            if (ready == null) {
                continue;
            }
            Pod pod = new PodBuilder(cached).build();
            PodCondition cond =
                    new PodConditionBuilder(ready).withStatus("False").build();
            if (!Pods.setCondition(pod.getStatus(), cond, clock.now())) {
                continue;
            }
            log.debug(
                    "Updating ready status of pod to false pod=\"{}/{}\"",
                    pod.getMetadata().getNamespace(),
                    pod.getMetadata().getName());
            try {
                client.updateStatus(pod);
            } catch (NotFoundException gone) {
                continue;
            } catch (KubernetesApiException | java.io.UncheckedIOException e) {
                log.info(
                        "Failed to update status for pod pod=\"{}/{}\" err=\"{}\"",
                        pod.getMetadata().getNamespace(),
                        pod.getMetadata().getName(),
                        e.getMessage());
                ok = false;
            }
            recorder.event(cached, EventRecorder.WARNING, "NodeNotReady", "Node is not ready");
        }
        return ok;
    }

    /** kube's {@code processPod}: a pod newly bound to a node that is not Ready is marked not ready. */
    private Result processPod(Request request) {
        Pod pod = client.getReadOnly(Pod.class, request).orElse(null);
        if (pod == null || NodeTaints.empty(Pods.nodeName(pod))) {
            return Result.done();
        }
        String nodeName = Pods.nodeName(pod);
        stateLock.lock();
        try {
            Health h = health.get(nodeName);
            if (h == null) {
                return Result.done(); // not gathered yet, or removed: the next node pass handles the pod
            }
            if (client.getReadOnly(Node.class, "", nodeName).isEmpty()) {
                return Result.requeue();
            }
            if (h.saved == null || "True".equals(h.saved.status())) {
                return Result.done();
            }
            return markPodsNotReady(List.of(pod), nodeName) ? Result.done() : Result.requeue();
        } finally {
            stateLock.unlock();
        }
    }

    // ---- condition taints (kube's doNoScheduleTaintingPass)
    // -----------------------------------------------------------

    private Result reconcileConditionTaints(Request request) {
        Node node = client.getReadOnly(Node.class, request).orElse(null);
        if (node == null) {
            return Result.done();
        }
        List<Taint> wanted = new ArrayList<>();
        if (node.getStatus() != null && node.getStatus().getConditions() != null) {
            for (NodeCondition c : node.getStatus().getConditions()) {
                String key =
                        CONDITION_TAINTS.getOrDefault(c.getType(), Map.of()).get(c.getStatus());
                if (key != null) {
                    wanted.add(NodeTaints.taint(key, NodeTaints.NO_SCHEDULE));
                }
            }
        }
        if (node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable())) {
            wanted.add(NodeTaints.taint(NodeTaints.UNSCHEDULABLE, NodeTaints.NO_SCHEDULE));
        }
        List<Taint> existing = NodeTaints.taints(node).stream()
                .filter(t -> NodeTaints.NO_SCHEDULE.equals(t.getEffect()))
                .filter(t -> NodeTaints.UNSCHEDULABLE.equals(t.getKey()) || CONDITION_TAINT_KEYS.contains(t.getKey()))
                .toList();
        List<Taint> toAdd = wanted.stream()
                .filter(w -> existing.stream().noneMatch(e -> NodeTaints.matches(e, w)))
                .toList();
        List<Taint> toRemove = existing.stream()
                .filter(e -> wanted.stream().noneMatch(w -> NodeTaints.matches(e, w)))
                .toList();
        if (!toAdd.isEmpty() || !toRemove.isEmpty()) {
            NodeTaints.swap(client, node, toAdd, toRemove, clock.now());
        }
        return Result.done();
    }

    /** What the condition taints of a node depend on: its conditions' statuses and spec.unschedulable, and its taints. */
    private static List<Object> conditionTaintInputs(Node node) {
        Map<String, String> statuses = new TreeMap<>();
        if (node.getStatus() != null && node.getStatus().getConditions() != null) {
            for (NodeCondition c : node.getStatus().getConditions()) {
                statuses.put(c.getType(), c.getStatus());
            }
        }
        boolean unschedulable =
                node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable());
        List<String> taints = NodeTaints.taints(node).stream()
                .map(t -> t.getKey() + ":" + t.getEffect())
                .sorted()
                .toList();
        return List.of(statuses, unschedulable, taints);
    }

    @Override
    public String toString() {
        return "NodeLifecycleController[" + timings + "]";
    }
}
