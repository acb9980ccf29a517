package io.kubeloop.demo.operator;

import static io.kubeloop.demo.operator.PodSets.active;
import static io.kubeloop.demo.operator.PodSets.podSet;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.cluster.EmbeddedCluster;
import io.kubeloop.controller.Manager;
import io.kubeloop.demo.PodGuardian;
import io.kubeloop.demo.PodSet;
import io.kubeloop.testkit.KubeloopTest;
import io.kubeloop.testkit.TestNamespace;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A node fails under a PodSet (cluster at speed 10): the node lifecycle controller taints it, the taint eviction
 * controller deletes its pods once their 5 s toleration is over, and pod-guardian replaces each evicted pod on the
 * other node while the evicted one is still Terminating (its kubelet is gone, so it stays so).
 */
@KubeloopTest(nodes = 2, speed = 10)
class PodGuardianEvictionIT {

    @BeforeAll
    static void installTheCrd(KubernetesClient admin) {
        admin.resources(CustomResourceDefinition.class).create(PodGuardian.crd());
    }

    private static Toleration toleration(String key) {
        return new TolerationBuilder()
                .withKey(key)
                .withOperator("Exists")
                .withEffect("NoExecute")
                .withTolerationSeconds(5L)
                .build();
    }

    @Test
    void anEvictedPodIsReplacedOnAnotherNode(
            EmbeddedCluster cluster, KubernetesClient client, @TestNamespace String ns) {
        ListenerRecorder listener = new ListenerRecorder();
        PodSet ps = podSet("web", 2, 30); // a 30 s grace period: the dead kubelet cannot end it
        ps.getSpec()
                .getTemplate()
                .getSpec()
                .setTolerations(List.of(
                        toleration("node.kubernetes.io/unreachable"), toleration("node.kubernetes.io/not-ready")));
        try (Manager manager =
                PodGuardian.builder(client).namespace(ns).listener(listener).build()) {
            manager.start();
            client.resources(PodSet.class).create(ps);
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> active(client, "web").stream()
                                    .filter(PodSets::running)
                                    .count()
                            == 2);
            Pod victim = active(client, "web").get(0);
            String node = victim.getSpec().getNodeName();
            String victimName = victim.getMetadata().getName();

            cluster.node(node).stop();
            try {
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                    assertThat(client.resources(Pod.class).get(victimName))
                            .as("evicted, still Terminating on the dead node")
                            .hasValueSatisfying(p -> assertThat(p.getMetadata().getDeletionTimestamp())
                                    .isNotNull());
                    List<Pod> now = active(client, "web");
                    assertThat(now).hasSize(2).allMatch(PodSets::running);
                    assertThat(now).noneMatch(p -> node.equals(p.getSpec().getNodeName()));
                });
                assertThat(listener.indexOf("seen", victimName)).isNotNegative();
            } finally {
                cluster.node(node).start(); // the cluster is the class's: leave it as found
            }
        }
    }
}
