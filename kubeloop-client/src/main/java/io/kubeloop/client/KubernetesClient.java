package io.kubeloop.client;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.resource.ApiDiscovery;
import io.kubeloop.client.resource.ResourceClient;
import io.kubeloop.client.transport.ClientMetrics;
import io.kubeloop.client.transport.HttpTransport;
import io.kubeloop.client.transport.RateLimiter;
import io.kubeloop.client.transport.RetryPolicy;
import io.kubeloop.client.watch.Watch;
import io.kubeloop.clock.Clock;
import io.kubeloop.model.GroupVersionKind;
import io.kubeloop.model.ResourceRegistry;
import io.kubeloop.model.ResourceType;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The entry point: one connection pool, rate limiter and set of metrics per API server, and a
 * {@link ResourceClient} per resource type.
 *
 * <pre>{@code
 * try (KubernetesClient client = KubernetesClient.create(ClientConfig.autodetect())) {
 *     ResourceClient<Pod> pods = client.resources(Pod.class);                      // the config's namespace
 *     ResourceClient<GenericKubernetesResource> widgets =
 *             client.genericResources("example.com/v1", "Widget").inAnyNamespace(); // through discovery
 * }
 * }</pre>
 *
 * <p>Every wait and timer of the client runs on one {@link Clock} ({@link Builder#clock}, the system clock by
 * default): retry delays and Retry-After, the rate limiter, and the idle rule of watches. Informers made from this
 * client by {@code SharedInformerFactory} use the same clock unless told otherwise, so a test that gives the
 * client a {@code FakeClock} steps the whole stack.
 *
 * <p>Thread-safe; resource clients are cheap views and may be made per call. {@link #close()} closes the
 * connection pool; requests in flight then fail.
 */
public final class KubernetesClient implements AutoCloseable {

    private final ClientConfig config;
    private final HttpTransport transport;
    private final ApiDiscovery discovery;
    private final ResourceRegistry registry = ResourceRegistry.builtIn();

    private final Duration watchIdleTimeout;

    private KubernetesClient(ClientConfig config, HttpTransport transport, Duration watchIdleTimeout) {
        this.config = config;
        this.transport = transport;
        this.watchIdleTimeout = watchIdleTimeout;
        this.discovery = new ApiDiscovery(transport);
    }

    /** A client with the defaults: 50 QPS burst 100, reads retried, 10 s connect and 60 s request timeouts. */
    public static KubernetesClient create(ClientConfig config) {
        return builder(config).build();
    }

    public static Builder builder(ClientConfig config) {
        return new Builder(config);
    }

    public ClientConfig config() {
        return config;
    }

    /** The clock of this client's waits and timers (see the class comment). */
    public Clock clock() {
        return transport.clock();
    }

    /**
     * The client of a fabric8 model class ({@code Pod.class}, {@code ConfigMap.class}, a {@code CustomResource}
     * subclass), in the configuration's namespace. Group, version and kind come from the class' {@code @Group},
     * {@code @Version} and {@code @Kind} annotations (or its name); plural and scope from kubeloop-model's
     * built-in registry, else from {@code @Plural} and whether the class implements {@code Namespaced}.
     */
    public <T extends HasMetadata> ResourceClient<T> resources(Class<T> javaType) {
        Objects.requireNonNull(javaType, "javaType");
        if (javaType == GenericKubernetesResource.class) {
            throw new IllegalArgumentException(
                    "GenericKubernetesResource has no type of its own: use genericResources(...)");
        }
        GroupVersionKind gvk = new GroupVersionKind(
                HasMetadata.getGroup(javaType), HasMetadata.getVersion(javaType), HasMetadata.getKind(javaType));
        ResourceType type = registry.byKind(gvk)
                .orElseGet(() -> new ResourceType(
                        gvk,
                        HasMetadata.getPlural(javaType),
                        HasMetadata.getSingular(javaType),
                        Namespaced.class.isAssignableFrom(javaType),
                        List.of(),
                        List.of(),
                        ResourceType.ALL_VERBS,
                        Set.of(ResourceType.STATUS, ResourceType.SCALE)));
        return ResourceClient.of(transport, type, javaType, config.namespace()).withWatchIdleTimeout(watchIdleTimeout);
    }

    /** The client of a resource described in full, in the configuration's namespace (if namespaced). */
    public ResourceClient<GenericKubernetesResource> genericResources(
            String group, String version, String kind, String plural, boolean namespaced) {
        ResourceType type = new ResourceType(
                new GroupVersionKind(group, version, kind),
                plural,
                "",
                namespaced,
                List.of(),
                List.of(),
                ResourceType.ALL_VERBS,
                Set.of(ResourceType.STATUS, ResourceType.SCALE));
        return ResourceClient.of(transport, type, GenericKubernetesResource.class, config.namespace())
                .withWatchIdleTimeout(watchIdleTimeout);
    }

    /**
     * The client of {@code kind} in {@code apiVersion}, found through the server's discovery (cached; a miss
     * fetches the group version's document again).
     *
     * @throws IllegalArgumentException when the server serves no such kind
     */
    public ResourceClient<GenericKubernetesResource> genericResources(String apiVersion, String kind) {
        return ResourceClient.of(
                        transport,
                        discovery.resolve(apiVersion, kind),
                        GenericKubernetesResource.class,
                        config.namespace())
                .withWatchIdleTimeout(watchIdleTimeout);
    }

    @Override
    public void close() {
        transport.close();
    }

    @Override
    public String toString() {
        return "KubernetesClient{" + transport + "}";
    }

    /** Metrics, rate limits, retries, timeouts and the clock; every one has a default. */
    public static final class Builder {
        private final ClientConfig config;
        private final HttpTransport.Builder transport;
        private Duration watchIdleTimeout = Watch.DEFAULT_IDLE_TIMEOUT;

        private Builder(ClientConfig config) {
            this.config = Objects.requireNonNull(config, "config");
            this.transport = HttpTransport.builder(config);
        }

        /** Records client-go's {@code rest_client_*} metrics into {@code registry} (default: none). */
        public Builder meterRegistry(MeterRegistry registry) {
            transport.metrics(ClientMetrics.micrometer(registry));
            return this;
        }

        /** A client-side token bucket of {@code qps} and {@code burst} on the client's clock (default 50 and 100). */
        public Builder rateLimit(double qps, int burst) {
            transport.rateLimit(qps, burst);
            return this;
        }

        /**
         * A rate limiter made elsewhere (say, shared by several clients, or {@link RateLimiter#unlimited()}); it
         * waits on its own clock, not the client's.
         */
        public Builder rateLimiter(RateLimiter rateLimiter) {
            transport.rateLimiter(rateLimiter);
            return this;
        }

        public Builder retryPolicy(RetryPolicy retryPolicy) {
            transport.retryPolicy(retryPolicy);
            return this;
        }

        /**
         * The one clock of the client: retry delays (Retry-After), the rate limiter's waits, request durations
         * and the idle rule of watches (default {@link Clock#system()}). Tests pass a {@code FakeClock} and step
         * it; {@code SharedInformerFactory.builder(client)} takes it over for its informers.
         */
        public Builder clock(Clock clock) {
            transport.clock(clock);
            return this;
        }

        /**
         * The User-Agent of every request instead of kubeloop's own ({@code kubeloop/0.1.0 (linux/amd64)
         * kubeloop/1be69f6}): say which program, or which part of it, is calling (client-go's
         * {@code rest.Config.UserAgent}).
         *
         * @throws IllegalArgumentException if it is blank or holds a control character
         */
        public Builder userAgent(String userAgent) {
            transport.userAgent(userAgent);
            return this;
        }

        public Builder connectTimeout(Duration timeout) {
            transport.connectTimeout(timeout);
            return this;
        }

        /** How long to wait for an answer's headers (default 60 s). */
        public Builder requestTimeout(Duration timeout) {
            transport.requestTimeout(timeout);
            return this;
        }

        /**
         * How long a watch may receive no bytes before it fails with a {@code WatchIdleTimeoutException} so that
         * the caller watches again (default {@link Watch#DEFAULT_IDLE_TIMEOUT}, five minutes); longer than the
         * server's bookmark interval (one minute on kube-apiserver).
         */
        public Builder watchIdleTimeout(Duration idleTimeout) {
            if (idleTimeout == null || idleTimeout.isNegative() || idleTimeout.isZero()) {
                throw new IllegalArgumentException("watchIdleTimeout must be positive, was " + idleTimeout);
            }
            this.watchIdleTimeout = idleTimeout;
            return this;
        }

        public KubernetesClient build() {
            return new KubernetesClient(config, transport.build(), watchIdleTimeout);
        }
    }
}
