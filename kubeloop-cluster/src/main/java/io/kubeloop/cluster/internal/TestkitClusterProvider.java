package io.kubeloop.cluster.internal;

import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.clock.Clock;
import io.kubeloop.cluster.EmbeddedCluster;
import io.kubeloop.testkit.spi.ClusterProvider;

/**
 * The test kit's way to an {@link EmbeddedCluster} ({@code @KubeloopTest(nodes = N)}), found by its {@link
 * java.util.ServiceLoader}; loaded only where kubeloop-testkit (an optional dependency of this module) is present.
 */
public final class TestkitClusterProvider implements ClusterProvider {

    @Override
    public RunningCluster start(EmbeddedApiServer.Builder server, int nodes, double speed, Clock clock) {
        EmbeddedCluster cluster = EmbeddedCluster.builder()
                .apiServer(server)
                .nodes(nodes)
                .speed(speed)
                .clock(clock)
                .start();
        return new RunningCluster() {
            @Override
            public EmbeddedApiServer server() {
                return cluster.apiServer();
            }

            @Override
            public Object cluster() {
                return cluster;
            }

            @Override
            public void close() {
                cluster.close();
            }
        };
    }
}
