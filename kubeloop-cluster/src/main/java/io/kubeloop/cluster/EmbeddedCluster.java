package io.kubeloop.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.transport.RateLimiter;
import io.kubeloop.clock.Clock;
import io.kubeloop.cluster.internal.ClusterAdminEndpoint;
import io.kubeloop.cluster.internal.ControlPlane;
import io.kubeloop.cluster.internal.kubelet.Kubelets;
import io.kubeloop.cluster.internal.kubelet.NodeTemplate;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * A small Kubernetes cluster in the JVM: kubeloop's embedded API server with simulated nodes and their kubelets, a
 * scheduler and the controllers of kube-controller-manager an operator relies on behind it, all on the server's
 * clock. {@code kubectl create deployment web --image=nginx --replicas=3} against it gives three Running pods on three
 * nodes.
 *
 * <pre>{@code
 * try (EmbeddedCluster cluster = EmbeddedCluster.builder().nodes(3).start()) {
 *     cluster.apiServer().writeKubeconfig(Path.of("kubeconfig"));
 *     cluster.node("node-2").stop();   // heartbeats stop: NotReady after 50 s, pods evicted after 300 s more
 * }
 * }</pre>
 *
 * <p><b>Start</b> ({@link Builder#start()}) starts the server, registers the nodes and starts their kubelets, then
 * the control plane; it returns once every node is {@code Ready} and every controller's cache has synced. <b>Close</b>
 * stops them in reverse order: controllers, kubelets, server.
 *
 * <p><b>Time.</b> Every timer of the cluster runs on the server's {@link Clock} at {@link ClusterTimings#speed()}: a
 * test that passes a {@code FakeClock} steps it to move the whole cluster (node leases, the node monitor's grace
 * period, eviction, graceful deletions, back-offs); at speed 10 a node failure's 6-minute timeline plays in 35 s.
 *
 * <p><b>Faults.</b> {@link SimulatedNode#stop()}, {@link SimulatedNode#partition(Duration)}, {@link
 * #crashContainer(String, String)} and {@link #restartControllers()}, and the same through the server's admin path
 * {@code /kubeloop/cluster} (the {@code kubeloop node}, {@code pod} and {@code controllers} commands); the server's
 * own fault injection ({@code Faults}) works as without a cluster. A controller that fails logs and is retried; it
 * never stops the server.
 *
 * <p>Thread-safe.
 */
public final class EmbeddedCluster implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedCluster.class);

    /** The name of the admin path: {@code /kubeloop/cluster}. */
    static final String ADMIN_NAME = "cluster";

    /** The Kubernetes version the cluster's components report, as in their User-Agent. */
    private static final String COMPONENT_VERSION = "v1.32.0";

    private final EmbeddedApiServer server;
    private final Clock clock;
    private final ClusterTimings timings;
    private final KubernetesClient controlPlaneClient;
    private final KubernetesClient kubeletClient;
    private final Kubelets kubelets;
    private final ControlPlane controlPlane;
    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by {@code lock}. */
    private boolean closed;

    private EmbeddedCluster(
            EmbeddedApiServer server,
            Clock clock,
            ClusterTimings timings,
            KubernetesClient controlPlaneClient,
            KubernetesClient kubeletClient,
            Kubelets kubelets,
            ControlPlane controlPlane) {
        this.server = server;
        this.clock = clock;
        this.timings = timings;
        this.controlPlaneClient = controlPlaneClient;
        this.kubeletClient = kubeletClient;
        this.kubelets = kubelets;
        this.controlPlane = controlPlane;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The API server: {@code url()}, {@code kubeconfig()}, {@code writeKubeconfig(path)}, {@code faults()} … */
    public EmbeddedApiServer apiServer() {
        return server;
    }

    /** The clock every component of the cluster runs on: the server's. */
    public Clock clock() {
        return clock;
    }

    /** The cluster's timers and speed. */
    public ClusterTimings timings() {
        return timings;
    }

    /** The nodes, in the order they were registered ({@code node-1}, {@code node-2}, …). */
    public List<SimulatedNode> nodes() {
        return kubelets.nodes();
    }

    /**
     * The node named {@code name}.
     *
     * @throws java.util.NoSuchElementException there is no such node
     */
    public SimulatedNode node(String name) {
        Objects.requireNonNull(name, "name");
        return kubelets.node(name);
    }

    /**
     * Crashes the containers of pod {@code namespace/name} as its node's kubelet would report it: terminated with exit
     * code 137 (reason Error), then restarted per the pod's {@code restartPolicy}, with the restart count and the
     * CrashLoopBackOff back-off of a kubelet (10 s doubling to 5 min, cluster time).
     *
     * @throws java.util.NoSuchElementException there is no such pod
     * @throws IllegalArgumentException the pod is not bound to a node, or its node does not run
     */
    public void crashContainer(String namespace, String name) {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(name, "name");
        kubelets.crashContainer(namespace, name);
    }

    /**
     * Stops every controller and the scheduler and starts them again, with empty caches and work queues, as a
     * restarted kube-controller-manager: objects are left as they are, and the new controllers resume from what they
     * find. Returns once the new controllers' caches have synced.
     *
     * @throws IllegalStateException the cluster is closed
     */
    public void restartControllers() {
        lock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("the cluster is closed");
            }
        } finally {
            lock.unlock();
        }
        controlPlane.restart();
    }

    /** Stops the controllers, the kubelets and the server, in that order. Idempotent. */
    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
        } finally {
            lock.unlock();
        }
        closeAll(List.of(controlPlane, controlPlaneClient, kubelets, kubeletClient, server));
        log.info("cluster stopped");
    }

    /** Closes each in order; the first failure is thrown once all were tried, the others added to it. */
    private static void closeAll(List<AutoCloseable> parts) {
        RuntimeException failure = null;
        for (AutoCloseable part : parts) {
            if (part == null) {
                continue;
            }
            try {
                part.close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = e instanceof RuntimeException r ? r : new IllegalStateException(e);
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** The control plane, for the admin endpoint. */
    ControlPlane controlPlane() {
        return controlPlane;
    }

    @Override
    public String toString() {
        return "EmbeddedCluster{" + server.url() + ", " + kubelets.nodes().size() + " nodes, speed " + timings.speed()
                + "}";
    }

    /** Builds and starts an {@link EmbeddedCluster}. */
    public static final class Builder {
        private EmbeddedApiServer.Builder apiServer;
        private int nodes = 3;
        private ClusterTimings timings = ClusterTimings.DEFAULTS;
        private Clock clock;
        private Duration readyTimeout = Duration.ofSeconds(30);

        private Builder() {}

        /**
         * The API server to start, configured as wanted (TLS, RBAC, fault injection, port…); default {@code
         * EmbeddedApiServer.builder()}. The cluster adds its admin path {@code /kubeloop/cluster} to it.
         */
        public Builder apiServer(EmbeddedApiServer.Builder apiServer) {
            this.apiServer = Objects.requireNonNull(apiServer, "apiServer");
            return this;
        }

        /** How many nodes: {@code node-1} … {@code node-N}, over zones {@code zone-a}, {@code zone-b}, {@code zone-c} (default 3). */
        public Builder nodes(int nodes) {
            if (nodes < 0) {
                throw new IllegalArgumentException("nodes must not be negative, was " + nodes);
            }
            this.nodes = nodes;
            return this;
        }

        /**
         * How many seconds of cluster time pass per second of the clock (default 1): 10 plays a node failure's
         * 50 s grace period and 300 s toleration in 35 s, while objects keep the real values.
         */
        public Builder speed(double speed) {
            this.timings = timings.withSpeed(speed);
            return this;
        }

        /** Every timer of the cluster (default {@link ClusterTimings#DEFAULTS}, Kubernetes' own); sets the speed too. */
        public Builder timings(ClusterTimings timings) {
            this.timings = Objects.requireNonNull(timings, "timings");
            return this;
        }

        /**
         * The clock of the server and of the whole cluster (default: the server builder's, the system clock unless it
         * was given one); tests pass a {@code FakeClock}.
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** How long {@link #start()} waits for every node to be Ready, in real time (default 30 s). */
        public Builder readyTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("readyTimeout must be positive, was " + timeout);
            }
            this.readyTimeout = timeout;
            return this;
        }

        /**
         * Starts the server, the nodes and the control plane; returns once every node is Ready and the controllers
         * run.
         *
         * @throws IllegalStateException a node did not become Ready within the ready timeout, or the controllers did
         *     not start; whatever was started is stopped again
         */
        public EmbeddedCluster start() {
            long t0 = System.nanoTime();
            EmbeddedApiServer.Builder b = apiServer != null ? apiServer : EmbeddedApiServer.builder();
            if (clock != null) {
                b.clock(clock);
            }
            if (timings.defaultTolerationSeconds() != ClusterTimings.DEFAULTS.defaultTolerationSeconds()) {
                // the DefaultTolerationSeconds admission with the cluster's value; else the server builder's (300 s)
                b.defaultTolerationSeconds(timings.defaultTolerationSeconds(), timings.defaultTolerationSeconds());
            }
            ClusterAdminEndpoint admin = new ClusterAdminEndpoint();
            b.adminEndpoint(ADMIN_NAME, admin);
            EmbeddedApiServer server = b.start();
            Clock c = server.clock(); // the builder's, or one the server builder was given
            List<AutoCloseable> started = new ArrayList<>();
            started.add(server);
            try {
                KubernetesClient controlPlaneClient =
                        client(server, "system:kube-controller-manager", "kube-controller-manager");
                started.add(0, controlPlaneClient);
                KubernetesClient kubeletClient = client(server, "system:kubelets", "kubelet");
                started.add(0, kubeletClient);
                Kubelets kubelets = Kubelets.start(kubeletClient, c, timings, NodeTemplate.defaults(nodes));
                started.add(0, kubelets);
                awaitReady(controlPlaneClient, nodes, readyTimeout);
                ControlPlane controlPlane = ControlPlane.start(controlPlaneClient, c, timings);
                EmbeddedCluster cluster = new EmbeddedCluster(
                        server, c, timings, controlPlaneClient, kubeletClient, kubelets, controlPlane);
                admin.attach(cluster, controlPlane);
                log.info(
                        "cluster started in {} ms: {} on {}, {} node(s), speed {}",
                        Duration.ofNanos(System.nanoTime() - t0).toMillis(),
                        "Kubernetes 1.32",
                        server.url(),
                        nodes,
                        timings.speed());
                return cluster;
            } catch (RuntimeException | Error e) {
                try {
                    closeAll(started);
                } catch (RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            }
        }
    }

    /**
     * An administrator's client of {@code server} for one component, named by its User-Agent as kube's components
     * are (so managedFields show {@code kube-controller-manager}, and a fault can partition only the kubelets); no
     * client-side rate limit. Over TLS it logs in with a client certificate the server issues now, in group {@code
     * system:masters}; the credentials stay in memory.
     */
    private static KubernetesClient client(EmbeddedApiServer server, String user, String component) {
        ClientConfig.Builder config = ClientConfig.builder().server(server.url());
        if ("https".equals(server.url().getScheme())) {
            JsonNode kubeconfig = YAMLMapper.builder().build().readTree(server.kubeconfigFor(user, "system:masters"));
            JsonNode cluster = kubeconfig.path("clusters").path(0).path("cluster");
            JsonNode credentials = kubeconfig.path("users").path(0).path("user");
            config.certificateAuthorityPem(decode(cluster.path("certificate-authority-data")))
                    .clientCertificate(
                            decode(credentials.path("client-certificate-data")),
                            decode(credentials.path("client-key-data")));
        }
        return KubernetesClient.builder(config.namespace("default").build())
                .rateLimiter(RateLimiter.unlimited())
                .userAgent(component + "/" + COMPONENT_VERSION + " (linux/amd64) kubernetes/kubeloop")
                .build();
    }

    private static String decode(JsonNode base64) {
        return new String(Base64.getDecoder().decode(base64.asString()), StandardCharsets.US_ASCII);
    }

    /**
     * Waits, in real time and with short polls, until {@code count} nodes are Ready: a cluster answers {@code kubectl
     * get nodes} with Ready nodes from the moment {@code start()} returns.
     */
    private static void awaitReady(KubernetesClient client, int count, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long ready = 0;
        while (true) {
            ready = client.resources(Node.class).list().items().stream()
                    .filter(EmbeddedCluster::isReady)
                    .count();
            if (ready >= count) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(
                        ready + " of " + count + " nodes became Ready within " + timeout.toMillis() + " ms");
            }
            LockSupport.parkNanos(Duration.ofMillis(2).toNanos());
        }
    }

    private static boolean isReady(Node node) {
        if (node.getStatus() == null || node.getStatus().getConditions() == null) {
            return false;
        }
        for (NodeCondition c : node.getStatus().getConditions()) {
            if ("Ready".equals(c.getType())) {
                return "True".equals(c.getStatus());
            }
        }
        return false;
    }
}
