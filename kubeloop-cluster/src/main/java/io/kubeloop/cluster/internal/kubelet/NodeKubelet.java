package io.kubeloop.cluster.internal.kubelet;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.kubeloop.client.errors.AlreadyExistsException;
import io.kubeloop.client.errors.ConflictException;
import io.kubeloop.client.errors.NotFoundException;
import io.kubeloop.client.resource.PatchOptions;
import io.kubeloop.client.resource.PatchType;
import io.kubeloop.clock.Clock;
import io.kubeloop.cluster.ClusterTimings;
import io.kubeloop.cluster.SimulatedNode;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * One simulated node: the kubelet's registration ({@code registerWithAPIServer}), its node status
 * ({@code nodestatus/setters.go}), its Lease ({@code nodelease}), its pod IP range, and its state.
 *
 * <p>Threads: the registration and status task and the lease task run on the kubelets' workers, each never twice at
 * once (they are work-queue keys); fields written by one task only are confined to it. {@link #state} is read by
 * every task and written under {@code stateLock}.
 */
final class NodeKubelet implements SimulatedNode {

    static final String KUBELET_VERSION = "v1.32.0";
    static final String RUNTIME_VERSION = "kubeloop-sim://1.0.0";
    static final String OS_IMAGE = "kubeloop simulated node";
    static final String KERNEL_VERSION = "6.8.0-kubeloop";
    static final String LEASE_NAMESPACE = "kube-node-lease";

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    /** 100Mi: kubelet's default hard eviction threshold {@code memory.available<100Mi}. */
    private static final BigDecimal EVICTION_MEMORY = BigDecimal.valueOf(100L * 1024 * 1024);

    private final Kubelets kubelets;
    private final NodeTemplate template;
    final int number;
    private final String internalIp;
    private final String podCidr;
    private final int podNetwork;

    private final ReentrantLock stateLock = new ReentrantLock();
    private volatile State state = State.RUNNING;
    /** Guarded by stateLock: the end of the current partition. */
    private Clock.Scheduled partitionEnd;

    private final ReentrantLock ipLock = new ReentrantLock();
    /** Guarded by ipLock: host numbers (2..254) of the /24 in use; host-local IPAM hands them out round robin. */
    private final BitSet usedIps = new BitSet(256);
    /** Guarded by ipLock. */
    private int lastIp = 1;

    /** Keys of the pods this node's kubelet runs (namespace/name). */
    final Set<String> podKeys = ConcurrentHashMap.newKeySet();

    /** Set false to register again (at start and after a kubelet restart); the status task does it. */
    volatile boolean registered;

    private volatile String nodeUid;
    /** Set when the kubelet comes back: post the status at once, whatever was posted before. */
    private volatile boolean postNow;
    /** Status task only: what was posted last, and when (nanoTime). */
    private ObjectNode lastPosted;

    private long lastReport;
    /** Lease task only: the Lease as last written. */
    private Lease lease;

    private final Instant bootTime;
    private final ObjectNode staticStatus;

    NodeKubelet(Kubelets kubelets, NodeTemplate template, int number) {
        this.kubelets = kubelets;
        this.template = template;
        this.number = number;
        this.internalIp = "10.0." + (number / 256) + "." + (number % 256);
        // 10.244.0.0/14: room for 1,024 /24s, one per node (the node IPAM controller's allocation)
        int block = (244 << 16) | (number << 8);
        this.podNetwork = (10 << 24) | block;
        this.podCidr = ip(podNetwork) + "/24";
        this.bootTime = kubelets.clock().now();
        this.staticStatus = staticStatus();
    }

    private static String ip(int v) {
        return ((v >>> 24) & 255) + "." + ((v >>> 16) & 255) + "." + ((v >>> 8) & 255) + "." + (v & 255);
    }

    @Override
    public String name() {
        return template.name();
    }

    @Override
    public String zone() {
        return template.zone();
    }

    @Override
    public State state() {
        return state;
    }

    NodeTemplate template() {
        return template;
    }

    ClusterTimings timings() {
        return kubelets.timings();
    }

    String internalIp() {
        return internalIp;
    }

    String podCidr() {
        return podCidr;
    }

    @Override
    public void stop() {
        stateLock.lock();
        try {
            cancelPartitionEnd();
            if (state == State.STOPPED) {
                return;
            }
            state = State.STOPPED;
        } finally {
            stateLock.unlock();
        }
        Kubelets.log.info("node {}: kubelet stopped", name());
    }

    @Override
    public void start() {
        State was;
        stateLock.lock();
        try {
            cancelPartitionEnd();
            was = state;
            if (was == State.RUNNING) {
                return;
            }
            state = State.RUNNING;
            postNow = true; // the node controller may have marked the node Unknown meanwhile
            if (was == State.STOPPED) {
                registered = false; // a restarted kubelet registers again
            }
        } finally {
            stateLock.unlock();
        }
        Kubelets.log.info("node {}: kubelet {}", name(), was == State.STOPPED ? "started" : "reconnected");
        kubelets.resumed(this);
    }

    @Override
    public void partition(Duration clusterTime) {
        Objects.requireNonNull(clusterTime, "clusterTime");
        if (clusterTime.isNegative() || clusterTime.isZero()) {
            throw new IllegalArgumentException("a partition lasts a positive duration, not " + clusterTime);
        }
        stateLock.lock();
        try {
            if (state == State.STOPPED) {
                throw new IllegalStateException("node " + name() + " is stopped: start it before partitioning it");
            }
            cancelPartitionEnd();
            state = State.PARTITIONED;
            partitionEnd =
                    kubelets.clock().schedule(this::endPartition, timings().wall(clusterTime));
        } finally {
            stateLock.unlock();
        }
        Kubelets.log.info("node {}: partitioned from the API server for {} of cluster time", name(), clusterTime);
    }

    private void endPartition() {
        stateLock.lock();
        try {
            if (state != State.PARTITIONED) {
                return;
            }
        } finally {
            stateLock.unlock();
        }
        start();
    }

    private void cancelPartitionEnd() {
        if (partitionEnd != null) {
            partitionEnd.cancel();
            partitionEnd = null;
        }
    }

    // ---- pod IPs

    /** The next free pod IP of this node's /24 (.2 to .254), or null when all are taken. */
    String allocatePodIp() {
        ipLock.lock();
        try {
            for (int i = 0; i < 253; i++) {
                int host = 2 + (lastIp - 2 + 1 + i) % 253;
                if (!usedIps.get(host)) {
                    usedIps.set(host);
                    lastIp = host;
                    return ip(podNetwork | host);
                }
            }
            return null;
        } finally {
            ipLock.unlock();
        }
    }

    /** Frees the pod's IP (its sandbox is gone); idempotent. */
    void releasePodIp(PodRuntime pod) {
        String ip = pod.podIp;
        if (ip == null || ip.equals(internalIp) || pod.sandboxReleased) {
            return;
        }
        pod.sandboxReleased = true;
        int host = Integer.parseInt(ip.substring(ip.lastIndexOf('.') + 1));
        ipLock.lock();
        try {
            usedIps.clear(host);
        } finally {
            ipLock.unlock();
        }
    }

    // ---- registration and node status

    /** The status task: register when needed, else post the status if it changed or the report is due. */
    void syncStatus() {
        if (state != State.RUNNING) {
            return;
        }
        if (!registered) {
            register();
            return;
        }
        long now = kubelets.clock().nanoTime();
        ObjectNode desired = status(lastPosted);
        boolean reportDue = now - lastReport
                >= timings().wall(timings().nodeStatusReportFrequency()).toNanos();
        if (lastPosted != null && !reportDue && !postNow && !changed(lastPosted, desired)) {
            return;
        }
        postNow = false;
        postStatus(desired, now);
    }

    private void postStatus(ObjectNode status, long now) {
        ObjectNode patch = JSON.objectNode();
        patch.set("status", status);
        try {
            kubelets.nodeClient().patchStatus(name(), PatchType.MERGE, patch.toString(), PatchOptions.none());
        } catch (NotFoundException gone) {
            // as the kubelet: the Node was deleted; it is not registered again until the kubelet restarts
            Kubelets.log.warn("node {}: unable to update node status: node \"{}\" not found", name(), name());
            lastPosted = null;
            return;
        }
        lastPosted = status;
        lastReport = now;
    }

    /** Whether anything but the heartbeat times differs (kubelet's nodeStatusHasChanged). */
    private static boolean changed(ObjectNode before, ObjectNode after) {
        for (String field : after.propertyNames()) {
            if (!field.equals("conditions") && !Objects.equals(before.get(field), after.get(field))) {
                return true;
            }
        }
        JsonNode a = before.path("conditions");
        JsonNode b = after.path("conditions");
        if (a.size() != b.size()) {
            return true;
        }
        for (int i = 0; i < a.size(); i++) {
            for (String f : List.of("type", "status", "lastTransitionTime", "reason", "message")) {
                if (!Objects.equals(a.get(i).get(f), b.get(i).get(f))) {
                    return true;
                }
            }
        }
        return false;
    }

    private void register() {
        Node node = new NodeBuilder()
                .withNewMetadata()
                .withName(name())
                .withLabels(labels())
                .withAnnotations(Map.of("volumes.kubernetes.io/controller-managed-attach-detach", "true"))
                .endMetadata()
                .withNewSpec()
                .withPodCIDR(podCidr)
                .withPodCIDRs(podCidr)
                .endSpec()
                .build();
        ObjectNode status = status(null);
        long now = kubelets.clock().nanoTime();
        try {
            Node created = kubelets.nodeClient().create(node);
            nodeUid = created.getMetadata().getUid();
            Kubelets.log.info("node {}: registered", name());
        } catch (AlreadyExistsException exists) {
            // kubelet's tryRegisterWithAPIServer: reconcile the labels and annotations it manages on the existing Node
            Node updated = kubelets.nodeClient().edit(name(), existing -> {
                existing.getMetadata().setLabels(merged(existing.getMetadata().getLabels(), labels()));
                existing.getMetadata()
                        .setAnnotations(merged(
                                existing.getMetadata().getAnnotations(),
                                Map.of("volumes.kubernetes.io/controller-managed-attach-detach", "true")));
                if (existing.getSpec() == null) {
                    existing.setSpec(new io.fabric8.kubernetes.api.model.NodeSpec());
                }
                if (existing.getSpec().getPodCIDR() == null) {
                    existing.getSpec().setPodCIDR(podCidr);
                    existing.getSpec().setPodCIDRs(List.of(podCidr));
                }
                return existing;
            });
            nodeUid = updated.getMetadata().getUid();
            Kubelets.log.info("node {}: registered again (the Node existed)", name());
        }
        registered = true;
        postStatus(status, now);
        kubelets.enqueueLease(this);
    }

    private static Map<String, String> merged(Map<String, String> existing, Map<String, String> ours) {
        Map<String, String> m = new LinkedHashMap<>(existing == null ? Map.of() : existing);
        m.putAll(ours);
        return m;
    }

    Map<String, String> labels() {
        Map<String, String> l = new LinkedHashMap<>();
        l.put("beta.kubernetes.io/arch", "amd64");
        l.put("beta.kubernetes.io/os", "linux");
        l.put("kubernetes.io/arch", "amd64");
        l.put("kubernetes.io/hostname", name());
        l.put("kubernetes.io/os", "linux");
        if (zone() != null) {
            l.put("topology.kubernetes.io/region", NodeTemplate.DEFAULT_REGION);
            l.put("topology.kubernetes.io/zone", zone());
        }
        l.putAll(template.labels());
        return l;
    }

    /** The node status the kubelet's setters produce; transition times kept from {@code previous}. */
    ObjectNode status(ObjectNode previous) {
        String now = PodRuntime.format(kubelets.clock().now());
        ObjectNode s = JSON.objectNode();
        s.set("capacity", staticStatus.get("capacity"));
        s.set("allocatable", staticStatus.get("allocatable"));
        ArrayNode conditions = s.putArray("conditions");
        conditions.add(condition(
                previous,
                now,
                "MemoryPressure",
                "False",
                "KubeletHasSufficientMemory",
                "kubelet has sufficient memory available"));
        conditions.add(condition(
                previous, now, "DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"));
        conditions.add(condition(
                previous,
                now,
                "PIDPressure",
                "False",
                "KubeletHasSufficientPID",
                "kubelet has sufficient PID available"));
        conditions.add(condition(previous, now, "Ready", "True", "KubeletReady", "kubelet is posting ready status"));
        s.set("addresses", staticStatus.get("addresses"));
        s.set("daemonEndpoints", staticStatus.get("daemonEndpoints"));
        s.set("nodeInfo", staticStatus.get("nodeInfo"));
        return s;
    }

    /**
     * The parts of the node status that never change while the machine runs (capacity, allocatable, addresses,
     * endpoints, nodeInfo): built once, shared by every status and never modified.
     */
    private ObjectNode staticStatus() {
        ObjectNode s = JSON.objectNode();
        ObjectNode capacity = s.putObject("capacity");
        BigDecimal memory = template.memory().getNumericalAmount();
        BigDecimal storage = template.ephemeralStorage().getNumericalAmount();
        capacity.put("cpu", template.cpu().toString());
        capacity.put("ephemeral-storage", kibibytes(storage));
        capacity.put("hugepages-1Gi", "0");
        capacity.put("hugepages-2Mi", "0");
        capacity.put("memory", kibibytes(memory));
        capacity.put("pods", template.pods().toString());
        ObjectNode allocatable = s.putObject("allocatable");
        allocatable.put("cpu", template.cpu().toString());
        allocatable.put(
                "ephemeral-storage",
                storage.multiply(BigDecimal.valueOf(9))
                        .divideToIntegralValue(BigDecimal.TEN)
                        .toBigInteger()
                        .toString());
        allocatable.put("hugepages-1Gi", "0");
        allocatable.put("hugepages-2Mi", "0");
        allocatable.put("memory", kibibytes(memory.subtract(EVICTION_MEMORY).max(BigDecimal.ZERO)));
        allocatable.put("pods", template.pods().toString());
        ArrayNode addresses = s.putArray("addresses");
        addresses.addObject().put("type", "InternalIP").put("address", internalIp);
        addresses.addObject().put("type", "Hostname").put("address", name());
        s.putObject("daemonEndpoints").putObject("kubeletEndpoint").put("Port", 10250);
        ObjectNode info = s.putObject("nodeInfo");
        info.put("machineID", PodRuntime.sha256("machine/" + name()).substring(0, 32));
        info.put(
                "systemUUID",
                UUID.nameUUIDFromBytes(("system/" + name()).getBytes(StandardCharsets.UTF_8))
                        .toString());
        info.put(
                "bootID",
                UUID.nameUUIDFromBytes(("boot/" + name() + "/" + bootTime).getBytes(StandardCharsets.UTF_8))
                        .toString());
        info.put("kernelVersion", KERNEL_VERSION);
        info.put("osImage", OS_IMAGE);
        info.put("containerRuntimeVersion", RUNTIME_VERSION);
        info.put("kubeletVersion", KUBELET_VERSION);
        info.put("kubeProxyVersion", "");
        info.put("operatingSystem", "linux");
        info.put("architecture", "amd64");
        return s;
    }

    private static String kibibytes(BigDecimal bytes) {
        return bytes.divideToIntegralValue(BigDecimal.valueOf(1024)).toBigInteger() + "Ki";
    }

    private static ObjectNode condition(
            ObjectNode previous, String now, String type, String status, String reason, String message) {
        ObjectNode c = JSON.objectNode();
        c.put("type", type);
        c.put("status", status);
        c.put("lastHeartbeatTime", now);
        String transition = now;
        if (previous != null) {
            for (JsonNode p : previous.path("conditions")) {
                if (p.path("type").asString().equals(type)
                        && p.path("status").asString().equals(status)) {
                    transition = p.path("lastTransitionTime").asString(now);
                }
            }
        }
        c.put("lastTransitionTime", transition);
        c.put("reason", reason);
        c.put("message", message);
        return c;
    }

    // ---- lease

    /** The lease task: create or renew the node's Lease in kube-node-lease (kubelet's nodelease controller). */
    void renewLease() {
        if (state != State.RUNNING || !registered) {
            return;
        }
        var leases = kubelets.leases();
        java.time.ZonedDateTime now = kubelets.clock().now().atZone(ZoneOffset.UTC);
        if (lease != null) {
            lease.getSpec().setRenewTime(now);
            try {
                lease = leases.update(lease);
                return;
            } catch (ConflictException | NotFoundException stale) {
                lease = null; // read it again, or create it, below
            }
        }
        Lease current = leases.get(name()).orElse(null);
        if (current == null) {
            Lease fresh = new LeaseBuilder()
                    .withNewMetadata()
                    .withName(name())
                    .withNamespace(LEASE_NAMESPACE)
                    .withOwnerReferences(new OwnerReferenceBuilder()
                            .withApiVersion("v1")
                            .withKind("Node")
                            .withName(name())
                            .withUid(nodeUid)
                            .build())
                    .endMetadata()
                    .withNewSpec()
                    .withHolderIdentity(name())
                    .withLeaseDurationSeconds(
                            (int) timings().nodeLeaseDuration().toSeconds())
                    .withRenewTime(now)
                    .endSpec()
                    .build();
            try {
                lease = leases.create(fresh);
            } catch (AlreadyExistsException raced) {
                lease = null;
            }
            return;
        }
        current.getSpec().setHolderIdentity(name());
        current.getSpec()
                .setLeaseDurationSeconds((int) timings().nodeLeaseDuration().toSeconds());
        current.getSpec().setRenewTime(now);
        if (nodeUid != null
                && (current.getMetadata().getOwnerReferences() == null
                        || current.getMetadata().getOwnerReferences().isEmpty())) {
            current.getMetadata()
                    .setOwnerReferences(List.of(new OwnerReferenceBuilder()
                            .withApiVersion("v1")
                            .withKind("Node")
                            .withName(name())
                            .withUid(nodeUid)
                            .build()));
        }
        lease = leases.update(current);
    }

    Quantity podsCapacity() {
        return template.pods();
    }

    @Override
    public String toString() {
        return "SimulatedNode[" + name() + ", " + state + "]";
    }
}
