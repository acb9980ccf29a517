package io.kubeloop.testkit.spi;

import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.clock.Clock;

/**
 * How {@code @KubeloopTest(nodes = N)} starts an embedded cluster (nodes, kubelets, scheduler, controllers) behind
 * its API server without depending on the module that has one: {@code kubeloop-cluster} implements this interface and
 * registers it with {@link java.util.ServiceLoader} ({@code META-INF/services/io.kubeloop.testkit.spi.ClusterProvider}),
 * and the test kit loads it when a test class asks for nodes. Not for users to implement or call.
 *
 * <p>Contract: {@link #start} starts the server that {@code server} configures (adding to it what the cluster needs),
 * on {@code clock}, and returns once every node is Ready and the controllers run; closing the result stops the
 * cluster and the server.
 */
public interface ClusterProvider {

    /**
     * Starts a cluster of {@code nodes} nodes at {@code speed} behind the server {@code server} configures, with
     * {@code clock} as the server's and the cluster's clock.
     */
    RunningCluster start(EmbeddedApiServer.Builder server, int nodes, double speed, Clock clock);

    /** A started cluster: its server, and the object a test gets as a parameter. */
    interface RunningCluster extends AutoCloseable {

        /** The started API server. */
        EmbeddedApiServer server();

        /**
         * What a test method gets for a parameter of this object's type ({@code io.kubeloop.cluster.EmbeddedCluster}).
         */
        Object cluster();

        /** Stops the cluster and its server. */
        @Override
        void close();
    }
}
