package io.kubeloop.informer;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.codec.Decoding;
import io.kubeloop.client.codec.UndecodableObjects;
import io.kubeloop.client.resource.ListOptions;
import io.kubeloop.client.resource.ResourceClient;
import io.kubeloop.clock.Clock;
import io.kubeloop.informer.reflector.ListerWatchers;
import io.kubeloop.model.selector.FieldSelector;
import io.kubeloop.model.selector.LabelSelector;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands out {@link SharedIndexInformer}s that are really shared: one per resource type, namespace, label selector,
 * field selector and transform ({@link InformerKey}), so every part of a program asking for pods in the same way
 * gets the same informer, one cache and one watch (client-go's {@code SharedInformerFactory}; unlike the Java
 * peers', it keys by more than the type).
 *
 * <pre>{@code
 * SharedInformerFactory factory = SharedInformerFactory.builder(client)
 *         .defaultResync(Duration.ofMinutes(10))
 *         .transform(Transforms.stripManagedFields())
 *         .build();
 * SharedIndexInformer<Pod> pods = factory.informerFor(Pod.class);
 * SharedIndexInformer<GenericKubernetesResource> widgets = factory.genericInformerFor("example.com/v1", "Widget");
 * pods.addEventHandler(handler);
 * factory.start();                                   // starts what is not started yet
 * Map<InformerKey, Boolean> synced = factory.waitForCacheSync(Duration.ofMinutes(1));
 * ...
 * factory.shutdown();                                // stops every informer
 * }</pre>
 *
 * <p>Register every informer and handler, then {@link #start()}: an informer asked for after a start needs another
 * {@code start()}. Thread-safe.
 */
public final class SharedInformerFactory {

    private static final Logger log = LoggerFactory.getLogger(SharedInformerFactory.class);

    private final KubernetesClient client;
    private final String namespace;
    private final UnaryOperator<ListOptions> tweakListOptions;
    private final Duration defaultResync;
    private final Map<Class<?>, Duration> customResync;
    private final UnaryOperator<HasMetadata> transform;
    /** How every informer's lists and watches decode objects (the same for all, so not part of the key). */
    private final Decoding decoding;

    private final Clock clock;
    private final MeterRegistry meterRegistry;
    private final ThreadFactory threadFactory;
    private final boolean coalesceUpdates;
    private final UndecodableObjects undecodableObjects;

    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by {@code lock}, in creation order. */
    private final Map<InformerKey, SharedIndexInformer<?>> informers = new LinkedHashMap<>();
    /** Guarded by {@code lock}. */
    private final Set<InformerKey> started = new HashSet<>();
    /** Guarded by {@code lock}: informer names handed out, to keep metric tags unique. */
    private final Map<String, Integer> names = new HashMap<>();
    /** Guarded by {@code lock}. */
    private boolean shuttingDown;

    private SharedInformerFactory(Builder b) {
        this.client = b.client;
        this.namespace = b.namespace;
        this.tweakListOptions = b.tweakListOptions;
        this.defaultResync = b.defaultResync;
        this.customResync = Map.copyOf(b.customResync);
        this.transform = b.transform;
        this.decoding = b.decoding;
        this.undecodableObjects = b.undecodableObjects;
        this.clock = b.clock != null ? b.clock : b.client.clock();
        this.meterRegistry = b.meterRegistry;
        this.threadFactory = b.threadFactory;
        this.coalesceUpdates = b.coalesceUpdates;
    }

    public static Builder builder(KubernetesClient client) {
        return new Builder(client);
    }

    /** The informer of {@code type} (a built-in model class or a custom resource class) with the factory's options. */
    public <T extends HasMetadata> SharedIndexInformer<T> informerFor(Class<T> type) {
        return informerFor(type, InformerOptions.defaults());
    }

    /**
     * The informer of {@code type} with {@code options}: the same instance for every call with an equal
     * {@link InformerKey}. Group, version, plural and scope come from kubeloop-model's registry for built-in types,
     * and from the class' {@code @Group}, {@code @Version}, {@code @Plural} and {@code Namespaced} for custom ones.
     *
     * @throws IllegalArgumentException a selector does not parse
     * @throws IllegalStateException the factory has shut down
     */
    public <T extends HasMetadata> SharedIndexInformer<T> informerFor(Class<T> type, InformerOptions options) {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(options, "options");
        if (type == GenericKubernetesResource.class) {
            throw new IllegalArgumentException("GenericKubernetesResource has no resource type of its own: use "
                    + "genericInformerFor(apiVersion, kind)");
        }
        return informerFor(client.resources(type), type, options);
    }

    /** The informer of {@code kind} in {@code apiVersion}, found through the server's discovery, as generic objects. */
    public SharedIndexInformer<GenericKubernetesResource> genericInformerFor(String apiVersion, String kind) {
        return genericInformerFor(apiVersion, kind, InformerOptions.defaults());
    }

    /**
     * {@link #genericInformerFor(String, String)} with {@code options}.
     *
     * @throws IllegalArgumentException the server serves no such kind, or a selector does not parse
     */
    public SharedIndexInformer<GenericKubernetesResource> genericInformerFor(
            String apiVersion, String kind, InformerOptions options) {
        Objects.requireNonNull(apiVersion, "apiVersion");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(options, "options");
        return informerFor(client.genericResources(apiVersion, kind), GenericKubernetesResource.class, options);
    }

    private <T extends HasMetadata> SharedIndexInformer<T> informerFor(
            ResourceClient<T> resources, Class<T> type, InformerOptions options) {
        String ns = options.namespace() != null ? options.namespace() : namespace;
        ResourceClient<T> scoped =
                (ns == null ? resources.inAnyNamespace() : resources.inNamespace(ns)).withDecoding(decoding);
        String labels = canonicalLabels(options.labelSelector());
        String fields = canonicalFields(options.fieldSelector());
        UnaryOperator<HasMetadata> t = options.transform() != null ? options.transform() : transform;
        InformerKey key =
                new InformerKey(scoped.type().gvr(), type, scoped.namespace().orElse(null), labels, fields, t);
        lock.lock();
        try {
            if (shuttingDown) {
                throw new IllegalStateException("the informer factory has shut down; no informer for " + key);
            }
            SharedIndexInformer<?> existing = informers.get(key);
            if (existing != null) {
                @SuppressWarnings("unchecked")
                SharedIndexInformer<T> same = (SharedIndexInformer<T>) existing;
                return same;
            }
            UnaryOperator<ListOptions> tweak = o -> tweakListOptions.apply(o.toBuilder()
                    .labelSelector(labels.isEmpty() ? o.labelSelector() : labels)
                    .fieldSelector(fields.isEmpty() ? o.fieldSelector() : fields)
                    .build());
            SharedIndexInformer.Builder<T> b = SharedIndexInformer.builder(
                            ListerWatchers.forClient(scoped, tweak), type)
                    .name(uniqueName(key.describe()))
                    .resyncPeriod(customResync.getOrDefault(type, defaultResync))
                    .clock(clock)
                    .threadFactory(threadFactory)
                    .coalesceUpdates(coalesceUpdates)
                    .undecodableObjects(undecodableObjects);
            if (meterRegistry != null) {
                b.meterRegistry(meterRegistry);
            }
            if (t != null) {
                b.transform(object -> type.cast(t.apply(object)));
            }
            SharedIndexInformer<T> informer = b.build();
            informers.put(key, informer);
            log.debug("informer factory: new informer {} for {}", informer.name(), key);
            return informer;
        } finally {
            lock.unlock();
        }
    }

    private String uniqueName(String base) {
        int n = names.merge(base, 1, Integer::sum);
        return n == 1 ? base : base + " #" + n;
    }

    private static String canonicalLabels(String selector) {
        if (selector == null || selector.isBlank()) {
            return "";
        }
        try {
            return LabelSelector.parse(selector).toString();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("invalid label selector \"" + selector + "\": " + e.getMessage(), e);
        }
    }

    private static String canonicalFields(String selector) {
        if (selector == null || selector.isBlank()) {
            return "";
        }
        try {
            return FieldSelector.parse(selector).toString();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("invalid field selector \"" + selector + "\": " + e.getMessage(), e);
        }
    }

    /** Starts every informer not started yet; returns at once. Does nothing after {@link #shutdown()}. */
    public void start() {
        lock.lock();
        try {
            if (shuttingDown) {
                return;
            }
            for (Map.Entry<InformerKey, SharedIndexInformer<?>> e : informers.entrySet()) {
                if (started.add(e.getKey())) {
                    e.getValue().start();
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits up to {@code timeout} (on the factory's clock) for every started informer to sync.
     *
     * @return for every started informer, whether it has synced; informers not started are absent
     */
    public Map<InformerKey, Boolean> waitForCacheSync(Duration timeout) {
        Map<InformerKey, SharedIndexInformer<?>> toWait = new LinkedHashMap<>();
        lock.lock();
        try {
            for (Map.Entry<InformerKey, SharedIndexInformer<?>> e : informers.entrySet()) {
                if (started.contains(e.getKey())) {
                    toWait.put(e.getKey(), e.getValue());
                }
            }
        } finally {
            lock.unlock();
        }
        List<BooleanSupplier> synced = new ArrayList<>();
        toWait.values().forEach(i -> synced.add(i::hasSynced));
        SharedIndexInformer.waitForCacheSync(clock, timeout, synced.toArray(BooleanSupplier[]::new));
        Map<InformerKey, Boolean> result = new LinkedHashMap<>();
        toWait.forEach((k, i) -> result.put(k, i.hasSynced()));
        if (result.containsValue(false)) {
            log.warn(
                    "informer factory: not synced after {}: {}",
                    timeout,
                    result.entrySet().stream()
                            .filter(e -> !e.getValue())
                            .map(e -> e.getKey().describe())
                            .toList());
        }
        return result;
    }

    /**
     * Waits up to {@code timeout} (on the factory's clock) until every informer this factory has handed out has
     * synced: the yes-or-no form of {@link #waitForCacheSync(Duration)}, for a controller that must not start
     * before its caches are full. Unlike the map, it counts informers that were never started: one asked for after
     * the last {@link #start()} makes it false at once (its cache would stay empty), with a warning naming it.
     *
     * <pre>{@code
     * factory.start();
     * if (!factory.waitForAllCachesSynced(Duration.ofMinutes(2))) {
     *     throw new IllegalStateException("caches did not sync");
     * }
     * }</pre>
     *
     * @return true when every informer handed out has started and synced (also when there is none); false on
     *     timeout, interruption (the interrupt flag is kept) or an informer not started
     */
    public boolean waitForAllCachesSynced(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        List<InformerKey> notStarted = new ArrayList<>();
        List<SharedIndexInformer<?>> all = new ArrayList<>();
        lock.lock();
        try {
            for (Map.Entry<InformerKey, SharedIndexInformer<?>> e : informers.entrySet()) {
                all.add(e.getValue());
                if (!started.contains(e.getKey())) {
                    notStarted.add(e.getKey());
                }
            }
        } finally {
            lock.unlock();
        }
        if (!notStarted.isEmpty()) {
            log.warn(
                    "informer factory: not started, so never synced: {}; call start() after asking for informers",
                    notStarted.stream().map(InformerKey::describe).toList());
            return false;
        }
        return !waitForCacheSync(timeout).containsValue(false);
    }

    /**
     * Stops every informer and waits for their threads; later {@link #start()} calls do nothing and
     * {@code informerFor} fails. Idempotent.
     */
    public void shutdown() {
        List<SharedIndexInformer<?>> all;
        lock.lock();
        try {
            shuttingDown = true;
            all = List.copyOf(informers.values());
        } finally {
            lock.unlock();
        }
        all.forEach(SharedIndexInformer::stop);
    }

    /** Every informer handed out so far, by key. */
    public Map<InformerKey, SharedIndexInformer<?>> informers() {
        lock.lock();
        try {
            return Map.copyOf(informers);
        } finally {
            lock.unlock();
        }
    }

    /** Options of a {@link SharedInformerFactory}; every one has a default. */
    public static final class Builder {
        private final KubernetesClient client;
        private String namespace;
        private UnaryOperator<ListOptions> tweakListOptions = UnaryOperator.identity();
        private Duration defaultResync = Duration.ZERO;
        private final Map<Class<?>, Duration> customResync = new HashMap<>();
        private UnaryOperator<HasMetadata> transform;
        private Decoding decoding = Decoding.standard();
        /** Null: the client's clock. */
        private Clock clock;

        private MeterRegistry meterRegistry;
        private ThreadFactory threadFactory = Thread.ofVirtual().factory();
        private boolean coalesceUpdates = true;
        private UndecodableObjects undecodableObjects = UndecodableObjects.SKIP;

        private Builder(KubernetesClient client) {
            this.client = Objects.requireNonNull(client, "client");
        }

        /** Watch only {@code namespace} (default: all namespaces, whatever the client's configuration says). */
        public Builder namespace(String namespace) {
            if (namespace != null && namespace.isBlank()) {
                throw new IllegalArgumentException("namespace is blank; use null for all namespaces");
            }
            this.namespace = namespace;
            return this;
        }

        /**
         * Changes the options of every list and watch of every informer (client-go's
         * {@code WithTweakListOptions}), e.g. {@code o -> o.toBuilder().labelSelector(o.labelSelector() == null ? "team=a"
         * : o.labelSelector() + ",team=a").build()}; applied after an informer's own selectors, so a tweak that
         * sets {@code labelSelector} without appending to {@code o.labelSelector()} replaces an informer's own.
         */
        public Builder tweakListOptions(UnaryOperator<ListOptions> tweak) {
            this.tweakListOptions = Objects.requireNonNull(tweak, "tweak");
            return this;
        }

        /** The resync period of informers without a per-type one (default zero: no resync). */
        public Builder defaultResync(Duration resync) {
            this.defaultResync = ResyncPeriods.requireValid(resync, "defaultResync");
            return this;
        }

        /** The resync period of the informers of {@code type} (client-go's {@code WithCustomResyncConfig}). */
        public Builder resync(Class<? extends HasMetadata> type, Duration resync) {
            Objects.requireNonNull(type, "type");
            customResync.put(type, ResyncPeriods.requireValid(resync, "resync of " + type.getSimpleName()));
            return this;
        }

        /** The transform of every informer without one of its own (see {@link Transforms}). */
        public Builder transform(UnaryOperator<HasMetadata> transform) {
            this.transform = Objects.requireNonNull(transform, "transform");
            return this;
        }

        /**
         * How every informer decodes what it lists and watches (default {@link Decoding#standard()}).
         * {@link Decoding#compact()} keeps the cache in a fraction of the heap — strings stored once, equal parts
         * shared between objects, immutable lists and empty maps (adding to one throws instead of silently
         * corrupting the cache); {@code Decoding.compact().withoutManagedFields()} also skips managedFields while parsing, the
         * same cache as {@link Transforms#stripManagedFields()} without paying to decode them. See
         * docs/compact-cache.md.
         */
        public Builder decoding(Decoding decoding) {
            this.decoding = Objects.requireNonNull(decoding, "decoding");
            return this;
        }

        /**
         * The clock of every informer's resyncs, relist backoff, bookmarks' timing and sync waits. Default: the
         * client's ({@code KubernetesClient.builder().clock(...)}), so that one clock drives the whole stack — the
         * client's retries, rate limit and watch idle rule, and the informers above it. Set it only to run the
         * informers on another clock than their client.
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** Where every informer records its metrics (default: none). */
        public Builder meterRegistry(MeterRegistry meterRegistry) {
            this.meterRegistry = Objects.requireNonNull(meterRegistry, "meterRegistry");
            return this;
        }

        /** Makes every thread of every informer (default: virtual threads). */
        public Builder threadFactory(ThreadFactory threadFactory) {
            this.threadFactory = Objects.requireNonNull(threadFactory, "threadFactory");
            return this;
        }

        /**
         * Whether every informer merges consecutive updates of one object still waiting in its DeltaFIFO into the
         * newest (default true; see {@link SharedIndexInformer.Builder#coalesceUpdates}). False delivers every
         * update, as client-go does.
         */
        public Builder coalesceUpdates(boolean coalesceUpdates) {
            this.coalesceUpdates = coalesceUpdates;
            return this;
        }

        /**
         * What every informer does with an object that does not decode to its Java type (default
         * {@link UndecodableObjects#SKIP}: left out of the cache, logged, counted and shown in {@code health()}, the
         * others served; {@link UndecodableObjects#FAIL}: no cache until it changes, client-go's behaviour). See
         * {@link SharedIndexInformer.Builder#undecodableObjects}.
         */
        public Builder undecodableObjects(UndecodableObjects policy) {
            this.undecodableObjects = Objects.requireNonNull(policy, "policy");
            return this;
        }

        public SharedInformerFactory build() {
            return new SharedInformerFactory(this);
        }
    }
}
