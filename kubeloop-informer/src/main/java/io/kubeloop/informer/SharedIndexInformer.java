package io.kubeloop.informer;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.codec.UndecodableObject;
import io.kubeloop.client.codec.UndecodableObjects;
import io.kubeloop.client.resource.ResourceClient;
import io.kubeloop.clock.Clock;
import io.kubeloop.informer.cache.CacheMutationException;
import io.kubeloop.informer.cache.DeletedFinalStateUnknown;
import io.kubeloop.informer.cache.IndexFunc;
import io.kubeloop.informer.cache.Indexer;
import io.kubeloop.informer.cache.Indexers;
import io.kubeloop.informer.cache.Keys;
import io.kubeloop.informer.cache.Lister;
import io.kubeloop.informer.fifo.Delta;
import io.kubeloop.informer.fifo.DeltaFIFO;
import io.kubeloop.informer.reflector.ListerWatcher;
import io.kubeloop.informer.reflector.ListerWatchers;
import io.kubeloop.informer.reflector.Reflector;
import io.kubeloop.informer.reflector.ReflectorStatus;
import io.kubeloop.informer.reflector.WatchErrorHandler;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A cache of one kind of Kubernetes object, kept up to date by a list and a watch, with any number of handlers
 * notified of every change: client-go's {@code SharedIndexInformer}.
 *
 * <pre>{@code
 * SharedIndexInformer<Pod> pods = SharedIndexInformer
 *         .builder(ListerWatchers.forClient(client.resources(Pod.class).inAnyNamespace()), Pod.class)
 *         .name("pods")
 *         .resyncPeriod(Duration.ofMinutes(10))
 *         .indexers(Map.of("node", pod -> List.of(pod.getSpec().getNodeName())))
 *         .transform(Transforms.stripManagedFields())
 *         .build();
 * pods.addEventHandler(new ResourceEventHandler<>() {
 *     public void onAdd(Pod pod, boolean initial) { queue.add(key(pod)); }
 *     public void onUpdate(Pod old, Pod pod) { queue.add(key(pod)); }
 *     public void onDelete(Pod pod, boolean finalStateUnknown) { queue.add(key(pod)); }
 * });
 * pods.start();
 * if (!SharedIndexInformer.waitForCacheSync(Duration.ofMinutes(1), pods::hasSynced)) { ... }
 * List<Pod> onNode = pods.indexer().byIndex("node", "node-1");
 * pods.stop();
 * }</pre>
 *
 * <p>The path of a change: the reflector lists and watches; the DeltaFIFO keeps, per object, the changes not yet
 * processed; one process loop pops an object's changes, writes them to the cache and then hands a notification to
 * each handler's own unbounded buffer, from which the handler's own dispatcher thread calls it.
 *
 * <p>Guarantees (client-go's, §5-§6 of the semantics):
 * <ul>
 *   <li>The cache holds the new state before any handler hears of it.</li>
 *   <li>A handler is called on its own dispatcher thread, one notification at a time, in order; a slow or blocked
 *       handler grows only its own buffer and delays no other handler, the process loop, the FIFO or the watch.
 *       Its exceptions are logged with their context and counted; its dispatcher carries on.</li>
 *   <li>A relist (after a 410, for example) delivers {@code onUpdate} to every handler for objects whose
 *       resourceVersion changed, {@code onAdd} for new ones, {@code onDelete} with a
 *       {@link DeletedFinalStateUnknown} tombstone for objects deleted meanwhile, and unchanged objects only to
 *       the handlers due for a resync.</li>
 *   <li>Resync is per handler: every handler's period is raised to 1 s and to the informer's resync check
 *       period; the check period is the informer's resync period, lowered before start by a handler asking for
 *       less. An informer built with no resync period never resyncs.</li>
 *   <li>A handler added after start first gets the current cache as {@code onAdd(object, true)}, then every
 *       later change, with no gap and no duplicate.</li>
 * </ul>
 *
 * <p>Objects in the cache and in notifications are shared with every reader and handler: never mutate them.
 * Thread-safe. An informer runs once: after {@link #stop()} it cannot be started again.
 *
 * @param <T> the object type
 */
public final class SharedIndexInformer<T extends HasMetadata> {

    private static final Logger log = LoggerFactory.getLogger(SharedIndexInformer.class);

    /** client-go's {@code WaitForCacheSync} poll period. */
    static final Duration SYNC_POLL_PERIOD = Duration.ofMillis(100);
    /** How long {@link #stop()} waits for each of the informer's threads before it says which one is stuck. */
    static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

    private final String name;
    private final ListerWatcher<T> listerWatcher;
    private final Indexer<T> indexer;
    private final Lister<T> lister;
    private final Clock clock;
    private final ThreadFactory threadFactory;
    private final MeterRegistry meterRegistry;
    private final boolean coalesceUpdates;
    private final UnaryOperator<Reflector.Builder<T>> reflectorOptions;
    private final UndecodableObjects undecodableObjects;
    private final Duration defaultHandlerResync;
    private final SharedProcessor<T> processor;
    private final InformerMetrics metrics;
    private final AtomicInteger handlerSequence = new AtomicInteger();
    private final Instant createdAt;

    /**
     * Guards the life cycle (started, stopped), the resync check period, the transform and the watch error handler.
     * Taken before {@code blockDeltas} when both are needed.
     */
    private final ReentrantLock startLock = new ReentrantLock();

    private boolean started;
    private boolean stopped;
    private Duration resyncCheckPeriod;
    private UnaryOperator<T> transform;
    private WatchErrorHandler watchErrorHandler;
    private Thread reflectorThread;
    private Thread processThread;
    private volatile Instant stoppedAt;
    /**
     * Set by {@link #stop()} (under {@code startLock}, with {@code stopped}) before the FIFO is closed: the process
     * loop checks it before every pop, because a closed FIFO still hands out everything it holds.
     */
    private volatile boolean stopping;
    /**
     * Why the reflector's thread ended although the informer was not stopped (an Error thrown by a transform, for
     * example): the cache is no longer updated. Null while the reflector runs; never set after stop.
     */
    private volatile String reflectorDied;

    /**
     * Held while the process loop writes one object's deltas to the cache and distributes them, and while a late
     * handler is registered and given the cache's content: so a late handler sees every object exactly once,
     * either in the replay or as a later notification.
     */
    private final ReentrantLock blockDeltas = new ReentrantLock();

    private volatile DeltaFIFO<T> fifo;
    private volatile Reflector<T> reflector;
    private volatile Instant syncedAt;
    private final CountDownLatch terminated = new CountDownLatch(1);

    private SharedIndexInformer(Builder<T> b) {
        this.name = b.name;
        this.listerWatcher = b.listerWatcher;
        this.clock = b.clock;
        this.threadFactory = b.threadFactory;
        this.meterRegistry = b.meterRegistry;
        this.coalesceUpdates = b.coalesceUpdates;
        this.reflectorOptions = b.reflectorOptions;
        this.undecodableObjects = b.undecodableObjects;
        this.defaultHandlerResync = b.resyncPeriod;
        this.resyncCheckPeriod = b.resyncPeriod;
        this.transform = b.transform;
        this.watchErrorHandler = b.watchErrorHandler;
        Map<String, IndexFunc<T>> indexers = new LinkedHashMap<>();
        indexers.put(Indexers.NAMESPACE_INDEX, Indexers.namespaceIndex());
        indexers.putAll(b.indexers);
        this.indexer = Indexers.newIndexer(Keys.DELETION_HANDLING, indexers);
        this.lister = Lister.of(indexer);
        this.processor = new SharedProcessor<>(clock);
        this.metrics = InformerMetrics.create(meterRegistry, name, () -> indexer.size());
        this.createdAt = clock.now();
    }

    /**
     * A builder of an informer of {@code type} fed by {@code listerWatcher} (see
     * {@code ListerWatchers.forClient}).
     */
    public static <T extends HasMetadata> Builder<T> builder(ListerWatcher<T> listerWatcher, Class<T> type) {
        return new Builder<>(listerWatcher, type);
    }

    /**
     * A builder of an informer of every object of {@code type} in every namespace, read through {@code client}:
     * one line for one resource, {@code SharedIndexInformer.builder(client, Pod.class).build()}. Named after the
     * resource ({@code pods}, {@code deployments.apps}). For one namespace or selectors, give a lister-watcher
     * ({@code builder(ListerWatchers.forClient(client.resources(Pod.class).inNamespace("shop")), Pod.class)}) or use a
     * {@link SharedInformerFactory}, which also shares informers.
     *
     * @throws IllegalArgumentException {@code type} is not a resource class the client knows (a built-in model class,
     *     or a custom resource class with {@code @Group} and {@code @Version}); {@code GenericKubernetesResource} has
     *     no resource of its own
     */
    public static <T extends HasMetadata> Builder<T> builder(KubernetesClient client, Class<T> type) {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(type, "type");
        if (type == GenericKubernetesResource.class) {
            throw new IllegalArgumentException("GenericKubernetesResource has no resource type of its own: use "
                    + "builder(ListerWatchers.forClient(client.genericResources(apiVersion, kind)), "
                    + "GenericKubernetesResource.class)");
        }
        ResourceClient<T> resources = client.resources(type).inAnyNamespace();
        String group = resources.type().gvr().group();
        return new Builder<>(ListerWatchers.forClient(resources), type)
                .name(resources.type().gvr().resource() + (group.isEmpty() ? "" : "." + group));
    }

    /** The informer's name, in logs, thread names and the {@code name} tag of its metrics. */
    public String name() {
        return name;
    }

    /** Whether updates waiting in the DeltaFIFO coalesce ({@link Builder#coalesceUpdates}); for tests. */
    boolean coalescesUpdates() {
        return coalesceUpdates;
    }

    // ---- handlers -----------------------------------------------------------------------------------------------

    /** Adds a handler with the informer's resync period (see {@link #addEventHandlerWithResyncPeriod}). */
    public ResourceEventHandlerRegistration addEventHandler(ResourceEventHandler<? super T> handler) {
        return addEventHandlerWithResyncPeriod(handler, defaultHandlerResync);
    }

    /**
     * Adds a handler that also wants every cached object re-delivered as {@code onUpdate(o, o)} every
     * {@code resyncPeriod} (zero: never). The period is raised to 1 s; below the informer's resync check period
     * it lowers that period before start and is raised to it after start. Added after start, the handler first
     * gets the current cache as {@code onAdd(object, true)}.
     *
     * @throws IllegalStateException the informer has stopped
     */
    public ResourceEventHandlerRegistration addEventHandlerWithResyncPeriod(
            ResourceEventHandler<? super T> handler, Duration resyncPeriod) {
        Objects.requireNonNull(handler, "handler");
        ResyncPeriods.requireValid(resyncPeriod, "resyncPeriod");
        startLock.lock();
        try {
            if (stopped) {
                throw new IllegalStateException("handler " + handler + " was not added to shared informer " + name
                        + " because it has stopped already");
            }
            Duration requested = ResyncPeriods.atLeastMinimum(resyncPeriod);
            if (!requested.isZero() && requested.compareTo(resyncCheckPeriod) < 0) {
                if (started) {
                    log.warn(
                            "informer {}: resyncPeriod {} is smaller than the resync check period {} and the "
                                    + "informer has already started; the handler resyncs every {}",
                            name,
                            requested,
                            resyncCheckPeriod,
                            resyncCheckPeriod);
                    requested = resyncCheckPeriod;
                } else {
                    resyncCheckPeriod = requested;
                    processor.resyncCheckPeriodChanged(requested);
                }
            }
            Duration effective = ResyncPeriods.effective(requested, resyncCheckPeriod);
            if (!requested.isZero() && effective.isZero()) {
                log.warn(
                        "informer {}: resyncPeriod {} is ignored because this informer has no resync period "
                                + "(it was built with none)",
                        name,
                        requested);
            }
            ProcessorListener<T> listener =
                    new ProcessorListener<>(name, handlerName(handler), handler, requested, effective, clock, metrics);
            if (!started) {
                processor.add(listener);
            } else {
                blockDeltas.lock();
                try {
                    processor.add(listener);
                    for (T object : indexer.list()) {
                        listener.add(new Notification.Add<>(object, true));
                    }
                } finally {
                    blockDeltas.unlock();
                }
            }
            log.debug("informer {}: added handler {} (resync {})", name, listener.name(), effective);
            return new Registration(listener);
        } finally {
            startLock.unlock();
        }
    }

    /**
     * Removes a handler (same as {@link ResourceEventHandlerRegistration#remove()}). A registration of another
     * informer, or one already removed, is ignored.
     */
    public void removeEventHandler(ResourceEventHandlerRegistration registration) {
        Objects.requireNonNull(registration, "registration");
        if (!(registration instanceof SharedIndexInformer<?>.Registration r) || r.informer() != this) {
            return;
        }
        @SuppressWarnings("unchecked")
        ProcessorListener<T> listener = (ProcessorListener<T>) r.listener;
        startLock.lock();
        try {
            blockDeltas.lock();
            try {
                if (processor.remove(listener)) {
                    log.debug("informer {}: removed handler {}", name, listener.name());
                }
            } finally {
                blockDeltas.unlock();
            }
        } finally {
            startLock.unlock();
        }
    }

    // ---- the cache ----------------------------------------------------------------------------------------------

    /** The cache, with the {@code namespace} index and any added; read-only for callers. */
    public Indexer<T> indexer() {
        return indexer;
    }

    /** Reads of the cache by namespace, name, label selector and index. */
    public Lister<T> lister() {
        return lister;
    }

    /**
     * Adds indexes, also after start (they are built from the current content).
     *
     * @throws IllegalArgumentException an index of one of these names exists
     * @throws IllegalStateException the informer has stopped
     */
    public void addIndexers(Map<String, IndexFunc<T>> indexers) {
        Objects.requireNonNull(indexers, "indexers");
        startLock.lock();
        try {
            if (stopped) {
                throw new IllegalStateException(
                        "indexers were not added to informer " + name + " because it has stopped already");
            }
            blockDeltas.lock();
            try {
                indexer.addIndexers(indexers);
            } finally {
                blockDeltas.unlock();
            }
        } finally {
            startLock.unlock();
        }
    }

    /**
     * Sets the transform every listed and watched object goes through before it is queued, cached or delivered
     * (the last call wins).
     *
     * @throws IllegalStateException the informer has already started
     */
    public void setTransform(UnaryOperator<T> transform) {
        startLock.lock();
        try {
            requireNotStarted("setTransform");
            this.transform = transform;
        } finally {
            startLock.unlock();
        }
    }

    /**
     * Sets the handler called for every list failure and every failure to open or continue a watch (default: log
     * it; a 410 at info, others at warn). The last call wins.
     *
     * @throws IllegalStateException the informer has already started
     */
    public void setWatchErrorHandler(WatchErrorHandler handler) {
        startLock.lock();
        try {
            requireNotStarted("setWatchErrorHandler");
            this.watchErrorHandler = handler;
        } finally {
            startLock.unlock();
        }
    }

    private void requireNotStarted(String what) {
        if (started || stopped) {
            throw new IllegalStateException(what + ": informer " + name + " has already started");
        }
    }

    // ---- life cycle ---------------------------------------------------------------------------------------------

    /**
     * Starts listing and watching on the informer's own threads, and the handlers' dispatchers; returns at once.
     * A second call does nothing.
     *
     * @throws IllegalStateException the informer was stopped (an informer never restarts)
     */
    public void start() {
        startLock.lock();
        try {
            if (stopped) {
                throw new IllegalStateException("informer " + name + " was stopped; an informer cannot be restarted");
            }
            if (started) {
                log.warn("informer {} has already started; start() does nothing", name);
                return;
            }
            // The transform runs inside the FIFO on the way in: queued objects are already transformed.
            DeltaFIFO<T> queue = DeltaFIFO.<T>builder(Keys.DELETION_HANDLING)
                    .name(name)
                    .knownObjects(indexer)
                    .coalesceUpdates(coalesceUpdates)
                    .transformer(transform)
                    .clock(clock)
                    .build();
            Reflector.Builder<T> rb = reflectorOptions.apply(Reflector.builder(listerWatcher, queue));
            rb.name(name);
            rb.clock(clock);
            rb.resyncPeriod(resyncCheckPeriod);
            rb.shouldResync(this::shouldResync);
            rb.undecodableObjects(undecodableObjects);
            rb.threadFactory(body -> newThread("reflector-resync", body));
            if (meterRegistry != null) {
                rb.meterRegistry(meterRegistry);
            }
            if (watchErrorHandler != null) {
                rb.watchErrorHandler(watchErrorHandler);
            }
            Reflector<T> r = rb.build();
            this.fifo = queue;
            this.reflector = r;
            this.started = true;
            processor.run(threadFactory);
            processThread = newThread("process", this::processLoop);
            reflectorThread = newThread("reflector", () -> runReflector(r));
            processThread.start();
            reflectorThread.start();
            log.info("informer {} started (resync check period {})", name, resyncCheckPeriod);
        } finally {
            startLock.unlock();
        }
    }

    /**
     * Runs the reflector, which retries every failure it knows for as long as it runs; should it end otherwise (an
     * {@link Error} from a transform or a handler of the reflector, say), the informer says so loudly instead of
     * leaving a cache that silently stops following the server: an ERROR log line with the cause, and
     * {@link #health()} STOPPED with the cause as its last error.
     */
    private void runReflector(Reflector<T> r) {
        Throwable cause = null;
        try {
            r.run();
        } catch (VirtualMachineError fatal) {
            if (!stopping) {
                reflectorDied = fatal.toString();
            }
            throw fatal;
        } catch (Throwable e) {
            cause = e;
        }
        if (!stopping) {
            reflectorDied = cause == null ? "the reflector ended without being stopped" : cause.toString();
            log.error(
                    "informer {}: its reflector has ended although the informer was not stopped; the cache no "
                            + "longer follows the server (health: STOPPED). Stop the informer and build a new one",
                    name,
                    cause);
        }
    }

    /**
     * Stops the reflector (closing its watch), the process loop and every handler's dispatcher (pending
     * notifications are dropped; a handler in a call is interrupted), and waits for their threads to end. The
     * informer's meters are removed. Idempotent; every call returns once the informer has stopped. May be called
     * from a handler (its own dispatcher then ends when the handler returns).
     */
    public void stop() {
        boolean first;
        boolean wasStarted;
        startLock.lock();
        try {
            first = !stopped;
            stopped = true;
            stopping = true;
            wasStarted = started;
        } finally {
            startLock.unlock();
        }
        if (!first) {
            awaitTerminated();
            return;
        }
        try {
            stoppedAt = clock.now();
            if (wasStarted) {
                reflector.stop();
                fifo.close();
                join(reflectorThread, "reflector");
                join(processThread, "process loop");
            }
            for (Thread t : processor.stop()) {
                join(t, "handler dispatcher");
            }
            metrics.close();
            log.info("informer {} stopped", name);
        } finally {
            terminated.countDown();
        }
    }

    private void awaitTerminated() {
        try {
            terminated.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void join(Thread t, String what) {
        if (t == Thread.currentThread()) {
            return; // stop() called from a handler: its own dispatcher ends when the handler returns
        }
        try {
            if (!t.join(STOP_TIMEOUT)) {
                log.warn(
                        "informer {}: the {} thread {} is still running {} after stop; it ends when its current "
                                + "call returns",
                        name,
                        what,
                        t.getName(),
                        STOP_TIMEOUT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private Thread newThread(String role, Runnable body) {
        Thread t = threadFactory.newThread(body);
        if (t == null) {
            throw new IllegalStateException("informer " + name + ": the thread factory returned null");
        }
        t.setName("informer[" + name + "]-" + role);
        return t;
    }

    /** Whether {@link #stop()} was called. */
    public boolean isStopped() {
        startLock.lock();
        try {
            return stopped;
        } finally {
            startLock.unlock();
        }
    }

    /**
     * True once the initial list has been fully written to the cache and distributed to the handlers' buffers (not
     * yet necessarily handled: see {@link ResourceEventHandlerRegistration#hasSynced()}). Never goes back.
     */
    public boolean hasSynced() {
        DeltaFIFO<T> q = fifo;
        boolean synced = q != null && q.hasSynced();
        if (synced && syncedAt == null) {
            syncedAt = clock.now();
        }
        return synced;
    }

    /** Whether a watch is open now. */
    public boolean isWatching() {
        Reflector<T> r = reflector;
        return r != null && r.isWatching();
    }

    /** The resourceVersion of the latest list, event or bookmark; "" before the first list. */
    public String lastSyncResourceVersion() {
        Reflector<T> r = reflector;
        String rv = r == null ? null : r.lastSyncResourceVersion();
        return rv == null ? "" : rv;
    }

    /**
     * The informer's condition now: listing, watching, backing off (with the last error), synced, stopped, and the
     * objects it could not decode to its Java type (and does not cache).
     */
    public InformerHealth health() {
        boolean synced = hasSynced();
        Reflector<T> r = reflector;
        Instant stopTime = stoppedAt;
        if (stopTime != null) {
            return new InformerHealth(name, InformerHealth.State.STOPPED, stopTime, null, 0, synced, syncedAt);
        }
        if (r == null) {
            return new InformerHealth(name, InformerHealth.State.NOT_STARTED, createdAt, null, 0, synced, syncedAt);
        }
        ReflectorStatus s = r.status();
        int undecodableCount = r.undecodableCount();
        List<UndecodableObject> undecodable = undecodableCount == 0 ? List.of() : r.undecodableObjects();
        if (undecodable.size() > InformerHealth.UNDECODABLE_SHOWN) {
            undecodable = undecodable.subList(0, InformerHealth.UNDECODABLE_SHOWN);
        }
        String died = reflectorDied;
        if (died != null) {
            return new InformerHealth(
                    name,
                    InformerHealth.State.STOPPED,
                    s.since(),
                    "reflector ended: " + died,
                    s.consecutiveFailures(),
                    synced,
                    syncedAt,
                    undecodableCount,
                    undecodable);
        }
        InformerHealth.State state =
                switch (s.phase()) {
                    case NOT_STARTED -> InformerHealth.State.LISTING; // its thread is about to run
                    case LISTING -> InformerHealth.State.LISTING;
                    case WATCHING -> InformerHealth.State.WATCHING;
                    case BACKING_OFF -> InformerHealth.State.BACKING_OFF;
                    case STOPPED -> InformerHealth.State.STOPPED;
                };
        return new InformerHealth(
                name,
                state,
                s.since(),
                s.lastError(),
                s.consecutiveFailures(),
                synced,
                syncedAt,
                undecodableCount,
                undecodable);
    }

    // ---- the process loop ---------------------------------------------------------------------------------------

    /**
     * Pops and handles one object's deltas at a time until {@link #stop()}. Invariant: nothing but a fatal VM error
     * ends the loop before stop; a failure is logged with its object and the loop carries on.
     */
    private void processLoop() {
        DeltaFIFO<T> queue = fifo;
        while (!stopping) {
            try {
                if (queue.pop(this::handleDeltas) == null) {
                    return; // closed and empty
                }
                if (syncedAt == null) {
                    hasSynced();
                }
            } catch (InterruptedException e) {
                if (stopping || queue.isClosed()) {
                    return;
                }
            } catch (VirtualMachineError fatal) {
                throw fatal;
            } catch (Throwable e) {
                // client-go drops the item too (RetryOnError=false): a store error must be impossible; make it loud.
                metrics.processError("failed");
                log.error(
                        "informer {}: processing deltas failed; the rest of that object's deltas are dropped and "
                                + "the cache may miss them until the next relist",
                        name,
                        e);
            }
        }
    }

    /**
     * client-go's {@code processDeltas} with this informer as the handler; runs inside {@code DeltaFIFO.pop}, under
     * the FIFO's lock. Writes the cache first, then distributes.
     */
    private void handleDeltas(List<Delta<T>> deltas, boolean isInInitialList) {
        blockDeltas.lock();
        try {
            for (Delta<T> delta : deltas) {
                if (log.isDebugEnabled()) {
                    log.debug(
                            "informer {}: {} {}{}",
                            name,
                            delta.type(),
                            ProcessorListener.describe(delta.objectOrTombstone()),
                            isInInitialList ? " (initial list)" : "");
                }
                switch (delta.type()) {
                    case SYNC, REPLACED, ADDED, UPDATED -> {
                        T object = delta.object();
                        Optional<T> old = indexer.get(object);
                        if (old.isPresent()) {
                            write(() -> indexer.update(object), delta);
                            boolean sync = Objects.equals(resourceVersion(old.get()), resourceVersion(object));
                            metrics.notification(sync ? "sync" : "update");
                            processor.distribute(new Notification.Update<>(old.get(), object), sync);
                        } else {
                            write(() -> indexer.add(object), delta);
                            metrics.notification("add");
                            processor.distribute(new Notification.Add<>(object, isInInitialList), false);
                        }
                    }
                    case DELETED -> {
                        Object object = delta.objectOrTombstone();
                        Optional<T> stored = cached(object);
                        if (stored.isPresent()) {
                            write(() -> indexer.delete(stored.get()), delta);
                        }
                        metrics.notification("delete");
                        processor.distribute(new Notification.Delete<>(object), false);
                    }
                }
            }
        } finally {
            blockDeltas.unlock();
        }
    }

    /**
     * Runs one cache write. A {@link CacheMutationException} (the mutation detector, on in tests, found that the
     * cached object this write replaces had been changed in place) is thrown after the write was applied: it is
     * logged here and the handlers are still told, so one careless reader neither stops the informer nor makes
     * its handlers miss the change.
     */
    private void write(Runnable cacheWrite, Delta<T> delta) {
        try {
            cacheWrite.run();
        } catch (CacheMutationException e) {
            metrics.processError("mutation");
            log.error(
                    "informer {}: writing {} {} to the cache found a cached object mutated in place; the write was "
                            + "applied and the handlers are told: {}",
                    name,
                    delta.type(),
                    ProcessorListener.describe(delta.objectOrTombstone()),
                    e.getMessage());
        }
    }

    /** The cached object under the key of a deleted object or tombstone. */
    private Optional<T> cached(Object deleted) {
        if (deleted instanceof DeletedFinalStateUnknown<?> tombstone) {
            return indexer.getByKey(tombstone.key());
        }
        @SuppressWarnings("unchecked")
        T t = (T) deleted;
        return indexer.get(t);
    }

    private static String resourceVersion(HasMetadata object) {
        return object.getMetadata() == null ? null : object.getMetadata().getResourceVersion();
    }

    /** The reflector's resync tick: marks the due handlers; counts a round when any is due. */
    private boolean shouldResync() {
        boolean any = processor.shouldResync();
        if (any) {
            metrics.resync();
            log.debug("informer {}: resync round", name);
        }
        return any;
    }

    private String handlerName(Object handler) {
        String simple = handler.getClass().getSimpleName();
        int lambda = simple.indexOf("$$");
        if (lambda >= 0) {
            simple = simple.substring(0, lambda);
        }
        if (simple.isEmpty()) {
            simple = "handler";
        }
        return simple + "#" + handlerSequence.incrementAndGet();
    }

    // ---- waiting for sync ---------------------------------------------------------------------------------------

    /**
     * Waits until every {@code synced} condition is true (typically {@code informer::hasSynced} or a
     * registration's {@code hasSynced}), checking every 100 ms, for at most {@code timeout}. On a clock other than
     * the system's, the conditions are also checked every 100 ms of real time, so that a wait on a fake clock that no
     * one steps still returns once the caches have synced.
     *
     * @return true when all are true; false on timeout or interruption (the interrupt flag is kept)
     */
    public static boolean waitForCacheSync(Duration timeout, BooleanSupplier... synced) {
        return waitForCacheSync(Clock.system(), timeout, synced);
    }

    /** {@link #waitForCacheSync(Duration, BooleanSupplier...)} on {@code clock} (a FakeClock in tests). */
    public static boolean waitForCacheSync(Clock clock, Duration timeout, BooleanSupplier... synced) {
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must not be negative, was " + timeout);
        }
        Objects.requireNonNull(synced, "synced");
        long deadline = clock.nanoTime() + timeout.toNanos();
        ReentrantLock lock = new ReentrantLock();
        Condition never = lock.newCondition();
        // A clock other than the system's (a test's FakeClock) moves only when stepped, so a poll on it alone would
        // never see the caches sync: a virtual thread also wakes the wait every poll period of real time (a spurious
        // return, which awaitUntil allows). The timeout stays on the clock.
        Thread nudger = clock == Clock.system()
                ? null
                : Thread.ofVirtual().name("wait-for-cache-sync").start(() -> {
                    try {
                        while (true) {
                            Thread.sleep(SYNC_POLL_PERIOD);
                            lock.lock();
                            try {
                                never.signalAll();
                            } finally {
                                lock.unlock();
                            }
                        }
                    } catch (InterruptedException done) {
                        // the wait is over
                    }
                });
        lock.lock();
        try {
            while (true) {
                if (allTrue(synced)) {
                    return true;
                }
                long now = clock.nanoTime();
                if (now - deadline >= 0) {
                    return false;
                }
                long wakeUp = Math.min(deadline, now + SYNC_POLL_PERIOD.toNanos());
                clock.awaitUntil(lock, never, wakeUp);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            lock.unlock();
            if (nudger != null) {
                nudger.interrupt();
            }
        }
    }

    private static boolean allTrue(BooleanSupplier[] synced) {
        for (BooleanSupplier s : synced) {
            if (!s.getAsBoolean()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString() {
        return "SharedIndexInformer[" + name + "]";
    }

    // ---- registration -------------------------------------------------------------------------------------------

    private final class Registration implements ResourceEventHandlerRegistration {
        private final ProcessorListener<T> listener;

        Registration(ProcessorListener<T> listener) {
            this.listener = listener;
        }

        SharedIndexInformer<T> informer() {
            return SharedIndexInformer.this;
        }

        @Override
        public String name() {
            return listener.name();
        }

        @Override
        public Duration resyncPeriod() {
            return processorResyncPeriod(listener);
        }

        @Override
        public boolean hasSynced() {
            return SharedIndexInformer.this.hasSynced() && listener.initialListDelivered();
        }

        @Override
        public void remove() {
            removeEventHandler(this);
        }

        @Override
        public boolean isActive() {
            return processor.contains(listener);
        }

        @Override
        public String toString() {
            return listener.toString();
        }
    }

    private Duration processorResyncPeriod(ProcessorListener<T> listener) {
        startLock.lock(); // the period changes only under startLock (resyncCheckPeriodChanged)
        try {
            return listener.resyncPeriod();
        } finally {
            startLock.unlock();
        }
    }

    // ---- builder ------------------------------------------------------------------------------------------------

    /** Options of a {@link SharedIndexInformer}; every one has a default. */
    public static final class Builder<T extends HasMetadata> {
        private final ListerWatcher<T> listerWatcher;
        private String name;
        private Duration resyncPeriod = Duration.ZERO;
        private final Map<String, IndexFunc<T>> indexers = new LinkedHashMap<>();
        private UnaryOperator<T> transform;
        private WatchErrorHandler watchErrorHandler;
        private boolean coalesceUpdates = true;
        private Clock clock = Clock.system();
        private MeterRegistry meterRegistry;
        private ThreadFactory threadFactory = Thread.ofVirtual().factory();
        private UnaryOperator<Reflector.Builder<T>> reflectorOptions = UnaryOperator.identity();
        private UndecodableObjects undecodableObjects = UndecodableObjects.SKIP;

        private Builder(ListerWatcher<T> listerWatcher, Class<T> type) {
            this.listerWatcher = Objects.requireNonNull(listerWatcher, "listerWatcher");
            Objects.requireNonNull(type, "type");
            this.name = type.getSimpleName().toLowerCase(java.util.Locale.ROOT);
        }

        /**
         * The informer's name (default: the type's simple name in lower case), for logs, thread names and the
         * {@code name} tag of the informer's and the reflector's metrics; make it unique per registry, e.g.
         * "pods" or "pods in default".
         */
        public Builder<T> name(String name) {
            Objects.requireNonNull(name, "name");
            if (name.isBlank()) {
                throw new IllegalArgumentException("informer name is blank");
            }
            this.name = name;
            return this;
        }

        /**
         * The default resync period of handlers and the informer's resync check period (default zero: the informer
         * never resyncs, whatever its handlers ask).
         */
        public Builder<T> resyncPeriod(Duration resyncPeriod) {
            this.resyncPeriod = ResyncPeriods.atLeastMinimum(ResyncPeriods.requireValid(resyncPeriod, "resyncPeriod"));
            return this;
        }

        /** Extra indexes by name; the {@code namespace} index is always there. */
        public Builder<T> indexers(Map<String, IndexFunc<T>> indexers) {
            Objects.requireNonNull(indexers, "indexers");
            for (Map.Entry<String, IndexFunc<T>> e : indexers.entrySet()) {
                Objects.requireNonNull(e.getKey(), "index name");
                Objects.requireNonNull(e.getValue(), "index function of " + e.getKey());
                if (e.getKey().equals(Indexers.NAMESPACE_INDEX)) {
                    throw new IllegalArgumentException(
                            "index \"" + Indexers.NAMESPACE_INDEX + "\" is built in; give yours another name");
                }
            }
            this.indexers.putAll(indexers);
            return this;
        }

        /** A transform every listed and watched object goes through first (see {@link Transforms}). */
        public Builder<T> transform(UnaryOperator<T> transform) {
            this.transform = transform;
            return this;
        }

        /** Called for list and watch failures (default: the reflector logs them). */
        public Builder<T> watchErrorHandler(WatchErrorHandler handler) {
            this.watchErrorHandler = handler;
            return this;
        }

        /**
         * Whether consecutive updates of one object waiting in the DeltaFIFO merge into the newest (default true:
         * handlers always work on the latest state and a hot object cannot grow its queue without bound); false
         * delivers every update, as client-go does.
         */
        public Builder<T> coalesceUpdates(boolean coalesceUpdates) {
            this.coalesceUpdates = coalesceUpdates;
            return this;
        }

        /**
         * The clock of resyncs, backoff, timeouts and durations (default the system clock). Give it the clock of the
         * client behind the ListerWatcher ({@code .clock(client.clock())}) so that one clock drives both;
         * {@code SharedInformerFactory} does so by itself.
         */
        public Builder<T> clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** Where the informer's and its reflector's metrics go (default: none are recorded). */
        public Builder<T> meterRegistry(MeterRegistry meterRegistry) {
            this.meterRegistry = Objects.requireNonNull(meterRegistry, "meterRegistry");
            return this;
        }

        /**
         * Makes every thread of the informer: reflector, process loop, one dispatcher per handler, and the
         * reflector's own (default: virtual threads). The informer names each thread it gets.
         */
        public Builder<T> threadFactory(ThreadFactory threadFactory) {
            this.threadFactory = Objects.requireNonNull(threadFactory, "threadFactory");
            return this;
        }

        /**
         * Reflector options: page size, backoff, streaming list, minimum watch timeout. The informer then sets the
         * reflector's name, clock, resync period and check, thread factory, meter registry and watch error handler
         * itself, overriding those, and its {@link #undecodableObjects policy for undecodable objects}.
         */
        public Builder<T> reflector(UnaryOperator<Reflector.Builder<T>> options) {
            this.reflectorOptions = Objects.requireNonNull(options, "options");
            return this;
        }

        /**
         * What to do with an object of the server that does not decode to the informer's Java type (a custom
         * resource whose schema moved on, a field the class declares with another type).
         * {@link UndecodableObjects#SKIP} (the default): the object is left out of the cache, logged once at WARN with
         * its namespace/name, resourceVersion and the decoding error, counted in {@code reflector_decode_errors_total}
         * and shown in {@link #health()}; every other object keeps flowing, and the object enters the cache as
         * usual once it changes to something that decodes. A cached object that changes into something undecodable
         * is dropped from the cache, and handlers get {@code onDelete} with its last cached state and
         * {@code finalStateUnknown} true. {@link UndecodableObjects#FAIL}: the list or watch fails, and the informer
         * backs off and relists until the object changes or is deleted — client-go's behaviour, for those who
         * would rather have no cache than an incomplete one.
         */
        public Builder<T> undecodableObjects(UndecodableObjects policy) {
            this.undecodableObjects = Objects.requireNonNull(policy, "policy");
            return this;
        }

        public SharedIndexInformer<T> build() {
            return new SharedIndexInformer<>(this);
        }
    }
}
