package io.kubeloop.cluster.internal.deployment;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetStatus;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.resource.PatchOptions;
import io.kubeloop.client.resource.PatchType;
import io.kubeloop.client.resource.ResourceClient;
import io.kubeloop.client.transport.RateLimiter;
import io.kubeloop.clock.Clock;
import io.kubeloop.clock.FakeClock;
import io.kubeloop.cluster.ClusterTimings;
import io.kubeloop.controller.Manager;
import io.kubeloop.controller.OwnerReferences;
import io.kubeloop.controller.Result;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * The embedded API server, a manager with the Deployment controller, and a test-only stand-in for the ReplicaSet
 * controller (another area's): it reports {@code status.replicas = spec.replicas} and makes
 * {@code min(spec.replicas, cap)} of them ready and available, the cap set per ReplicaSet name by the test
 * ({@link #cap}) or by default ({@link #defaultCap}), so that a rollout can be stepped.
 *
 * <p>On a {@link FakeClock}, waits step the clock by a few milliseconds at every poll: the runtime's back-off after a
 * 409 (a ReplicaSet written by both controllers) is on the manager's clock and would otherwise never elapse.
 */
final class DeploymentHarness implements AutoCloseable {

    static final Duration PUMP = Duration.ofMillis(20);

    final Clock clock;
    final EmbeddedApiServer server;
    final KubernetesClient client;
    final Manager manager;
    final ResourceClient<Deployment> deployments;
    final ResourceClient<ReplicaSet> replicaSets;
    final Map<String, Integer> caps = new ConcurrentHashMap<>();
    volatile int defaultCap = Integer.MAX_VALUE;

    DeploymentHarness(Clock clock, ClusterTimings timings) throws Exception {
        this.clock = clock;
        this.server = EmbeddedApiServer.builder().clock(clock).start();
        this.client = KubernetesClient.builder(ClientConfig.builder()
                        .server(server.url())
                        .namespace("default")
                        .build())
                .rateLimiter(RateLimiter.unlimited())
                .build();
        this.manager = Manager.builder(client)
                .clock(clock)
                .metricsPort(-1)
                .healthProbePort(-1)
                .gracefulShutdownTimeout(Duration.ZERO)
                .build();
        DeploymentController.register(manager, timings);
        var cache = manager.client();
        manager.newControllerFor(ReplicaSet.class).named("test-replicasets").complete(request -> {
            ReplicaSet rs = cache.get(ReplicaSet.class, request).orElse(null);
            if (rs == null) {
                return Result.done();
            }
            int spec = Deployments.replicas(rs);
            int available = Math.min(spec, caps.getOrDefault(rs.getMetadata().getName(), defaultCap));
            ReplicaSetStatus status = new ReplicaSetStatus();
            status.setReplicas(spec);
            status.setFullyLabeledReplicas(spec);
            status.setReadyReplicas(available);
            status.setAvailableReplicas(available);
            status.setObservedGeneration(rs.getMetadata().getGeneration());
            ReplicaSetStatus now = rs.getStatus() == null ? new ReplicaSetStatus() : rs.getStatus();
            if (!Objects.equals(now.getReplicas(), spec)
                    || !Objects.equals(now.getReadyReplicas(), available)
                    || !Objects.equals(now.getAvailableReplicas(), available)
                    || !Objects.equals(
                            now.getObservedGeneration(), rs.getMetadata().getGeneration())) {
                rs.setStatus(status);
                cache.updateStatus(rs);
            }
            return Result.done();
        });
        deployments = client.resources(Deployment.class).inNamespace("default");
        replicaSets = client.resources(ReplicaSet.class).inNamespace("default");
        manager.informerFactory().start();
        for (Class<? extends HasMetadata> type : List.of(Deployment.class, ReplicaSet.class, Pod.class)) {
            var informer = manager.informerFactory().informerFor(type);
            await().atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(2))
                    .until(informer::hasSynced);
        }
        manager.start();
    }

    /** Sets how many pods of ReplicaSet {@code name} the stand-in makes available, and wakes it. */
    void cap(String name, int available) {
        caps.put(name, available);
        replicaSets
                .get(name)
                .ifPresent(rs -> replicaSets.patch(
                        name,
                        io.kubeloop.client.resource.PatchType.MERGE,
                        "{\"metadata\":{\"annotations\":{\"test/cap\":\"" + available + "\"}}}",
                        io.kubeloop.client.resource.PatchOptions.none()));
    }

    /** Waits (bounded) until {@code value} satisfies {@code until}, stepping a fake clock at every poll. */
    <V> V eventually(Callable<V> value, Predicate<? super V> until) {
        // 30 s bounds a failure on a loaded machine; a passing wait takes milliseconds to a second. Polls 10 ms
        // apart keep the test's own requests from crowding the controllers' on two shared cores.
        return await().atMost(Duration.ofSeconds(30))
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(10))
                .until(
                        () -> {
                            if (clock instanceof FakeClock fake) {
                                fake.step(PUMP);
                            }
                            return value.call();
                        },
                        until::test);
    }

    Deployment deployment(String name) {
        return deployments.get(name).orElseThrow();
    }

    /** The Deployment's ReplicaSets, oldest revision first. */
    List<ReplicaSet> replicaSetsOf(String deployment) {
        Deployment d = deployment(deployment);
        return replicaSets.list().items().stream()
                .filter(rs -> OwnerReferences.controllerOf(rs)
                        .map(r -> r.getUid().equals(d.getMetadata().getUid()))
                        .orElse(false))
                .sorted(Comparator.comparingLong(Deployments::revision))
                .toList();
    }

    /** The sizes ({@code spec.replicas}) of the Deployment's ReplicaSets, oldest revision first. */
    List<Integer> sizes(String deployment) {
        return replicaSetsOf(deployment).stream().map(Deployments::replicas).toList();
    }

    /** The messages of the Events about {@code name} with {@code reason}, in the order they were first seen. */
    List<String> events(String name, String reason) {
        return client.resources(Event.class).inNamespace("default").list().items().stream()
                .filter(e -> name.equals(e.getInvolvedObject().getName()) && reason.equals(e.getReason()))
                .sorted(Comparator.comparing((Event e) -> e.getFirstTimestamp())
                        .thenComparing(
                                e -> e.getMetadata().getResourceVersion(), Comparator.comparingLong(Long::parseLong)))
                .map(Event::getMessage)
                .toList();
    }

    /** A RollingUpdate Deployment {@code name} of nginx, selecting {@code app=<name>}. */
    static DeploymentBuilder deployment(String name, int replicas, String image) {
        return new DeploymentBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("default")
                .endMetadata()
                .withNewSpec()
                .withReplicas(replicas)
                .withNewSelector()
                .withMatchLabels(Map.of("app", name))
                .endSelector()
                .withNewTemplate()
                .withNewMetadata()
                .withLabels(Map.of("app", name))
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("nginx")
                .withImage(image)
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec();
    }

    static IntOrString intOrString(String value) {
        return value.endsWith("%") ? new IntOrString(value) : new IntOrString(Integer.parseInt(value));
    }

    /** Sets the image of the Deployment's container as {@code kubectl set image} does: a new pod template. */
    Deployment setImage(String name, String image) {
        return patch(
                name,
                PatchType.STRATEGIC,
                "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"nginx\",\"image\":\"" + image
                        + "\"}]}}}}");
    }

    /** A merge patch without a resourceVersion (as kubectl sends): the controller writes the status meanwhile. */
    Deployment merge(String name, String json) {
        return patch(name, PatchType.MERGE, json);
    }

    private Deployment patch(String name, PatchType type, String body) {
        return deployments.patch(name, type, body, PatchOptions.none());
    }

    @Override
    public void close() {
        manager.close();
        client.close();
        server.close();
    }
}
