package io.kubeloop.cluster.internal.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.apiserver.fault.Failure;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.resource.DeleteOptions;
import io.kubeloop.client.resource.ListOptions;
import io.kubeloop.clock.FakeClock;
import io.kubeloop.cluster.ClusterTimings;
import io.kubeloop.controller.Manager;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scheduler over real HTTP: an embedded API server, a manager running only the scheduler on a {@link FakeClock},
 * and Node objects each test creates with the status it needs (no kubelets: nothing else writes to the nodes). Every
 * test removes its nodes and pods, so the next one starts from an empty cluster.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SchedulerIT {

    private final FakeClock clock = new FakeClock();
    private final AtomicInteger namespaces = new AtomicInteger();
    private EmbeddedApiServer server;
    private KubernetesClient client;
    private Manager manager;
    private String ns;

    @BeforeAll
    void start(@TempDir Path dir) {
        server = EmbeddedApiServer.builder().clock(clock).faultInjection(true).start();
        client = KubernetesClient.create(ClientConfig.fromKubeconfig(server.writeKubeconfig(dir.resolve("kc"))));
        manager = Manager.builder(client)
                .clock(clock)
                .metricsPort(-1)
                .healthProbePort(-1)
                .build();
        Scheduler.register(manager, ClusterTimings.DEFAULTS);
        // the manager's own wait for its caches polls on the fake clock: let them sync in real time first
        manager.informerFactory().start();
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(5))
                .until(() -> manager.informerFactory().informerFor(Pod.class).hasSynced()
                        && manager.informerFactory().informerFor(Node.class).hasSynced());
        manager.start();
    }

    @AfterAll
    void stop() {
        manager.close();
        client.close();
        server.close();
    }

    @BeforeEach
    void namespace() {
        ns = "sched-" + namespaces.incrementAndGet();
        client.resources(Namespace.class)
                .create(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(ns)
                        .endMetadata()
                        .build());
    }

    @AfterEach
    void removeNodesAndPods() {
        server.faults().clear();
        for (Pod p : client.resources(Pod.class).inNamespace(ns).list().items()) {
            client.resources(Pod.class)
                    .inNamespace(ns)
                    .delete(p.getMetadata().getName(), DeleteOptions.defaults().withGracePeriodSeconds(0L));
        }
        for (Node n : client.resources(Node.class).list().items()) {
            client.resources(Node.class).delete(n.getMetadata().getName());
        }
        await().atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> client.resources(Pod.class)
                                .inNamespace(ns)
                                .list()
                                .items()
                                .isEmpty()
                        && client.resources(Node.class).list().items().isEmpty());
    }

    // ---- filters and the message --------------------------------------------------------------------------------

    @Test
    void everyFilterNamesItsReasonInKubesMessage() {
        node("n-cordoned", "zone-a", "8", "32Gi", "110", n -> n.getSpec().setUnschedulable(true));
        node("n-gpu", "zone-a", "8", "32Gi", "110", n -> n.getSpec()
                .setTaints(List.of(new TaintBuilder()
                        .withKey("dedicated")
                        .withValue("gpu")
                        .withEffect("NoSchedule")
                        .build())));
        node("n-not-ready", "zone-b", "8", "32Gi", "110", n -> ready(n, "False"));
        node("n-unreachable", "zone-b", "8", "32Gi", "110", n -> ready(n, "Unknown"));
        node("n-windows", "zone-c", "8", "32Gi", "110", n -> n.getMetadata()
                .getLabels()
                .put("kubernetes.io/os", "windows"));
        node("n-full", "zone-c", "8", "32Gi", "1", n -> {});
        node("n-ports", "zone-c", "8", "32Gi", "110", n -> {});
        node("n-small", "zone-a", "8", "1Gi", "110", n -> {});
        // bound pods count: one fills n-full's only pod slot, one holds host port 8080 on n-ports
        create(pod("on-full", "100m", "64Mi", p -> p.getSpec().setNodeName("n-full")));
        create(pod("on-ports", "100m", "64Mi", p -> {
            p.getSpec().setNodeName("n-ports");
            p.getSpec().getContainers().get(0).setPorts(List.of(hostPort(8080)));
        }));

        create(pod("web", "500m", "2Gi", p -> {
            p.getSpec().setNodeSelector(Map.of("kubernetes.io/os", "linux"));
            p.getSpec().getContainers().get(0).setPorts(List.of(hostPort(8080)));
        }));

        String message = awaitUnschedulable("web");
        assertThat(message)
                .isEqualTo("0/8 nodes are available: 1 Insufficient memory, 1 Too many pods, 1 node(s) didn't have "
                        + "free ports for the requested pod ports, 1 node(s) didn't match Pod's node "
                        + "affinity/selector, 1 node(s) had untolerated taint {dedicated: gpu}, 1 node(s) had "
                        + "untolerated taint {node.kubernetes.io/not-ready: }, 1 node(s) had untolerated taint "
                        + "{node.kubernetes.io/unreachable: }, 1 node(s) were unschedulable. preemption: 0/8 nodes are "
                        + "available: 3 No preemption victims found for incoming pod, 5 Preemption is not helpful for "
                        + "scheduling.");
        Event event = awaitEvent("web", "FailedScheduling");
        assertThat(event.getType()).isEqualTo("Warning");
        assertThat(event.getMessage()).isEqualTo(message);
        assertThat(event.getSource().getComponent()).isEqualTo("default-scheduler");
        Pod web = client.resources(Pod.class).inNamespace(ns).get("web").orElseThrow();
        PodCondition scheduled = condition(web);
        assertThat(scheduled.getReason()).isEqualTo("Unschedulable");
        assertThat(scheduled.getLastTransitionTime()).isNotNull();
    }

    @Test
    void theReadmeExampleMessage() {
        node("node-1", "zone-a", "8", "32Gi", "110", n -> ready(n, "Unknown"));
        node("node-2", "zone-b", "1", "32Gi", "110", n -> {});
        node("node-3", "zone-c", "1", "32Gi", "110", n -> {});

        create(pod("big", "2", "1Gi", p -> {}));

        assertThat(awaitUnschedulable("big"))
                .isEqualTo("0/3 nodes are available: 1 node(s) had untolerated taint "
                        + "{node.kubernetes.io/unreachable: }, 2 Insufficient cpu. preemption: 0/3 nodes are "
                        + "available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for "
                        + "incoming pod.");
    }

    @Test
    void requiredNodeAffinityOperatorsAndFields() {
        // n-match passes every term (and then fails on cpu, so the pod stays pending and the counts tell)
        node("n-match", "zone-a", "100m", "32Gi", "110", n -> n.getMetadata()
                .getLabels()
                .put("gen", "5"));
        node("n-zone", "zone-c", "8", "32Gi", "110", n -> n.getMetadata()
                .getLabels()
                .put("gen", "5"));
        node("n-old", "zone-a", "8", "32Gi", "110", n -> n.getMetadata()
                .getLabels()
                .put("gen", "2"));
        node("n-nogen", "zone-a", "8", "32Gi", "110", n -> {});
        node("n-gpu", "zone-b", "8", "32Gi", "110", n -> {
            n.getMetadata().getLabels().put("gen", "9");
            n.getMetadata().getLabels().put("gpu", "yes");
        });
        node("n-front", "zone-b", "8", "32Gi", "110", n -> {
            n.getMetadata().getLabels().put("gen", "9");
            n.getMetadata().getLabels().put("tier", "frontend");
        });
        node("n-excluded", "zone-b", "8", "32Gi", "110", n -> n.getMetadata()
                .getLabels()
                .put("gen", "7"));

        create(pod("picky", "1", "1Gi", p -> p.getSpec()
                .setAffinity(new io.fabric8.kubernetes.api.model.AffinityBuilder()
                        .withNewNodeAffinity()
                        .withNewRequiredDuringSchedulingIgnoredDuringExecution()
                        .addNewNodeSelectorTerm()
                        .withMatchExpressions(
                                expr(NodeInfo.ZONE_LABEL, "In", "zone-a", "zone-b"),
                                expr("gen", "Gt", "3"),
                                expr("gpu", "DoesNotExist"),
                                expr("tier", "NotIn", "frontend"),
                                expr("kubernetes.io/hostname", "Exists"))
                        .withMatchFields(expr("metadata.name", "NotIn", "n-excluded"))
                        .endNodeSelectorTerm()
                        .endRequiredDuringSchedulingIgnoredDuringExecution()
                        .endNodeAffinity()
                        .build())));

        assertThat(awaitUnschedulable("picky"))
                .startsWith("0/7 nodes are available: 1 Insufficient cpu, 6 node(s) didn't match Pod's node "
                        + "affinity/selector.");
    }

    // ---- binding, spreading, assume -------------------------------------------------------------------------------

    @Test
    void spreadsAReplicaSetsPodsOverZonesAndNodesAndSaysSo() {
        for (int i = 1; i <= 6; i++) {
            node("node-" + i, "zone-" + "abc".charAt((i - 1) % 3), "8", "32Gi", "110", n -> {});
        }
        ReplicaSet owner = replicaSet("web");
        for (int i = 1; i <= 6; i++) {
            create(pod("web-" + i, "100m", "128Mi", p -> ownedBy(p, owner)));
        }

        Map<String, String> placement =
                awaitBound(IntStream.rangeClosed(1, 6).mapToObj(i -> "web-" + i).toList());
        assertThat(new TreeMap<>(
                        placement.values().stream().collect(Collectors.groupingBy(n -> n, Collectors.counting()))))
                .as("one pod per node: %s", placement)
                .hasSize(6);
        Event scheduled = awaitEvent("web-1", "Scheduled");
        assertThat(scheduled.getType()).isEqualTo("Normal");
        assertThat(scheduled.getMessage())
                .isEqualTo("Successfully assigned " + ns + "/web-1 to " + placement.get("web-1"));
        Pod web1 = client.resources(Pod.class).inNamespace(ns).get("web-1").orElseThrow();
        assertThat(condition(web1).getStatus()).isEqualTo("True");
    }

    @Test
    void manyPodsAtOnceNeverOvercommitANode() {
        node("small-1", "zone-a", "1", "32Gi", "110", n -> {});
        node("small-2", "zone-b", "1", "32Gi", "110", n -> {});
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            names.add("p-" + i);
            create(pod("p-" + i, "100m", "64Mi", p -> {}));
        }

        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> names.stream().allMatch(n -> boundTo(n) != null || unschedulableMessage(n) != null));
        Map<String, Long> perNode = names.stream()
                .map(this::boundTo)
                .filter(n -> n != null)
                .collect(Collectors.groupingBy(n -> n, Collectors.counting()));
        assertThat(perNode).containsEntry("small-1", 10L).containsEntry("small-2", 10L);
        assertThat(names.stream().map(this::unschedulableMessage).filter(m -> m != null))
                .hasSize(10)
                .allMatch(m -> m.startsWith("0/2 nodes are available: 2 Insufficient cpu."));
    }

    @Test
    void tolerationsLetAPodOntoTaintedAndCordonedNodes() {
        node("tainted", "zone-a", "8", "32Gi", "110", n -> {
            n.getSpec().setUnschedulable(true);
            n.getSpec()
                    .setTaints(List.of(new TaintBuilder()
                            .withKey("dedicated")
                            .withValue("gpu")
                            .withEffect("NoExecute")
                            .build()));
        });
        Toleration gpu = new TolerationBuilder()
                .withKey("dedicated")
                .withOperator("Equal")
                .withValue("gpu")
                .build();
        Toleration cordon = new TolerationBuilder()
                .withKey(NodeInfo.UNSCHEDULABLE_TAINT)
                .withOperator("Exists")
                .withEffect("NoSchedule")
                .build();

        create(pod("tolerant", "100m", "64Mi", p -> p.getSpec().setTolerations(List.of(gpu, cordon))));
        create(pod("intolerant", "100m", "64Mi", p -> p.getSpec().setTolerations(List.of(cordon))));

        assertThat(awaitBound(List.of("tolerant"))).containsEntry("tolerant", "tainted");
        assertThat(awaitUnschedulable("intolerant"))
                .startsWith("0/1 nodes are available: 1 node(s) had untolerated " + "taint {dedicated: gpu}.");
    }

    // ---- retries --------------------------------------------------------------------------------------------------

    @Test
    void aPendingPodIsRetriedWhenANodeAppearsAfterItsBackOff() {
        create(pod("early", "100m", "64Mi", p -> {}));
        assertThat(awaitUnschedulable("early")).isEqualTo("no nodes available to schedule pods");

        node("late", "zone-a", "8", "32Gi", "110", n -> {});
        // the node's event wakes the pod, whose 1 s back-off then has to run out
        assertThat(boundTo("early")).isNull();
        clock.step(Duration.ofSeconds(1));

        assertThat(awaitBound(List.of("early"))).containsEntry("early", "late");
    }

    @Test
    void aPendingPodIsRetriedWhenABoundPodGoes() {
        node("one", "zone-a", "1", "32Gi", "110", n -> {});
        create(pod("hog", "900m", "64Mi", p -> p.getSpec().setNodeName("one")));
        create(pod("waiting", "500m", "64Mi", p -> {}));
        assertThat(awaitUnschedulable("waiting")).startsWith("0/1 nodes are available: 1 Insufficient cpu.");

        clock.step(Duration.ofSeconds(1));
        client.resources(Pod.class)
                .inNamespace(ns)
                .delete("hog", DeleteOptions.defaults().withGracePeriodSeconds(0L));

        assertThat(awaitBound(List.of("waiting"))).containsEntry("waiting", "one");
    }

    @Test
    void aFailedBindingIsTakenBackAndRetriedAfterTheBackOff() {
        create(pod("unlucky", "100m", "64Mi", p -> {}));
        assertThat(awaitUnschedulable("unlucky")).isEqualTo("no nodes available to schedule pods");
        // the next pods create is the binding (pods/binding is a create of pods)
        server.faults().fail(Failure.status(500).count(1).resource("pods").verb("create"));
        node("flaky", "zone-a", "8", "32Gi", "110", n -> {});
        clock.step(Duration.ofSeconds(1)); // the pod's back-off

        Event failed = awaitEvent("unlucky", "FailedScheduling", "running Bind plugin");
        assertThat(failed.getMessage()).startsWith("running Bind plugin \"DefaultBinder\": ");
        assertThat(boundTo("unlucky")).isNull();
        clock.step(Duration.ofSeconds(1)); // the controller's back-off after the error

        assertThat(awaitBound(List.of("unlucky"))).containsEntry("unlucky", "flaky");
    }

    @Test
    void podsThatAreNotTheSchedulersAreLeftAlone() {
        node("any", "zone-a", "8", "32Gi", "110", n -> {});
        create(pod("other-scheduler", "100m", "64Mi", p -> p.getSpec().setSchedulerName("my-scheduler")));
        create(pod("gated", "100m", "64Mi", p -> p.getSpec()
                .setSchedulingGates(
                        List.of(new io.fabric8.kubernetes.api.model.PodSchedulingGate("example.com/wait")))));
        create(pod("mine", "100m", "64Mi", p -> {}));

        awaitBound(List.of("mine"));
        assertThat(boundTo("other-scheduler")).isNull();
        assertThat(boundTo("gated")).isNull();
        assertThat(condition(
                        client.resources(Pod.class).inNamespace(ns).get("gated").orElseThrow()))
                .isNull();
    }

    // ---- helpers --------------------------------------------------------------------------------------------------

    private static void ready(Node n, String status) {
        n.getStatus().getConditions().get(0).setStatus(status);
    }

    private static io.fabric8.kubernetes.api.model.ContainerPort hostPort(int port) {
        return new ContainerPortBuilder()
                .withContainerPort(80)
                .withHostPort(port)
                .build();
    }

    private static NodeSelectorRequirement expr(String key, String op, String... values) {
        return new NodeSelectorRequirementBuilder()
                .withKey(key)
                .withOperator(op)
                .withValues(values)
                .build();
    }

    private void node(String name, String zone, String cpu, String memory, String pods, Consumer<Node> tweak) {
        Node node = new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .addToLabels("kubernetes.io/hostname", name)
                .addToLabels("kubernetes.io/os", "linux")
                .addToLabels(NodeInfo.ZONE_LABEL, zone)
                .endMetadata()
                .withNewSpec()
                .endSpec()
                .withNewStatus()
                .addToCapacity(
                        Map.of("cpu", new Quantity(cpu), "memory", new Quantity(memory), "pods", new Quantity(pods)))
                .addToAllocatable(
                        Map.of("cpu", new Quantity(cpu), "memory", new Quantity(memory), "pods", new Quantity(pods)))
                .addNewCondition()
                .withType("Ready")
                .withStatus("True")
                .withReason("KubeletReady")
                .withMessage("kubelet is posting ready status")
                .endCondition()
                .endStatus()
                .build();
        tweak.accept(node);
        Node created = client.resources(Node.class).create(node);
        if (created.getStatus() == null
                || created.getStatus().getConditions() == null
                || created.getStatus().getConditions().isEmpty()) {
            created.setStatus(node.getStatus());
            client.resources(Node.class).updateStatus(created);
        }
    }

    private ReplicaSet replicaSet(String name) {
        return client.resources(ReplicaSet.class)
                .inNamespace(ns)
                .create(new ReplicaSetBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace(ns)
                        .endMetadata()
                        .withNewSpec()
                        .withReplicas(0)
                        .withNewSelector()
                        .addToMatchLabels("app", name)
                        .endSelector()
                        .withNewTemplate()
                        .withNewMetadata()
                        .addToLabels("app", name)
                        .endMetadata()
                        .withNewSpec()
                        .addNewContainer()
                        .withName("app")
                        .withImage("nginx")
                        .endContainer()
                        .endSpec()
                        .endTemplate()
                        .endSpec()
                        .build());
    }

    private static void ownedBy(Pod pod, ReplicaSet owner) {
        pod.getMetadata().getLabels().put("app", owner.getMetadata().getName());
        pod.getMetadata()
                .setOwnerReferences(List.of(new io.fabric8.kubernetes.api.model.OwnerReferenceBuilder()
                        .withApiVersion("apps/v1")
                        .withKind("ReplicaSet")
                        .withName(owner.getMetadata().getName())
                        .withUid(owner.getMetadata().getUid())
                        .withController(true)
                        .build()));
    }

    private Pod pod(String name, String cpu, String memory, Consumer<Pod> tweak) {
        Pod pod = new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(ns)
                .addToLabels("test", "scheduler")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("app")
                .withImage("nginx")
                .withNewResources()
                .addToRequests("cpu", new Quantity(cpu))
                .addToRequests("memory", new Quantity(memory))
                .endResources()
                .endContainer()
                .endSpec()
                .build();
        tweak.accept(pod);
        return pod;
    }

    private void create(Pod pod) {
        client.resources(Pod.class).inNamespace(ns).create(pod);
    }

    private static PodCondition condition(Pod pod) {
        if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
            return null;
        }
        return pod.getStatus().getConditions().stream()
                .filter(c -> "PodScheduled".equals(c.getType()))
                .findFirst()
                .orElse(null);
    }

    private String boundTo(String pod) {
        String node = client.resources(Pod.class)
                .inNamespace(ns)
                .get(pod)
                .map(p -> p.getSpec().getNodeName())
                .orElse(null);
        return node == null || node.isEmpty() ? null : node;
    }

    private String unschedulableMessage(String pod) {
        PodCondition c = client.resources(Pod.class)
                .inNamespace(ns)
                .get(pod)
                .map(SchedulerIT::condition)
                .orElse(null);
        return c != null && "False".equals(c.getStatus()) ? c.getMessage() : null;
    }

    private String awaitUnschedulable(String pod) {
        return await().atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> unschedulableMessage(pod), m -> m != null);
    }

    private Map<String, String> awaitBound(List<String> pods) {
        Map<String, String> placement = new TreeMap<>();
        await().atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> {
                    for (String p : pods) {
                        String node = boundTo(p);
                        if (node == null) {
                            return false;
                        }
                        placement.put(p, node);
                    }
                    return true;
                });
        return placement;
    }

    private Event awaitEvent(String pod, String reason) {
        return awaitEvent(pod, reason, "");
    }

    private Event awaitEvent(String pod, String reason, String messagePrefix) {
        return await().atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(10))
                .until(
                        () -> client.resources(Event.class).inNamespace(ns).list(ListOptions.none()).items().stream()
                                .filter(e -> pod.equals(e.getInvolvedObject().getName())
                                        && reason.equals(e.getReason())
                                        && e.getMessage().startsWith(messagePrefix))
                                .findFirst()
                                .orElse(null),
                        e -> e != null);
    }
}
