package io.kubeloop.controller;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.clock.Clock;
import io.kubeloop.controller.internal.client.CachingControllerClient;
import io.kubeloop.controller.internal.events.EventBroadcaster;
import io.kubeloop.informer.InformerKey;
import io.kubeloop.informer.SharedInformerFactory;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs controllers: holds the client, one shared informer factory (one informer per type whatever the number of
 * controllers), the controllers and other {@link ManagedRunnable runnables} (controller-runtime's {@code Manager}).
 *
 * <p>Start order: informers → wait for every cache to sync (bounded by the cache sync timeout, default 2 min) →
 * runnables. A cache that does not sync in time fails the start with {@code WaitForCacheSync timed out} and the
 * types that did not sync. Stop order is the reverse.
 */
public final class Manager implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Manager.class);

    private final KubernetesClient client;
    private final SharedInformerFactory informers;
    private final MeterRegistry meterRegistry;
    private final Clock clock;
    private final Duration cacheSyncTimeout;
    private final Duration gracefulShutdownTimeout;
    /** Behind every {@link #eventRecorder}; its writer thread starts with the first recorder. */
    private final EventBroadcaster events;

    private final ControllerClient controllerClient;

    /** In the order added; started in that order, stopped in reverse. */
    private final List<ManagedRunnable> runnables = new CopyOnWriteArrayList<>();

    /** The names of this manager's controllers: unique, as they label metrics and logs. */
    private final Set<String> controllerNames = ConcurrentHashMap.newKeySet();

    private Manager(Builder b) {
        this.client = b.client;
        this.clock = b.clock != null ? b.clock : b.client.clock();
        this.meterRegistry =
                b.meterRegistry != null ? b.meterRegistry : new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        SharedInformerFactory.Builder factory =
                SharedInformerFactory.builder(client).clock(clock).meterRegistry(meterRegistry);
        if (b.namespace != null) {
            factory.namespace(b.namespace);
        }
        this.informers = factory.build();
        this.cacheSyncTimeout = b.cacheSyncTimeout;
        this.gracefulShutdownTimeout = b.gracefulShutdownTimeout;
        this.events = new EventBroadcaster(client, clock, meterRegistry);
        this.controllerClient = new CachingControllerClient(
                client,
                informers,
                b.namespace,
                clock,
                cacheSyncTimeout,
                b.failOnMissingInformer,
                b.readYourOwnWrites ? b.readYourOwnWritesTimeout : null);
    }

    public static Builder builder(KubernetesClient client) {
        return new Builder(client);
    }

    /** The client that talks to the API server (writes, and reads that must not come from the cache). */
    public KubernetesClient kubernetesClient() {
        return client;
    }

    /**
     * The client for reconcilers: reads from this manager's informer cache (copies; read-only forms without
     * copying), writes to the API server. See {@link ControllerClient}.
     */
    public ControllerClient client() {
        return controllerClient;
    }

    /**
     * Reads the API server itself, never the cache: for the rare read that must see the server's current state
     * (checking the cache against the server, a decision that a stale read would make wrong). Costs a request per
     * call. The same reader as {@code client().apiReader()}.
     */
    public ObjectReader apiReader() {
        return controllerClient.apiReader();
    }

    /** The shared informer factory: every controller's informers come from it, one per type. */
    public SharedInformerFactory informerFactory() {
        return informers;
    }

    /** Where the manager, its controllers, queues and informers record their metrics. */
    public MeterRegistry meterRegistry() {
        return meterRegistry;
    }

    /** The clock behind every timer of the manager and its controllers. */
    public Clock clock() {
        return clock;
    }

    /**
     * Starts building a controller that reconciles objects of {@code type} (controller-runtime's
     * {@code ctrl.NewControllerManagedBy(mgr).For(type)}); {@link ControllerBuilder#complete} adds it to this manager.
     */
    public <T extends HasMetadata> ControllerBuilder<T> newControllerFor(Class<T> type) {
        return new ControllerBuilder<>(this, type);
    }

    /** Reserves a controller name; false when a controller of this manager has it already. */
    boolean claimControllerName(String name) {
        return controllerNames.add(name);
    }

    /**
     * The {@link EventRecorder} of {@code component} (the Events' {@code source.component}), one per name, shared;
     * usable before {@link #start()}, on leaders and followers alike; after {@link #close()} its events are dropped.
     *
     * @throws IllegalArgumentException if {@code component} is empty, or holds blanks or control characters
     */
    public EventRecorder eventRecorder(String component) {
        return events.recorderFor(component);
    }

    /** Adds a runnable, started with the manager (or at once if the manager runs, subject to leader election). */
    public void add(ManagedRunnable runnable) {
        runnables.add(Objects.requireNonNull(runnable, "runnable"));
    }

    /**
     * Starts informers, waits for their caches, then starts the runnables. Returns once they run.
     *
     * @throws IllegalStateException a cache did not sync within the cache sync timeout
     */
    public void start() throws Exception {
        informers.start();
        Map<InformerKey, Boolean> synced = informers.waitForCacheSync(cacheSyncTimeout);
        List<InformerKey> notSynced = synced.entrySet().stream()
                .filter(e -> !e.getValue())
                .map(Map.Entry::getKey)
                .collect(Collectors.toList());
        if (!notSynced.isEmpty()) {
            String types = notSynced.stream().map(InformerKey::toString).collect(Collectors.joining(", "));
            log.error("WaitForCacheSync timed out after {}; not synced: {}", cacheSyncTimeout, types);
            throw new IllegalStateException(
                    "WaitForCacheSync timed out after " + cacheSyncTimeout + "; not synced: " + types);
        }
        for (ManagedRunnable runnable : runnables) {
            runnable.start();
        }
    }

    /** Stops the runnables (in-flight work may finish within the graceful shutdown timeout), then the informers. */
    @Override
    public void close() {
        List<ManagedRunnable> reversed = new ArrayList<>(runnables);
        java.util.Collections.reverse(reversed);
        try {
            for (ManagedRunnable runnable : reversed) {
                runnable.stop(gracefulShutdownTimeout);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            events.close(gracefulShutdownTimeout); // events recorded while stopping still get their try
            informers.shutdown();
        }
    }

    /** Builds a {@link Manager}. */
    public static final class Builder {
        private final KubernetesClient client;
        private Clock clock;
        private MeterRegistry meterRegistry;
        private String namespace;
        private Duration cacheSyncTimeout = Duration.ofMinutes(2);
        private Duration gracefulShutdownTimeout = Duration.ofSeconds(30);
        private boolean failOnMissingInformer;
        private boolean readYourOwnWrites;
        private Duration readYourOwnWritesTimeout = Duration.ofSeconds(5);

        private Builder(KubernetesClient client) {
            this.client = Objects.requireNonNull(client, "client");
        }

        /** The clock for every timer; default the client's. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** Where to record metrics; default a Prometheus registry (served on {@code /metrics}). */
        public Builder meterRegistry(MeterRegistry meterRegistry) {
            this.meterRegistry = Objects.requireNonNull(meterRegistry, "meterRegistry");
            return this;
        }

        /** Watch and cache only this namespace (default: all namespaces). */
        public Builder namespace(String namespace) {
            this.namespace = Objects.requireNonNull(namespace, "namespace");
            return this;
        }

        /** How long {@link #start()} waits for the caches (default 2 min, as controller-runtime). */
        public Builder cacheSyncTimeout(Duration timeout) {
            this.cacheSyncTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /** How long {@link #close()} lets in-flight reconciles finish (default 30 s, as controller-runtime). */
        public Builder gracefulShutdownTimeout(Duration timeout) {
            this.gracefulShutdownTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /**
         * Whether a {@link Manager#client()} read of a type no controller watches fails at once (true) instead of starting
         * an informer for the type and waiting for it to sync (default false, as controller-runtime's
         * {@code ReaderFailOnMissingInformer}).
         */
        public Builder failOnMissingInformer(boolean fail) {
            this.failOnMissingInformer = fail;
            return this;
        }

        /**
         * Whether a {@link Manager#client()} read of an object the client wrote waits until the cache holds that write
         * (default false: such a read may return the state before the write). Bounded by
         * {@link #readYourOwnWritesTimeout}.
         */
        public Builder readYourOwnWrites(boolean enabled) {
            this.readYourOwnWrites = enabled;
            return this;
        }

        /** How long a read waits for the cache to hold the client's own write (default 5 s, on the clock). */
        public Builder readYourOwnWritesTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative()) {
                throw new IllegalArgumentException("readYourOwnWritesTimeout must not be negative, was " + timeout);
            }
            this.readYourOwnWritesTimeout = timeout;
            return this;
        }

        public Manager build() {
            return new Manager(this);
        }
    }
}
