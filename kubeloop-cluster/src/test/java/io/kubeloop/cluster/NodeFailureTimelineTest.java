package io.kubeloop.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.clock.FakeClock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A node failure's whole timeline on a FakeClock, as the seed tells it: a Deployment's pod on node-2; node-2's
 * kubelet stops; 50 s later the node is Unknown and tainted {@code unreachable:NoExecute}; 300 s after that its pod is
 * evicted (and stays Terminating, its kubelet being gone) and a replacement runs on another node; node-2 comes back
 * and its terminating pod is finished.
 */
class NodeFailureTimelineTest {

    /** The node lifecycle controller's monitor period: the step, so that no timer that matters is jumped over. */
    private static final Duration STEP = Duration.ofSeconds(5);

    private final FakeClock clock = new FakeClock();
    private EmbeddedCluster cluster;
    private KubernetesClient client;

    @BeforeEach
    void start() {
        cluster = EmbeddedCluster.builder().nodes(3).clock(clock).start();
        client = KubernetesClient.create(ClientConfig.builder()
                .server(cluster.apiServer().url())
                .namespace("default")
                .build());
    }

    @AfterEach
    void stop() {
        client.close();
        cluster.close();
    }

    @Test
    void aStoppedNodesPodsAreEvictedAfterTheGracePeriodAndTheTolerationAndReplaced() {
        client.resources(Deployment.class).create(deployment("web", 3));
        Duration startup = advanceUntil(() -> running("web").size() == 3, Duration.ofSeconds(60));
        assertThat(startup).isLessThan(Duration.ofSeconds(60));
        List<Pod> onNode2 = running("web").stream()
                .filter(p -> "node-2".equals(p.getSpec().getNodeName()))
                .toList();
        assertThat(onNode2).hasSize(1); // spread evenly over three nodes
        String victim = onNode2.getFirst().getMetadata().getName();
        assertThat(onNode2.getFirst().getSpec().getTolerations())
                .anySatisfy(t -> assertThat(t.getKey() + ":" + t.getEffect() + ":" + t.getTolerationSeconds())
                        .isEqualTo("node.kubernetes.io/unreachable:NoExecute:300"));

        cluster.node("node-2").stop();
        Duration toUnknown = advanceUntil(
                () -> "Unknown".equals(readyStatus("node-2")) && hasTaint("node-2", "node.kubernetes.io/unreachable"),
                Duration.ofSeconds(120));
        // the lease was renewed at most 10 s before the stop; 50 s grace; the monitor looks every 5 s
        assertThat(toUnknown).isBetween(Duration.ofSeconds(40), Duration.ofSeconds(65));
        assertThat(readyStatus("node-1")).isEqualTo("True");
        assertThat(readyStatus("node-3")).isEqualTo("True");
        assertThat(pod(victim).getMetadata().getDeletionTimestamp()).isNull();

        Duration toEviction =
                advanceUntil(() -> pod(victim).getMetadata().getDeletionTimestamp() != null, Duration.ofSeconds(400));
        assertThat(toEviction).isBetween(Duration.ofSeconds(295), Duration.ofSeconds(315));

        Duration toReplacement = advanceUntil(
                () -> running("web").stream()
                                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                                .filter(p -> !"node-2".equals(p.getSpec().getNodeName()))
                                .count()
                        == 3,
                Duration.ofSeconds(60));
        assertThat(toReplacement).isLessThan(Duration.ofSeconds(60));
        // its kubelet is gone: the evicted pod stays Terminating
        advance(Duration.ofSeconds(60));
        assertThat(pod(victim)).isNotNull();

        cluster.node("node-2").start();
        Duration toBack = advanceUntil(
                () -> "True".equals(readyStatus("node-2"))
                        && !hasTaint("node-2", "node.kubernetes.io/unreachable")
                        && pod(victim) == null,
                Duration.ofSeconds(120));
        assertThat(toBack).isLessThan(Duration.ofSeconds(120));
    }

    /**
     * Steps the clock by {@link #STEP} until {@code condition} holds, at most {@code limit} of cluster time; after each
     * step, gives its effects up to 300 ms of real time to show. Returns the cluster time it took.
     */
    private Duration advanceUntil(BooleanSupplier condition, Duration limit) {
        Duration elapsed = Duration.ZERO;
        while (!condition.getAsBoolean()) {
            assertThat(elapsed).as("cluster time waited for the condition").isLessThan(limit);
            step();
            elapsed = elapsed.plus(STEP);
            try {
                await().atMost(Duration.ofMillis(300))
                        .pollInterval(Duration.ofMillis(10))
                        .until(condition::getAsBoolean);
            } catch (org.awaitility.core.ConditionTimeoutException notYet) {
                // not after this step: step again
            }
        }
        return elapsed;
    }

    private void advance(Duration total) {
        for (Duration d = Duration.ZERO; d.compareTo(total) < 0; d = d.plus(STEP)) {
            step();
        }
    }

    private void step() {
        clock.step(STEP);
    }

    private List<Pod> running(String app) {
        return client.resources(Pod.class).list().items().stream()
                .filter(p -> app.equals(p.getMetadata().getLabels().get("app")))
                .filter(p ->
                        p.getStatus() != null && "Running".equals(p.getStatus().getPhase()))
                .toList();
    }

    private Pod pod(String name) {
        return client.resources(Pod.class).get(name).orElse(null);
    }

    private String readyStatus(String node) {
        Node n = client.resources(Node.class).get(node).orElseThrow();
        return n.getStatus().getConditions().stream()
                .filter(c -> "Ready".equals(c.getType()))
                .map(NodeCondition::getStatus)
                .findFirst()
                .orElse(null);
    }

    private boolean hasTaint(String node, String key) {
        Node n = client.resources(Node.class).get(node).orElseThrow();
        List<Taint> taints = n.getSpec().getTaints();
        return taints != null && taints.stream().anyMatch(t -> Objects.equals(key, t.getKey()));
    }

    static Deployment deployment(String name, int replicas) {
        return new DeploymentBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .withReplicas(replicas)
                .withNewSelector()
                .addToMatchLabels("app", name)
                .endSelector()
                .withNewTemplate()
                .withNewMetadata()
                .addToLabels("app", name)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("nginx")
                .withImage("nginx")
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build();
    }
}
