package io.kubeloop.apiserver;

import com.sun.net.httpserver.HttpServer;
import io.kubeloop.apiserver.fault.FaultInjector;
import io.kubeloop.apiserver.fault.Faults;
import io.kubeloop.apiserver.internal.auth.Authentication;
import io.kubeloop.apiserver.internal.auth.StaticTokens;
import io.kubeloop.apiserver.internal.bootstrap.ClusterObjects;
import io.kubeloop.apiserver.internal.crd.CustomResources;
import io.kubeloop.apiserver.internal.http.AdminEndpoints;
import io.kubeloop.apiserver.internal.http.ApiHttpHandler;
import io.kubeloop.apiserver.internal.http.RequestBody;
import io.kubeloop.apiserver.internal.lifecycle.ObjectLifecycle;
import io.kubeloop.apiserver.internal.rbac.AccessControl;
import io.kubeloop.apiserver.internal.registry.Strategies;
import io.kubeloop.apiserver.internal.server.RequestBoundary;
import io.kubeloop.apiserver.internal.storage.StorageKey;
import io.kubeloop.apiserver.internal.storage.Store;
import io.kubeloop.apiserver.internal.storage.StoreBuilder;
import io.kubeloop.apiserver.internal.tls.Kubeconfig;
import io.kubeloop.apiserver.internal.tls.SecretFiles;
import io.kubeloop.apiserver.internal.tls.ServerTls;
import io.kubeloop.clock.Clock;
import io.kubeloop.model.ResourceRegistry;
import io.kubeloop.model.Timestamps;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * An in-process, Kubernetes-compatible API server that starts in milliseconds: point kubectl, kubeloop's
 * client, fabric8 or the official Java client at {@link #url()} (or at the file {@link #writeKubeconfig}
 * writes) and they see a Kubernetes 1.32 cluster.
 *
 * <pre>{@code
 * try (EmbeddedApiServer server = EmbeddedApiServer.builder().start()) {
 *     Path kubeconfig = server.writeKubeconfig(Path.of("kubeconfig"));
 *     // KUBECONFIG=kubeconfig kubectl get namespaces
 * }
 * }</pre>
 *
 * <p>It binds to the loopback address by default and serves plain HTTP, where every request acts as the
 * administrator; {@link Builder#tls()} serves HTTPS with client-certificate and bearer-token authentication
 * instead (see docs/security.md). Every request is handled on its own virtual thread.
 */
public final class EmbeddedApiServer implements AutoCloseable {

    /** The namespaces every cluster starts with. */
    static final List<String> INITIAL_NAMESPACES = List.of("default", "kube-system", "kube-public", "kube-node-lease");

    private final HttpServer http;
    private final ExecutorService executor;
    private final URI url;
    private final Store store;
    private final Clock clock;
    /** Null when serving plain HTTP. */
    private final ServerTls tls;

    private final StaticTokens tokens;
    private final FaultInjector faults;
    private final ObjectLifecycle lifecycle;
    /** The objects every cluster has (kubernetes Service, kube-root-ca.crt, default ServiceAccounts). */
    private final ClusterObjects clusterObjects;

    private EmbeddedApiServer(Builder b) throws IOException {
        JsonMapper json = JsonMapper.builder().build();
        this.clock = b.clock;
        AtomicReference<ResourceRegistry> registry = new AtomicReference<>(b.registry);
        this.store = Store.builder().clock(b.clock).historyLimit(b.historyLimit).build();
        for (String ns : INITIAL_NAMESPACES) {
            store.create(StorageKey.clusterScoped("", "namespaces", ns), namespace(json, ns, b.clock));
        }
        this.lifecycle = ObjectLifecycle.start(store, b.clock, registry::get);
        ApiHttpHandler handler = new ApiHttpHandler(
                json,
                registry::get,
                store,
                b.clock,
                b.bookmarkInterval,
                lifecycle,
                Strategies.builtIn(b.notReadyTolerationSeconds, b.unreachableTolerationSeconds));
        this.faults = new FaultInjector(
                b.clock,
                b.faultSeed,
                b.faultInjection,
                () -> {
                    compact();
                    return store.compactedRevision();
                },
                json);
        handler.faults(faults);
        handler.customResources(new CustomResources(json, store, b.clock, registry));
        handler.accessControl(b.rbac ? AccessControl.rbac(store, b.clock) : AccessControl.allowAll());
        handler.adminEndpoints(AdminEndpoints.of(b.adminEndpoints));
        this.executor = Executors.newThreadPerTaskExecutor(
                Thread.ofVirtual().name("apiserver-", 0).factory());
        io.kubeloop.apiserver.internal.server.ConnectionLimits.apply(); // before the JVM's first HTTP server
        try {
            this.tls = b.tls ? ServerTls.start(b.caDirectory, b.host) : null;
            this.tokens = b.tokens;
            this.http = tls == null
                    ? HttpServer.create(new InetSocketAddress(b.host, b.port), 512)
                    : tls.bind(new InetSocketAddress(b.host, b.port), 512);
        } catch (IOException | RuntimeException bindFailed) {
            faults.close();
            lifecycle.close(); // its controller already follows the store
            store.close();
            throw bindFailed;
        }
        handler.authentication(
                tls == null
                        ? Authentication.OFF
                        : Authentication.of(tls.authority().certificate(), b.tokens));
        http.createContext("/", new RequestBoundary(handler, json, RequestBody.MAX_BYTES));
        http.setExecutor(executor);
        http.start();
        InetSocketAddress bound = http.getAddress();
        String host = bound.getAddress().isAnyLocalAddress()
                ? "127.0.0.1"
                : bound.getAddress().getHostAddress();
        if (host.contains(":")) {
            host = "[" + host + "]";
        }
        this.url = URI.create((tls == null ? "http://" : "https://") + host + ":" + bound.getPort());
        handler.serverAddress(host + ":" + bound.getPort());
        this.clusterObjects = ClusterObjects.start(
                store,
                b.clock,
                json,
                tls == null ? "" : tls.authority().certificatePem(),
                bound.getAddress().isAnyLocalAddress()
                        ? "127.0.0.1"
                        : bound.getAddress().getHostAddress(),
                bound.getPort());
    }

    private static ObjectNode namespace(JsonMapper json, String name, Clock clock) {
        ObjectNode ns = json.createObjectNode();
        ns.put("apiVersion", "v1");
        ns.put("kind", "Namespace");
        ObjectNode meta = ns.putObject("metadata");
        meta.put("name", name);
        meta.put("uid", UUID.randomUUID().toString());
        meta.put("creationTimestamp", Timestamps.format(clock.now()));
        meta.putObject("labels").put("kubernetes.io/metadata.name", name);
        ns.putObject("spec").putArray("finalizers").add("kubernetes");
        ns.putObject("status").put("phase", "Active");
        return ns;
    }

    /**
     * Discards the event history up to the current revision: lists at and watches from older
     * resourceVersions then get 410 Expired, as after an etcd compaction.
     */
    public void compact() {
        store.compact(store.currentRevision());
    }

    /**
     * The faults to inject into this server: close watches, fail or delay requests, partition, stall, compact.
     * Works whether or not the admin path is enabled with {@link Builder#faultInjection(boolean)}.
     */
    public Faults faults() {
        return faults.faults();
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The server's clock ({@link Builder#clock}, else the system clock): the one behind its timestamps, watch
     * timeouts, bookmarks and graceful deletions. Whatever runs beside the server and writes times into its objects
     * (controllers, simulated nodes) should use it, so that a test stepping a {@code FakeClock} moves them all.
     */
    public Clock clock() {
        return clock;
    }

    /** The base URL, e.g. {@code http://127.0.0.1:41234}, or {@code https://...} with {@link Builder#tls()}. */
    public URI url() {
        return url;
    }

    public int port() {
        return http.getAddress().getPort();
    }

    /**
     * A kubeconfig whose current context points at this server, namespace {@code default}. Over TLS it
     * trusts the server's CA and logs in as the administrator ({@code kubeloop-admin}, group
     * {@code system:masters}) with a client certificate: keep it private.
     */
    public String kubeconfig() {
        if (tls != null) {
            return Kubeconfig.clientCertificate(url, tls.authority(), tls.admin());
        }
        return Kubeconfig.plain(url);
    }

    /** Writes {@link #kubeconfig()} to {@code file} (owner-only, creating parent folders) and returns it. */
    public Path writeKubeconfig(Path file) {
        return write(file, kubeconfig());
    }

    /**
     * A kubeconfig that logs in as {@code user} in {@code groups} (and system:authenticated) with a client
     * certificate the server's CA issues now, valid for a year.
     *
     * @throws IllegalStateException if the server does not serve TLS
     */
    public String kubeconfigFor(String user, String... groups) {
        ServerTls t = requireTls("kubeconfigFor");
        return Kubeconfig.clientCertificate(url, t.authority(), t.issueClient(user, groups));
    }

    /** Writes {@link #kubeconfigFor} to {@code file} (owner-only, creating parent folders) and returns it. */
    public Path writeKubeconfigFor(Path file, String user, String... groups) {
        return write(file, kubeconfigFor(user, groups));
    }

    /**
     * A kubeconfig that logs in with {@code token}, one of the server's static tokens.
     *
     * @throws IllegalArgumentException if no user has that token
     * @throws IllegalStateException if the server does not serve TLS
     */
    public String kubeconfigForToken(String token) {
        ServerTls t = requireTls("kubeconfigForToken");
        if (tokens.user(token).isEmpty()) {
            throw new IllegalArgumentException("that token is not one of the server's static tokens");
        }
        return Kubeconfig.token(url, t.authority(), token);
    }

    /** The CA that signed the serving certificate: what a client must trust to reach {@link #url()}. */
    public java.security.cert.X509Certificate certificateAuthority() {
        return requireTls("certificateAuthority").authority().certificate();
    }

    private ServerTls requireTls(String what) {
        if (tls == null) {
            throw new IllegalStateException(what + " needs a server started with tls(): over plain HTTP every "
                    + "request is the administrator and kubectl sends no credentials");
        }
        return tls;
    }

    private static Path write(Path file, String kubeconfig) {
        try {
            return SecretFiles.write(file, kubeconfig);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the kubeconfig to " + file + ": " + e.getMessage(), e);
        }
    }

    /** Stops accepting connections, ends open watches, and waits briefly for requests in progress. */
    @Override
    public void close() {
        faults.close(); // releases requests a partition holds
        http.stop(0);
        clusterObjects.close();
        lifecycle.close();
        store.close();
        executor.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Configures an {@link EmbeddedApiServer}; every setting has a default. */
    public static final class Builder {
        private InetAddress host = InetAddress.getLoopbackAddress();
        private int port;
        private ResourceRegistry registry = ResourceRegistry.builtIn();
        private Clock clock = Clock.system();
        private int historyLimit = StoreBuilder.DEFAULT_HISTORY_LIMIT;
        private java.time.Duration bookmarkInterval = java.time.Duration.ofMinutes(1);
        private boolean tls;
        private Path caDirectory;
        private StaticTokens tokens = StaticTokens.NONE;
        private boolean faultInjection;
        private long faultSeed = new java.util.SplittableRandom().nextLong();
        private boolean rbac;
        private final java.util.Map<String, AdminEndpoint> adminEndpoints = new java.util.LinkedHashMap<>();
        private long notReadyTolerationSeconds = 300;
        private long unreachableTolerationSeconds = 300;

        private Builder() {}

        /**
         * Serves {@code endpoint} at {@code /kubeloop/<name>} and every path below it, for the administrator only
         * (members of {@code system:masters}; everyone while authentication is off), whether or not
         * {@link #faultInjection fault injection} is on. See {@link AdminEndpoint} for what the server does around
         * it.
         *
         * @param name one path segment, {@code [a-z][a-z0-9-]*}, not {@code faults} (the fault admin path)
         * @throws IllegalArgumentException for a name that breaks those rules or is already taken
         */
        public Builder adminEndpoint(String name, AdminEndpoint endpoint) {
            AdminEndpoints.checkName(name);
            Objects.requireNonNull(endpoint, "endpoint");
            if (adminEndpoints.containsKey(name)) {
                throw new IllegalArgumentException("an admin endpoint named \"" + name + "\" is already set");
            }
            adminEndpoints.put(name, endpoint);
            return this;
        }

        /**
         * Serves HTTPS with a CA generated at start, and turns authentication on: client certificates of
         * that CA and the {@link #token static tokens}. See docs/security.md.
         */
        public Builder tls() {
            this.tls = true;
            return this;
        }

        /**
         * Serves HTTPS like {@link #tls()}, with the CA kept in {@code caDirectory} ({@code ca.crt},
         * {@code ca.key}; created on first use) so that kubeconfigs and client certificates survive restarts.
         */
        public Builder tls(Path caDirectory) {
            this.caDirectory = Objects.requireNonNull(caDirectory, "caDirectory");
            this.tls = true;
            return this;
        }

        /** A static bearer token for {@code user} in {@code groups}; needs {@link #tls()}. */
        public Builder token(String user, String token, String... groups) {
            this.tokens = tokens.with(user, token, List.of(groups));
            return this;
        }

        /** The static tokens of a kube-apiserver token file ({@code token,user,uid,"group1,group2"}); needs {@link #tls()}. */
        public Builder tokenFile(Path file) {
            this.tokens = tokens.withFile(Objects.requireNonNull(file, "file"));
            return this;
        }

        /**
         * Whether every request is authorized by RBAC (Role, ClusterRole, RoleBinding, ClusterRoleBinding),
         * as kube-apiserver's {@code --authorization-mode=RBAC}; the bootstrap roles and bindings are stored at
         * start. Default false: everyone may do everything. See docs/rbac.md.
         */
        public Builder rbac(boolean rbac) {
            this.rbac = rbac;
            return this;
        }

        /** The address to bind; default loopback. */
        public Builder host(InetAddress host) {
            this.host = Objects.requireNonNull(host, "host");
            return this;
        }

        /** The port; 0 (the default) picks a free one. */
        public Builder port(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be between 0 and 65535, was " + port);
            }
            this.port = port;
            return this;
        }

        /** The resources served; default {@link ResourceRegistry#builtIn()}. */
        public Builder registry(ResourceRegistry registry) {
            this.registry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /** The clock for timestamps, watch timeouts and history compaction; default the system clock. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * How many events the server keeps for watches that resume from a resourceVersion; older ones answer
         * 410 Expired. Default {@value StoreBuilder#DEFAULT_HISTORY_LIMIT}.
         */
        public Builder historyLimit(int historyLimit) {
            if (historyLimit < 1) {
                throw new IllegalArgumentException("historyLimit must be at least 1, was " + historyLimit);
            }
            this.historyLimit = historyLimit;
            return this;
        }

        /**
         * How often a watch that allows bookmarks gets one (default 1 minute, as kube-apiserver); shorter in
         * tests. Writing them is also how the server notices a watcher that went away without a word.
         */
        public Builder bookmarkInterval(java.time.Duration interval) {
            Objects.requireNonNull(interval, "interval");
            if (interval.isNegative() || interval.isZero()) {
                throw new IllegalArgumentException("bookmarkInterval must be positive, was " + interval);
            }
            this.bookmarkInterval = interval;
            return this;
        }

        /**
         * Serves the fault admin path {@code /kubeloop/faults} (default off: it answers 404). Only for tests and
         * demos: anyone who may reach it (an admin, once authentication is on) can break the server at will.
         * {@link EmbeddedApiServer#faults()} works either way.
         */
        public Builder faultInjection(boolean enabled) {
            this.faultInjection = enabled;
            return this;
        }

        /** The seed for fault fractions and jitter (default random): the same seed gives the same pattern. */
        public Builder faultSeed(long seed) {
            this.faultSeed = seed;
            return this;
        }

        /**
         * The {@code tolerationSeconds} of the tolerations the DefaultTolerationSeconds admission plugin gives every
         * pod that does not tolerate the taints already: {@code node.kubernetes.io/not-ready:NoExecute} and {@code
         * node.kubernetes.io/unreachable:NoExecute} (kube-apiserver's {@code --default-not-ready-toleration-seconds}
         * and {@code --default-unreachable-toleration-seconds}; both 300 by default). How long a pod stays on a
         * failed node before the taint eviction controller of a cluster evicts it.
         *
         * @throws IllegalArgumentException if either is negative
         */
        public Builder defaultTolerationSeconds(long notReady, long unreachable) {
            if (notReady < 0 || unreachable < 0) {
                throw new IllegalArgumentException("default toleration seconds must not be negative, were notReady="
                        + notReady + ", unreachable=" + unreachable);
            }
            this.notReadyTolerationSeconds = notReady;
            this.unreachableTolerationSeconds = unreachable;
            return this;
        }

        /** Binds and starts serving. */
        public EmbeddedApiServer start() {
            if (!tls && !tokens.isEmpty()) {
                throw new IllegalStateException("static tokens need tls(): kubectl sends credentials only over TLS");
            }
            try {
                return new EmbeddedApiServer(this);
            } catch (IOException e) {
                throw new UncheckedIOException(
                        "cannot start the API server on " + host.getHostAddress() + ":" + port + ": " + e.getMessage(),
                        e);
            }
        }
    }
}
