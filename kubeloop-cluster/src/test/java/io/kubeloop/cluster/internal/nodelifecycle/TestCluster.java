package io.kubeloop.cluster.internal.nodelifecycle;

import static io.kubeloop.testsupport.TestThreads.eventually;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.resource.DeleteOptions;
import io.kubeloop.client.resource.ResourceClient;
import io.kubeloop.clock.FakeClock;
import io.kubeloop.cluster.ClusterTimings;
import io.kubeloop.controller.Manager;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * One embedded API server on a {@link FakeClock} per test class, a control-plane {@link Manager} per test, and nodes
 * the test runs itself: a Node with kubelet-like status and a Lease in {@code kube-node-lease} that the test renews
 * every 10 s of cluster time while the node's "kubelet" runs (the simulated kubelets are another area's).
 *
 * <p>The clock moves only through {@link #tick()}: one node monitor period, then it waits for the monitor pass, the
 * tainting pass and the manager's cache, and renews the leases that are due, so each step's decisions are whole
 * before the next.
 */
final class TestCluster implements AutoCloseable {

    static final String NS = "default";

    final FakeClock clock = new FakeClock();
    final EmbeddedApiServer server = EmbeddedApiServer.builder().clock(clock).start();
    final KubernetesClient client = KubernetesClient.create(
            ClientConfig.builder().server(server.url().toString()).build());

    ClusterTimings timings;
    Manager manager;
    NodeLifecycleController nodeLifecycle;
    PodGarbageCollector podGc;
    private final Set<String> kubelets = ConcurrentHashMap.newKeySet();
    /** Monitor periods since the manager started. */
    private long periods;

    Manager newManager(ClusterTimings timings) {
        this.timings = timings;
        this.manager = Manager.builder(client)
                .clock(clock)
                .metricsPort(-1)
                .healthProbePort(-1)
                .build();
        // every type awaitCaches() reads, cached from the start (a lazily started informer would make the first read
        // wait for its sync)
        manager.informerFactory().informerFor(Node.class);
        manager.informerFactory().informerFor(Pod.class);
        manager.informerFactory().informerFor(Lease.class);
        return manager;
    }

    /** Starts the manager and waits for the first monitor pass (it runs at once). */
    void start() {
        manager.start();
        periods = 0;
        if (nodeLifecycle != null) {
            eventually().until(() -> nodeLifecycle.completedMonitorPasses() >= 1 && nodeLifecycle.isIdle());
        }
        if (podGc != null) {
            eventually().until(() -> podGc.completedPasses() >= 1);
        }
        awaitCaches();
    }

    /** Closes the manager and removes every node, lease and pod the test made. */
    void reset() {
        if (manager != null) {
            manager.close();
            manager = null;
        }
        nodeLifecycle = null;
        podGc = null;
        kubelets.clear();
        settled = -1;
        for (Pod p : pods().list().items()) {
            if (p.getMetadata().getFinalizers() != null
                    && !p.getMetadata().getFinalizers().isEmpty()) {
                pods().edit(p.getMetadata().getName(), x -> {
                    x.getMetadata().setFinalizers(null);
                    return x;
                });
            }
            try {
                pods().delete(
                                p.getMetadata().getName(),
                                DeleteOptions.defaults().withGracePeriodSeconds(0L));
            } catch (io.kubeloop.client.errors.NotFoundException removedWithItsFinalizer) {
                // gone already
            }
        }
        for (Node n : nodes().list().items()) {
            nodes().delete(n.getMetadata().getName());
        }
        for (Lease l : leases().list().items()) {
            leases().delete(l.getMetadata().getName());
        }
    }

    @Override
    public void close() {
        reset();
        server.close();
    }

    ResourceClient<Node> nodes() {
        return client.resources(Node.class);
    }

    ResourceClient<Pod> pods() {
        return client.resources(Pod.class).inNamespace(NS);
    }

    ResourceClient<Lease> leases() {
        return client.resources(Lease.class).inNamespace(NodeLifecycleController.LEASE_NAMESPACE);
    }

    // ---- nodes
    // -------------------------------------------------------------------------------------------------------

    /** A Ready node in {@code zone} (region {@code region-1}) with its Lease renewed now; its kubelet runs. */
    Node addNode(String name, String zone) {
        Node node = nodes().create(new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(Map.of(
                        "kubernetes.io/hostname", name,
                        "topology.kubernetes.io/zone", zone,
                        "topology.kubernetes.io/region", "region-1"))
                .endMetadata()
                .withNewSpec()
                .endSpec()
                .build());
        String now = NodeTaints.timestamp(clock.now());
        node.setStatus(new io.fabric8.kubernetes.api.model.NodeStatusBuilder()
                .withConditions(
                        condition("MemoryPressure", "False", "KubeletHasSufficientMemory", now),
                        condition("DiskPressure", "False", "KubeletHasNoDiskPressure", now),
                        condition("PIDPressure", "False", "KubeletHasSufficientPID", now),
                        condition("Ready", "True", "KubeletReady", now))
                .build());
        node = nodes().updateStatus(node);
        leases().create(new LeaseBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(NodeLifecycleController.LEASE_NAMESPACE)
                .endMetadata()
                .withNewSpec()
                .withHolderIdentity(name)
                .withLeaseDurationSeconds(40)
                .withRenewTime(clock.now().atZone(ZoneOffset.UTC))
                .endSpec()
                .build());
        kubelets.add(name);
        return node;
    }

    /** A node created as a bare object: no status ever posted, no lease. */
    Node addBareNode(String name, String zone) {
        return nodes().create(new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(Map.of("topology.kubernetes.io/zone", zone, "topology.kubernetes.io/region", "region-1"))
                .endMetadata()
                .build());
    }

    private static NodeCondition condition(String type, String status, String reason, String now) {
        NodeCondition c = new NodeCondition();
        c.setType(type);
        c.setStatus(status);
        c.setReason(reason);
        c.setMessage("kubelet says " + reason);
        c.setLastHeartbeatTime(now);
        c.setLastTransitionTime(now);
        return c;
    }

    /** The node's kubelet stops: no more lease renewals. */
    void stopKubelet(String name) {
        kubelets.remove(name);
    }

    /** The node's kubelet runs again: it renews its lease and posts Ready now. */
    void startKubelet(String name) {
        kubelets.add(name);
        renew(name);
        String now = NodeTaints.timestamp(clock.now());
        Node node = nodes().get(name).orElseThrow();
        for (NodeCondition c : node.getStatus().getConditions()) {
            String status = c.getType().equals("Ready") ? "True" : "False";
            if (!status.equals(c.getStatus())) {
                c.setLastTransitionTime(now);
            }
            c.setStatus(status);
            c.setLastHeartbeatTime(now);
            c.setReason("Kubelet" + c.getType());
        }
        nodes().updateStatus(node);
        awaitCaches();
    }

    private String renew(String name) {
        return leases().edit(name, l -> {
                    l.getSpec().setRenewTime(clock.now().atZone(ZoneOffset.UTC));
                    return l;
                })
                .getMetadata()
                .getResourceVersion();
    }

    Node node(String name) {
        return nodes().get(name).orElseThrow();
    }

    static NodeCondition ready(Node node) {
        return NodeTaints.condition(node, "Ready");
    }

    static Taint taint(Node node, String key, String effect) {
        return NodeTaints.taints(node).stream()
                .filter(t -> t.getKey().equals(key) && t.getEffect().equals(effect))
                .findFirst()
                .orElse(null);
    }

    static List<String> taintNames(Node node) {
        return NodeTaints.taints(node).stream()
                .map(t -> t.getKey() + ":" + t.getEffect())
                .sorted()
                .toList();
    }

    // ---- pods
    // ----------------------------------------------------------------------------------------------------------

    /** A running, ready pod bound to {@code node} with these tolerations. */
    Pod addPod(String name, String node, Toleration... tolerations) {
        Pod pod = pods().create(new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(NS)
                .endMetadata()
                .withNewSpec()
                .withNodeName(node)
                .addNewContainer()
                .withName("app")
                .withImage("nginx")
                .endContainer()
                .withTolerations(Arrays.asList(tolerations))
                .endSpec()
                .build());
        String now = NodeTaints.timestamp(clock.now());
        pod.getStatus().setPhase("Running");
        List<PodCondition> conditions = new ArrayList<>();
        for (String type : List.of("Initialized", "Ready", "ContainersReady", "PodScheduled")) {
            PodCondition c = new PodCondition();
            c.setType(type);
            c.setStatus("True");
            c.setLastTransitionTime(now);
            conditions.add(c);
        }
        pod.getStatus().setConditions(conditions);
        return pods().updateStatus(pod);
    }

    /** kube's DefaultTolerationSeconds admission: not-ready and unreachable, NoExecute, {@code seconds}. */
    static Toleration[] defaultTolerations(long seconds) {
        return new Toleration[] {toleration(NodeTaints.NOT_READY, seconds), toleration(NodeTaints.UNREACHABLE, seconds)
        };
    }

    static Toleration toleration(String key, Long seconds) {
        return new TolerationBuilder()
                .withKey(key)
                .withOperator("Exists")
                .withEffect("NoExecute")
                .withTolerationSeconds(seconds)
                .build();
    }

    Pod pod(String name) {
        return pods().get(name).orElse(null);
    }

    /** When the pod's deletion was asked for: its deletionTimestamp minus its grace period; null if not deleted. */
    Instant deletedAt(String name) {
        Pod pod = pod(name);
        if (pod == null) {
            return Instant.MIN;
        }
        if (pod.getMetadata().getDeletionTimestamp() == null) {
            return null;
        }
        return NodeTaints.parse(pod.getMetadata().getDeletionTimestamp())
                .minusSeconds(pod.getMetadata().getDeletionGracePeriodSeconds());
    }

    // ---- time
    // ----------------------------------------------------------------------------------------------------------

    /** Cluster time since the manager started. */
    Duration elapsed() {
        return timings.nodeMonitorPeriod().multipliedBy(periods);
    }

    /** Moves the clock by whole node monitor periods of cluster time. */
    void advance(Duration clusterTime) {
        long n = clusterTime.toNanos() / timings.nodeMonitorPeriod().toNanos();
        for (long i = 0; i < n; i++) {
            tick();
        }
    }

    /** One node monitor period: the pass, the tainting pass, the caches, then the due lease renewals. */
    void tick() {
        long before = nodeLifecycle == null ? 0 : nodeLifecycle.completedMonitorPasses();
        clock.step(timings.wall(timings.nodeMonitorPeriod()));
        periods++;
        if (nodeLifecycle != null) {
            eventually().until(() -> nodeLifecycle.completedMonitorPasses() > before && nodeLifecycle.isIdle());
        }
        awaitCaches();
        // the kubelets renew every 10 s of cluster time (0.25 × the 40 s lease), between two monitor passes
        if (periods % 2 == 0 && !kubelets.isEmpty()) {
            Map<String, String> renewed = new java.util.HashMap<>();
            kubelets.forEach(n -> renewed.put(n, renew(n)));
            eventually().until(() -> renewed.entrySet().stream().allMatch(e -> e.getValue()
                    .equals(manager.client()
                            .getReadOnly(Lease.class, NodeLifecycleController.LEASE_NAMESPACE, e.getKey())
                            .map(l -> l.getMetadata().getResourceVersion())
                            .orElse(null))));
            // only our renewals since the caches were last in sync: they are in sync again
            if (serverVersion() == settled + renewed.size()) {
                settled += renewed.size();
            }
        }
    }

    /** The server's resourceVersion as of its last write (the embedded server counts writes one by one). */
    private long serverVersion() {
        return Long.parseLong(client.resources(io.fabric8.kubernetes.api.model.Namespace.class)
                .list(io.kubeloop.client.resource.ListOptions.builder().limit(1).build())
                .resourceVersion());
    }

    /** A server resourceVersion the manager's caches are known to hold everything up to. */
    private long settled = -1;

    /** Waits until the manager's cache holds what the server holds (nodes, leases, pods). */
    void awaitCaches() {
        if (manager == null) {
            return;
        }
        long version = serverVersion();
        if (version == settled) {
            return; // nothing was written since: one request instead of three lists per tick
        }
        eventually()
                .until(() -> versions(nodes().list().items())
                                .equals(versions(manager.client().listReadOnly(Node.class, "")))
                        && versions(pods().list().items())
                                .equals(versions(manager.client().listReadOnly(Pod.class, NS)))
                        && versions(leases().list().items())
                                .equals(versions(manager.client()
                                        .listReadOnly(Lease.class, NodeLifecycleController.LEASE_NAMESPACE))));
        settled = version;
    }

    private static Map<String, String> versions(List<? extends HasMetadata> objects) {
        return objects.stream().collect(Collectors.toMap(o -> o.getMetadata().getName(), o -> o.getMetadata()
                .getResourceVersion()));
    }

    // ---- events
    // --------------------------------------------------------------------------------------------------------

    /** The Events about {@code object} (by uid), as "Type Reason: message". */
    List<String> events(HasMetadata object) {
        String ns = object.getMetadata().getNamespace() == null
                ? NS
                : object.getMetadata().getNamespace();
        return client.resources(Event.class).inNamespace(ns).list().items().stream()
                .filter(e -> object.getMetadata()
                        .getUid()
                        .equals(e.getInvolvedObject().getUid()))
                .map(e -> e.getType() + " " + e.getReason() + ": " + e.getMessage())
                .toList();
    }
}
