package io.kubeloop.testkit.internal;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.transport.RateLimiter;
import io.kubeloop.clock.Clock;
import io.kubeloop.clock.FakeClock;
import io.kubeloop.testkit.spi.ClusterProvider;
import java.security.SecureRandom;
import java.security.cert.CertificateEncodingException;
import java.time.Duration;
import java.util.Base64;
import java.util.ServiceLoader;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;

/**
 * One embedded API server started for tests, with the administrator's client configuration and a client that
 * creates and deletes the test namespaces.
 *
 * <p>Over TLS the administrator is a bearer token in group {@code system:masters}, minted here at random and kept
 * only in memory: nothing is written to disk. Closed by the JUnit store that holds it (the class's, or the root's
 * when shared), which stops the server.
 */
final class RunningServer implements AutoCloseable {

    static final String ADMIN_USER = "kubeloop-testkit-admin";

    private final ServerSettings settings;
    private final EmbeddedApiServer server;
    /** The server's clock when it runs on a fake one ({@code fakeClock = true}), else null. */
    private final FakeClock fakeClock;
    /** The cluster behind the server ({@code nodes > 0}), else null; closing it stops the server too. */
    private final ClusterProvider.RunningCluster cluster;

    private final ClientConfig adminConfig;
    private final KubernetesClient admin;
    /** From {@code start()} called to the server bound and serving. */
    private final Duration startTime;
    /** From {@code start()} called to the first request answered over HTTP. */
    private final Duration readyTime;

    private final AtomicBoolean reported = new AtomicBoolean();

    private RunningServer(
            ServerSettings settings,
            EmbeddedApiServer server,
            FakeClock fakeClock,
            ClusterProvider.RunningCluster cluster,
            ClientConfig adminConfig,
            KubernetesClient admin,
            Duration startTime,
            Duration readyTime) {
        this.settings = settings;
        this.server = server;
        this.fakeClock = fakeClock;
        this.cluster = cluster;
        this.adminConfig = adminConfig;
        this.admin = admin;
        this.startTime = startTime;
        this.readyTime = readyTime;
    }

    static RunningServer start(ServerSettings settings) {
        // Reported start-up times are real time by nature: the system clock, never a test's fake one.
        Clock clock = Clock.system();
        long t0 = clock.nanoTime();
        EmbeddedApiServer.Builder builder =
                EmbeddedApiServer.builder().rbac(settings.rbac()).faultInjection(settings.faults());
        String token = null;
        if (settings.tls()) {
            token = randomToken();
            builder.tls().token(ADMIN_USER, token, "system:masters");
        }
        FakeClock fakeClock = settings.fakeClock() ? new FakeClock() : null;
        if (fakeClock != null) {
            builder.clock(fakeClock);
        }
        ClusterProvider.RunningCluster cluster = null;
        EmbeddedApiServer server;
        if (settings.nodes() > 0) {
            cluster = clusterProvider()
                    .start(builder, settings.nodes(), settings.speed(), fakeClock != null ? fakeClock : Clock.system());
            server = cluster.server();
        } else {
            server = builder.start();
        }
        long started = clock.nanoTime();
        try {
            ClientConfig.Builder config =
                    ClientConfig.builder().server(server.url()).namespace("default");
            if (token != null) {
                config.certificateAuthorityPem(pem(server)).token(token);
            }
            ClientConfig adminConfig = config.build();
            KubernetesClient admin = client(adminConfig);
            // Ready means answering over HTTP through the same client stack the test will use.
            admin.resources(Namespace.class)
                    .get("default")
                    .orElseThrow(() -> new IllegalStateException("the new API server has no namespace default"));
            long ready = clock.nanoTime();
            return new RunningServer(
                    settings,
                    server,
                    fakeClock,
                    cluster,
                    adminConfig,
                    admin,
                    Duration.ofNanos(started - t0),
                    Duration.ofNanos(ready - t0));
        } catch (RuntimeException e) {
            if (cluster != null) {
                cluster.close();
            } else {
                server.close();
            }
            throw e;
        }
    }

