package io.kubeloop.apiserver;

import com.sun.net.httpserver.HttpServer;
import io.kubeloop.apiserver.http.ApiHttpHandler;
import io.kubeloop.apiserver.lifecycle.ObjectLifecycle;
import io.kubeloop.apiserver.storage.StorageKey;
import io.kubeloop.apiserver.storage.Store;
import io.kubeloop.apiserver.storage.StoreBuilder;
import io.kubeloop.model.ResourceRegistry;
import io.kubeloop.workqueue.Clock;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import tools.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import tools.jackson.databind.json.JsonMapper;

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
 * <p>It binds to the loopback address by default and serves plain HTTP; every request is handled on its
 * own virtual thread.
 */
public final class EmbeddedApiServer implements AutoCloseable {

    /** The namespaces every cluster starts with. */
    static final List<String> INITIAL_NAMESPACES = List.of("default", "kube-system", "kube-public", "kube-node-lease");

    private final HttpServer http;
    private final ExecutorService executor;
    private final URI url;
    private final Store store;
    private final ObjectLifecycle lifecycle;

    private EmbeddedApiServer(Builder b) throws IOException {
        JsonMapper json = JsonMapper.builder().build();
        AtomicReference<ResourceRegistry> registry = new AtomicReference<>(b.registry);
        this.store = Store.builder().clock(b.clock).historyLimit(b.historyLimit).build();
        for (String ns : INITIAL_NAMESPACES) {
            store.create(StorageKey.clusterScoped("", "namespaces", ns), namespace(json, ns, b.clock));
        }
        this.lifecycle = ObjectLifecycle.start(store, b.clock, registry::get);
        ApiHttpHandler handler = new ApiHttpHandler(json, registry::get, store, b.clock, b.bookmarkInterval,
                lifecycle);
        this.executor = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("apiserver-", 0).factory());
        try {
            this.http = HttpServer.create(new InetSocketAddress(b.host, b.port), 512);
        } catch (IOException bindFailed) {
            lifecycle.close(); // its controller already follows the store
            store.close();
            throw bindFailed;
        }
        http.createContext("/", handler);
        http.setExecutor(executor);
        http.start();
        InetSocketAddress bound = http.getAddress();
        String host = bound.getAddress().isAnyLocalAddress() ? "127.0.0.1" : bound.getAddress().getHostAddress();
        if (host.contains(":")) {
            host = "[" + host + "]";
        }
        this.url = URI.create("http://" + host + ":" + bound.getPort());
        handler.serverAddress(host + ":" + bound.getPort());
    }

    private static ObjectNode namespace(JsonMapper json, String name, Clock clock) {
        ObjectNode ns = json.createObjectNode();
        ns.put("apiVersion", "v1");
        ns.put("kind", "Namespace");
        ObjectNode meta = ns.putObject("metadata");
        meta.put("name", name);
        meta.put("uid", UUID.randomUUID().toString());
        meta.put("creationTimestamp", DateTimeFormatter.ISO_INSTANT.format(clock.now().truncatedTo(ChronoUnit.SECONDS)));
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

    public static Builder builder() {
        return new Builder();
    }

    /** The base URL, e.g. {@code http://127.0.0.1:41234}. */
    public URI url() {
        return url;
    }

    public int port() {
        return http.getAddress().getPort();
    }

    /** A kubeconfig whose current context points at this server, namespace {@code default}. */
    public String kubeconfig() {
        return """
                apiVersion: v1
                kind: Config
                clusters:
                - name: kubeloop
                  cluster:
                    server: %s
                users:
                - name: kubeloop
                  user: {}
                contexts:
                - name: kubeloop
                  context:
                    cluster: kubeloop
                    user: kubeloop
                    namespace: default
                current-context: kubeloop
                """.formatted(url);
    }

    /** Writes {@link #kubeconfig()} to {@code file} (creating parent folders) and returns it. */
    public Path writeKubeconfig(Path file) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.writeString(file, kubeconfig(), StandardCharsets.UTF_8);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the kubeconfig to " + file + ": " + e.getMessage(), e);
        }
    }

    /** Stops accepting connections, ends open watches, and waits briefly for requests in progress. */
    @Override
    public void close() {
        http.stop(0);
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

        private Builder() {}

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

        /** Binds and starts serving. */
        public EmbeddedApiServer start() {
            try {
                return new EmbeddedApiServer(this);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start the API server on " + host.getHostAddress() + ":"
                        + port + ": " + e.getMessage(), e);
            }
        }
    }
}
