package io.kubeloop.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.clock.FakeClock;
import io.kubeloop.testkit.KubeloopTest;
import org.junit.jupiter.api.Test;

/** {@code @KubeloopTest(nodes = 2, fakeClock = true)}: the test kit finds this module's cluster through its SPI. */
@KubeloopTest(nodes = 2, speed = 10, fakeClock = true)
class TestkitClusterTest {

    @Test
    void theTestGetsTheClusterBehindItsServerAndItsClock(
            EmbeddedCluster cluster, EmbeddedApiServer server, FakeClock clock, KubernetesClient client) {
        assertThat(cluster.apiServer()).isSameAs(server);
        assertThat(cluster.clock()).isSameAs(clock);
        assertThat(cluster.timings().speed()).isEqualTo(10.0);
        assertThat(client.resources(Node.class).list().items())
                .extracting(n -> n.getMetadata().getName())
                .containsExactlyInAnyOrder("node-1", "node-2");
    }
}