    /**
     * The one {@link ClusterProvider} on the class path ({@code kubeloop-cluster}'s).
     *
     * @throws ExtensionConfigurationException there is none
     */
    private static ClusterProvider clusterProvider() {
        return ServiceLoader.load(ClusterProvider.class)
                .findFirst()
                .orElseThrow(() -> new ExtensionConfigurationException("@KubeloopTest(nodes = ...) starts an embedded "
                        + "cluster, which needs kubeloop-cluster on the test class path: add the dependency "
                        + "io.kubeloop:kubeloop-cluster (scope test), or use nodes = 0 for a bare API server"));
    }
    /** The client every injection hands out: no client-side rate limit (a local server), other defaults kept. */
    static KubernetesClient client(ClientConfig config) {
        return KubernetesClient.builder(config)
                .rateLimiter(RateLimiter.unlimited())
                .build();
    }

    EmbeddedApiServer server() {
        return server;
    }

    /** The server's fake clock, or null when it runs on the system clock. */
    FakeClock fakeClock() {
        return fakeClock;
    }

    /** The cluster behind the server, or null without nodes. */
    ClusterProvider.RunningCluster cluster() {
        return cluster;
    }

    ServerSettings settings() {
        return settings;
    }

    /** The administrator's configuration, namespace {@code default}. */
    ClientConfig adminConfig() {
        return adminConfig;
    }

    /** Creates namespace {@code name} and returns it with a client whose default namespace it is. */
    MethodNamespace createNamespace(String name) {
        admin.resources(Namespace.class)
                .create(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .addToLabels("app.kubernetes.io/managed-by", "kubeloop-testkit")
                        .endMetadata()
                        .build());
        awaitNamespaceObjects(name);
        ClientConfig config = adminConfig.withNamespace(name);
        return new MethodNamespace(name, config, client(config), this);
    }

    /** How long a new namespace may take to get the objects every namespace has. */
    private static final Duration NAMESPACE_OBJECTS_TIMEOUT = Duration.ofSeconds(10);

    /**
     * Waits until namespace {@code name} has its {@code default} ServiceAccount and {@code kube-root-ca.crt}
     * ConfigMap, which the server adds in the background as a cluster's controllers do: every test then starts from
     * the same state (an informer's first list, a reconciler's first keys), not from a race with them. Real time on
     * purpose (short polls, bounded): the server's own controllers, not the test's clock, create them.
     */
    private void awaitNamespaceObjects(String name) {
        long deadline = System.nanoTime() + NAMESPACE_OBJECTS_TIMEOUT.toNanos();
        while (admin.resources(io.fabric8.kubernetes.api.model.ServiceAccount.class)
                        .inNamespace(name)
                        .get("default")
                        .isEmpty()
                || admin.resources(io.fabric8.kubernetes.api.model.ConfigMap.class)
                        .inNamespace(name)
                        .get("kube-root-ca.crt")
                        .isEmpty()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("namespace " + name + " did not get its default ServiceAccount and "
                        + "kube-root-ca.crt within " + NAMESPACE_OBJECTS_TIMEOUT.toSeconds() + " s");
            }
            java.util.concurrent.locks.LockSupport.parkNanos(
                    Duration.ofMillis(2).toNanos());
        }
    }

    /** Deletes namespace {@code name}; the server deletes its contents, then the namespace, in the background. */
    void deleteNamespace(String name) {
        admin.resources(Namespace.class).delete(name);
    }

    /** True the first time only: a server shared by many classes is reported by the first. */
    boolean firstReport() {
        return reported.compareAndSet(false, true);
    }

    String report() {
        return server.url() + " (" + settings.describe() + "): started in " + startTime.toMillis()
                + " ms, answering in " + readyTime.toMillis() + " ms";
    }

    Duration readyTime() {
        return readyTime;
    }

    @Override
    public void close() {
        try {
            admin.close();
        } finally {
            if (cluster != null) {
                cluster.close();
            } else {
                server.close();
            }
        }
    }

    private static String randomToken() {
        byte[] bytes = new byte[32];
        new SecureRandom().nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    private static String pem(EmbeddedApiServer server) {
        try {
            return "-----BEGIN CERTIFICATE-----\n"
                    + Base64.getMimeEncoder(64, new byte[] {'\n'})
                            .encodeToString(server.certificateAuthority().getEncoded())
                    + "\n-----END CERTIFICATE-----\n";
        } catch (CertificateEncodingException e) {
            throw new IllegalStateException("cannot encode the test server's CA certificate", e);
        }
    }
}
