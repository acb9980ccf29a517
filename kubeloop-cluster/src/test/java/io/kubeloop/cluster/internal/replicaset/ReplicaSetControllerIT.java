package io.kubeloop.cluster.internal.replicaset;

import static io.kubeloop.testsupport.TestThreads.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetCondition;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.apiserver.fault.Failure;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.resource.PatchOptions;
import io.kubeloop.client.resource.PatchType;
import io.kubeloop.client.resource.ResourceClient;
import io.kubeloop.client.transport.RateLimiter;
import io.kubeloop.clock.FakeClock;
import io.kubeloop.cluster.ClusterTimings;
import io.kubeloop.controller.Manager;
import io.micrometer.core.instrument.Counter;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The ReplicaSet controller against the embedded API server over HTTP, with one control-plane {@link Manager} on a
 * {@link FakeClock} for the whole class (each test in its own namespace). No nodes and no kubelet: tests set pod
 * status themselves where readiness matters.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReplicaSetControllerIT {

    private static final AtomicInteger NAMESPACES = new AtomicInteger();

    private final FakeClock clock = new FakeClock(Instant.parse("2026-03-01T10:00:00Z"));
    private EmbeddedApiServer server;
    private KubernetesClient client;
    private Manager manager;

    @BeforeAll
    void start() {
        server = EmbeddedApiServer.builder().clock(clock).faultInjection(true).start();
        // The client keeps the system clock (its retry waits must not wait for the test to step the fake clock) and
        // has no QPS limit, as the control plane's; the manager's own timers (requeues, back-off, expectations) run
        // on the fake clock.
        client = KubernetesClient.builder(
                        ClientConfig.builder().server(server.url()).build())
                .rateLimiter(RateLimiter.unlimited())
                .build();
        manager = Manager.builder(client)
                .clock(clock)
                .metricsPort(-1)
                .healthProbePort(-1)
                .gracefulShutdownTimeout(Duration.ZERO)
                .build();
        ReplicaSetController.register(manager, ClusterTimings.DEFAULTS);
        // The manager waits for its caches by polling on its clock, which this test steps by hand: let the caches
        // sync in real time first, so that its own wait returns at once.
        manager.informerFactory().start();
        eventually()
                .until(() -> manager.informerFactory().informerFor(Pod.class).hasSynced()
                        && manager.informerFactory()
                                .informerFor(ReplicaSet.class)
                                .hasSynced());
        manager.start();
    }

    @AfterAll
    void stop() {
        if (manager != null) {
            manager.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void createsTheMissingPodsFromTheTemplateWithAControllerReferenceAndReportsStatus() {
        String ns = namespace();
        ReplicaSet rs = rs(ns, "web", 3, 0);

        List<Pod> pods = eventually().until(() -> pods(ns), p -> p.size() == 3);
        for (Pod p : pods) {
            assertThat(p.getMetadata().getName()).startsWith("web-").hasSize("web-".length() + 5);
            assertThat(p.getMetadata().getLabels()).containsEntry("app", "web");
            assertThat(p.getMetadata().getAnnotations()).containsEntry("note", "from-template");
            OwnerReference ref = p.getMetadata().getOwnerReferences().get(0);
            assertThat(ref.getApiVersion()).isEqualTo("apps/v1");
            assertThat(ref.getKind()).isEqualTo("ReplicaSet");
            assertThat(ref.getName()).isEqualTo("web");
            assertThat(ref.getUid()).isEqualTo(rs.getMetadata().getUid());
            assertThat(ref.getController()).isTrue();
            assertThat(ref.getBlockOwnerDeletion()).isTrue();
            assertThat(p.getSpec().getContainers().get(0).getImage()).isEqualTo("nginx");
        }
        ReplicaSet stored =
                eventually().until(() -> get(ns, "web"), r -> num(r.getStatus().getReplicas()) == 3);
        assertThat(stored.getStatus().getFullyLabeledReplicas()).isEqualTo(3);
        assertThat(num(stored.getStatus().getReadyReplicas())).isZero();
        assertThat(stored.getStatus().getObservedGeneration())
                .isEqualTo(stored.getMetadata().getGeneration());
        List<String> created = eventually().until(() -> messages(ns, "web", "SuccessfulCreate"), m -> m.size() == 3);
        assertThat(created)
                .containsExactlyInAnyOrderElementsOf(pods.stream()
                        .map(p -> "Created pod: " + p.getMetadata().getName())
                        .toList());
        assertThat(events(ns, "web", "SuccessfulCreate").get(0).getType()).isEqualTo("Normal");
        assertThat(events(ns, "web", "SuccessfulCreate").get(0).getSource().getComponent())
                .isEqualTo("replicaset-controller");
    }

    @Test
    void aDeletedPodIsReplacedAndScalingDownThroughTheScaleSubresourceDeletes() {
        String ns = namespace();
        rs(ns, "api", 2, 0);
        List<Pod> pods = eventually().until(() -> pods(ns), p -> p.size() == 2);

        podClient(ns).delete(pods.get(0).getMetadata().getName());
        eventually()
                .until(
                        () -> pods(ns),
                        p -> p.size() == 2
                                && p.stream().noneMatch(x -> x.getMetadata()
                                        .getName()
                                        .equals(pods.get(0).getMetadata().getName())));

        client.resources(ReplicaSet.class).inNamespace(ns).updateScale("api", 0);
        eventually().until(() -> pods(ns), List::isEmpty);
        List<String> deleted = eventually().until(() -> messages(ns, "api", "SuccessfulDelete"), m -> m.size() == 2);
        assertThat(deleted).allMatch(m -> m.startsWith("Deleted pod: api-"));
        eventually().until(() -> num(get(ns, "api").getStatus().getReplicas()) == 0);
        assertThat(messages(ns, "api", "SuccessfulCreate")).hasSize(3);
    }

    @Test
    void scalingDownDeletesUnassignedPendingAndNotReadyPodsBeforeReadyOnesAndTheNewestReadyFirst() {
        String ns = namespace();
        Instant now = clock.now();
        orphan(ns, "unassigned", null, null, null);
        orphan(ns, "pending", "node-a", "Pending", null);
        orphan(ns, "not-ready", "node-a", "Running", null);
        orphan(ns, "ready-recent", "node-a", "Running", now.minusSeconds(10));
        orphan(ns, "ready-long", "node-b", "Running", now.minus(Duration.ofHours(2)));

        eventually().until(() -> manager.client()
                .getReadOnly(Pod.class, ns, "ready-long")
                .map(io.kubeloop.cluster.internal.workloads.PodConditions::isReady)
                .orElse(false));
        rs(ns, "pick", 2, 0); // adopts the 5 orphans, then deletes 3

        eventually().until(() -> activeNames(ns), n -> n.size() == 2);
        assertThat(activeNames(ns)).containsExactlyInAnyOrder("ready-recent", "ready-long");
        assertThat(podClient(ns).get("ready-long").orElseThrow().getMetadata().getOwnerReferences())
                .extracting(OwnerReference::getName)
                .containsExactly("pick");

        client.resources(ReplicaSet.class).inNamespace(ns).updateScale("pick", 1);
        eventually().until(() -> activeNames(ns), n -> n.equals(List.of("ready-long")));
    }

    @Test
    void adoptsMatchingOrphansAndReleasesOwnedPodsThatNoLongerMatch() {
        String ns = namespace();
        orphan(ns, "stray", null, null, null);
        // the pod and ReplicaSet watches are separate streams: make sure the controller sees the orphan first (else
        // it may create 2 pods, adopt the orphan and delete one of the 3 — kube's behaviour too)
        eventually()
                .until(() ->
                        manager.client().getReadOnly(Pod.class, ns, "stray").isPresent());
        ReplicaSet rs = rs(ns, "db", 2, 0);

        eventually().until(() -> pods(ns), p -> p.size() == 2);
        Pod stray = eventually()
                .until(
                        () -> podClient(ns).get("stray").orElseThrow(),
                        p -> p.getMetadata().getOwnerReferences() != null
                                && !p.getMetadata().getOwnerReferences().isEmpty());
        OwnerReference ref = stray.getMetadata().getOwnerReferences().get(0);
        assertThat(ref.getUid()).isEqualTo(rs.getMetadata().getUid());
        assertThat(ref.getController()).isTrue();
        assertThat(ref.getBlockOwnerDeletion()).isTrue();
        assertThat(messages(ns, "db", "SuccessfulCreate")).hasSizeLessThanOrEqualTo(1);

        podClient(ns).edit("stray", p -> new PodBuilder(p)
                .editMetadata()
                .withLabels(Map.of("app", "elsewhere"))
                .endMetadata()
                .build());
        eventually()
                .until(
                        () -> podClient(ns).get("stray").orElseThrow(),
                        p -> p.getMetadata().getOwnerReferences() == null
                                || p.getMetadata().getOwnerReferences().isEmpty());
        // released: the ReplicaSet counts one pod less and creates a replacement
        eventually()
                .until(() -> pods(ns).stream()
                                .filter(p ->
                                        "db".equals(p.getMetadata().getLabels().get("app")))
                                .count()
                        == 2);
    }

    @Test
    void expectationsKeepAStaleCacheFromCreatingMorePods() {
        String ns = namespace();
        server.faults().stall(Duration.ofHours(1), "pods"); // the pod cache sees nothing until cleared
        try {
            rs(ns, "burst", 3, 0);
            eventually().until(() -> podClient(ns).list().items().size() == 3);
            for (int i = 0; i < 5; i++) { // each change of the ReplicaSet is a reconcile on an empty pod cache
                int n = i;
                double before = reconciles();
                // a merge patch, not a read-modify-write: the controller writes the status meanwhile (409s)
                client.resources(ReplicaSet.class)
                        .inNamespace(ns)
                        .patch(
                                "burst",
                                PatchType.MERGE,
                                "{\"metadata\":{\"annotations\":{\"poke\":\"" + n + "\"}}}",
                                PatchOptions.none());
                eventually().until(() -> reconciles() > before);
            }
            assertThat(podClient(ns).list().items()).hasSize(3);
        } finally {
            server.faults().clear();
        }
        eventually().until(() -> num(get(ns, "burst").getStatus().getReplicas()) == 3);
        assertThat(podClient(ns).list().items()).hasSize(3);
        assertThat(messages(ns, "burst", "SuccessfulCreate")).hasSize(3);
    }

    @Test
    void availableReplicasWaitForMinReadySecondsOnTheClusterClock() {
        String ns = namespace();
        rs(ns, "slow", 1, 30);
        Pod pod = eventually().until(() -> pods(ns), p -> p.size() == 1).get(0);
        Instant readyAt = clock.now().truncatedTo(ChronoUnit.SECONDS);
        setStatus(ns, pod.getMetadata().getName(), "Running", readyAt);

        ReplicaSet rs =
                eventually().until(() -> get(ns, "slow"), r -> num(r.getStatus().getReadyReplicas()) == 1);
        assertThat(num(rs.getStatus().getAvailableReplicas())).isZero();
        clock.step(Duration.ofSeconds(29));
        assertThat(num(get(ns, "slow").getStatus().getAvailableReplicas())).isZero();
        clock.step(Duration.ofSeconds(2)); // past readyAt + 30 s: the requeue fires
        eventually().until(() -> num(get(ns, "slow").getStatus().getAvailableReplicas()) == 1);
    }

    @Test
    void aFailedCreateSetsReplicaFailureAndAWarningUntilACreateSucceeds() {
        String ns = namespace();
        server.faults().fail(Failure.status(500).resource("pods").verb("create"));
        try {
            rs(ns, "broken", 2, 0);
            ReplicaSetCondition failure = eventually()
                    .until(() -> replicaFailure(get(ns, "broken")), Optional::isPresent)
                    .orElseThrow();
            assertThat(failure.getStatus()).isEqualTo("True");
            assertThat(failure.getReason()).isEqualTo("FailedCreate");
            assertThat(failure.getMessage()).contains("injected by kubeloop");
            List<Event> warnings = eventually().until(() -> events(ns, "broken", "FailedCreate"), e -> !e.isEmpty());
            assertThat(warnings.get(0).getType()).isEqualTo("Warning");
            assertThat(warnings.get(0).getMessage())
                    .startsWith("Error creating: ")
                    .contains("injected by kubeloop");
            // slow start: the first batch (one pod) failed, so the second was never tried
            assertThat(podClient(ns).list().items()).isEmpty();
        } finally {
            server.faults().clear();
        }
        clock.step(Duration.ofSeconds(2)); // the reconcile's back-off
        eventually().until(() -> pods(ns).size() == 2);
        eventually().until(() -> replicaFailure(get(ns, "broken")).isEmpty());
    }

    // ---- helpers ------------------------------------------------------------------------------------------------

    private String namespace() {
        String ns = "rs-" + NAMESPACES.incrementAndGet();
        client.resources(io.fabric8.kubernetes.api.model.Namespace.class)
                .create(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(ns)
                        .endMetadata()
                        .build());
        return ns;
    }

    private ReplicaSet rs(String ns, String name, int replicas, int minReadySeconds) {
        return client.resources(ReplicaSet.class)
                .inNamespace(ns)
                .create(new ReplicaSetBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .endMetadata()
                        .withNewSpec()
                        .withReplicas(replicas)
                        .withMinReadySeconds(minReadySeconds)
                        .withNewSelector()
                        .withMatchLabels(Map.of("app", appOf(name)))
                        .endSelector()
                        .withNewTemplate()
                        .withNewMetadata()
                        .withLabels(Map.of("app", appOf(name)))
                        .withAnnotations(Map.of("note", "from-template"))
                        .endMetadata()
                        .withNewSpec()
                        .addNewContainer()
                        .withName("main")
                        .withImage("nginx")
                        .endContainer()
                        .endSpec()
                        .endTemplate()
                        .endSpec()
                        .build());
    }

    /** The ranking and adoption tests' orphans carry the label of the ReplicaSet "pick" or "db". */
    private static String appOf(String rsName) {
        return rsName;
    }

    private void orphan(String ns, String name, String node, String phase, Instant readySince) {
        String app = name.equals("stray") ? "db" : "pick";
        Pod pod = podClient(ns)
                .create(new PodBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withLabels(Map.of("app", app))
                        .endMetadata()
                        .withNewSpec()
                        .withNodeName(node)
                        .addNewContainer()
                        .withName("main")
                        .withImage("nginx")
                        .endContainer()
                        .endSpec()
                        .build());
        if (phase != null) {
            setStatus(ns, pod.getMetadata().getName(), phase, readySince);
        }
    }

    private void setStatus(String ns, String name, String phase, Instant readySince) {
        Pod current = podClient(ns).get(name).orElseThrow();
        List<PodCondition> conditions = new ArrayList<>();
        conditions.add(new PodConditionBuilder()
                .withType("Ready")
                .withStatus(readySince == null ? "False" : "True")
                .withLastTransitionTime((readySince == null ? clock.now() : readySince)
                        .truncatedTo(ChronoUnit.SECONDS)
                        .toString())
                .build());
        current.getStatus().setPhase(phase);
        current.getStatus().setConditions(conditions);
        podClient(ns).updateStatus(current);
    }

    private ResourceClient<Pod> podClient(String ns) {
        return client.resources(Pod.class).inNamespace(ns);
    }

    private List<Pod> pods(String ns) {
        return podClient(ns).list().items().stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .toList();
    }

    private List<String> activeNames(String ns) {
        return pods(ns).stream().map(p -> p.getMetadata().getName()).sorted().toList();
    }

    private ReplicaSet get(String ns, String name) {
        ReplicaSet rs =
                client.resources(ReplicaSet.class).inNamespace(ns).get(name).orElseThrow();
        if (rs.getStatus() == null) {
            rs.setStatus(new io.fabric8.kubernetes.api.model.apps.ReplicaSetStatus());
        }
        return rs;
    }

    private static Optional<ReplicaSetCondition> replicaFailure(ReplicaSet rs) {
        return rs.getStatus().getConditions() == null
                ? Optional.empty()
                : rs.getStatus().getConditions().stream()
                        .filter(c -> "ReplicaFailure".equals(c.getType()))
                        .findFirst();
    }

    private List<Event> events(String ns, String involved, String reason) {
        return client.resources(Event.class).inNamespace(ns).list().items().stream()
                .filter(e -> involved.equals(e.getInvolvedObject().getName()) && reason.equals(e.getReason()))
                .toList();
    }

    private List<String> messages(String ns, String involved, String reason) {
        return events(ns, involved, reason).stream().map(Event::getMessage).toList();
    }

    private double reconciles() {
        return manager
                .meterRegistry()
                .find("controller.runtime.reconcile")
                .tag("controller", "replicaset")
                .counters()
                .stream()
                .mapToDouble(Counter::count)
                .sum();
    }

    private static int num(Integer i) {
        return i == null ? 0 : i;
    }
}
