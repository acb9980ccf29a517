package io.kubeloop.controller;

import com.sun.net.httpserver.HttpHandler;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.codec.Decoding;
import io.kubeloop.clock.Clock;
import io.kubeloop.controller.internal.client.CachingControllerClient;
import io.kubeloop.controller.internal.events.EventBroadcaster;
import io.kubeloop.controller.internal.manager.HealthChecks;
import io.kubeloop.controller.internal.manager.HttpEndpoint;
import io.kubeloop.controller.internal.manager.RbacDenials;
import io.kubeloop.controller.internal.manager.RbacRules;
import io.kubeloop.controller.internal.manager.RunnableGroup;
import io.kubeloop.controller.leaderelection.LeaderCallbacks;
import io.kubeloop.controller.leaderelection.LeaderElectionConfig;
import io.kubeloop.controller.leaderelection.LeaderElector;
import io.kubeloop.informer.InformerHealth;
import io.kubeloop.informer.InformerKey;
import io.kubeloop.informer.SharedIndexInformer;
import io.kubeloop.informer.SharedInformerFactory;
import io.kubeloop.model.ResourceType;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs controllers: holds the client, one shared informer factory (one informer per type whatever the number of
 * controllers), the controllers and other {@link ManagedRunnable runnables}, and serves metrics and health probes
 * (controller-runtime's {@code Manager}).
 *
 * <p>Start order (controller-runtime §6.2): HTTP servers (metrics, probes) → informers → wait for every cache to
 * sync (bounded by the cache sync timeout, default 2 min; a cache that does not sync in time fails the start with
 * {@code WaitForCacheSync timed out} and the types that did not sync) → runnables that do not need leader election
 * → leader election, if configured → on a win, the runnables that need it (controllers). Stop order is the
 * reverse: leader runnables (in-flight reconciles finish within the graceful shutdown timeout) → the lease is
 * released → other runnables → informers → HTTP servers. On a lost lease only the leader runnables stop; the caches
 * stay warm and the manager campaigns again. The library never exits the JVM.
 *
 * <p>Invariants: {@link #start()} runs at most once; {@link #close()} is idempotent, may be called at any time (also
 * while {@code start()} waits for caches, which it then interrupts) and leaves no thread of the manager's behind.
 * Thread-safe.
 */
public final class Manager implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Manager.class);

    /**
     * A health or readiness check: returns normally when healthy, throws when not (the exception's message is the
     * reason shown on the probe endpoint). Called on every probe; must return quickly.
     */
    @FunctionalInterface
    public interface HealthCheck {
        void check() throws Exception;
    }

    private enum State {
        NEW,
        STARTING,
        RUNNING,
        CLOSED
    }

    private final KubernetesClient client;
    private final SharedInformerFactory informers;
    private final MeterRegistry meterRegistry;
    private final PrometheusMeterRegistry prometheus;
    private final Clock clock;
    private final String namespace;
    private final Duration cacheSyncTimeout;
    private final Duration gracefulShutdownTimeout;
    private final InetAddress bindAddress;
    private final int metricsPort;
    private final int probePort;

    /** Behind every {@link #eventRecorder}; its writer thread starts with the first recorder. */
    private final EventBroadcaster events;

    private final ControllerClient controllerClient;
    /** Whether an event recorder was asked for: then {@link #rbac} grants writing events. */
    private volatile boolean eventsUsed;

    private final RunnableGroup others;
    private final RunnableGroup leaderRunnables;
    private final HealthChecks readiness = new HealthChecks("readyz");
    private final HealthChecks liveness = new HealthChecks("healthz");
    private final RbacDenials denials;
    /** The informers that got the RBAC-aware watch error handler (or could not: started elsewhere). */
    private final Set<InformerKey> handled = ConcurrentHashMap.newKeySet();

    /** Null without leader election. */
    private final LeaderElector elector;
    /** Null without leader election. */
    private final LeaderElectionConfig election;
    /** How long leader runnables may take to stop when the lease is lost: they must be done before a takeover. */
    private final Duration lossStopTimeout;

    /** 0 until {@link #close()}; then the nanoTime by which the graceful shutdown must be done. */
    private volatile long closeDeadline;

    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by {@code lock}. */
    private State state = State.NEW;
    /** Guarded by {@code lock}: the thread in {@link #start()} while it waits for caches. */
    private Thread starter;
    /** Guarded by {@code lock}. */
    private HttpEndpoint metricsServer;
    /** Guarded by {@code lock}. */
    private HttpEndpoint probeServer;

    private final CountDownLatch terminated = new CountDownLatch(1);

    /** The names of this manager's controllers: unique, as they label metrics and logs. */
    private final Set<String> controllerNames = ConcurrentHashMap.newKeySet();

    private Manager(Builder b) {
        this.client = b.client;
        this.clock = b.clock != null ? b.clock : b.client.clock();
        if (b.meterRegistry == null) {
            this.prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            this.meterRegistry = prometheus;
        } else if (b.meterRegistry instanceof PrometheusMeterRegistry p) {
            this.prometheus = p;
            this.meterRegistry = p;
        } else {
            // /metrics needs Prometheus text: the user's registry and a Prometheus one, both fed by every meter.
            this.prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            CompositeMeterRegistry composite = new CompositeMeterRegistry();
            composite.add(b.meterRegistry);
            composite.add(prometheus);
            this.meterRegistry = composite;
        }
        this.namespace = b.namespace;
        SharedInformerFactory.Builder factory = SharedInformerFactory.builder(client)
                .clock(clock)
                .meterRegistry(meterRegistry)
                // managedFields skipped while parsing: the cache Transforms.stripManagedFields() would leave, without
                // paying to decode them, and with no transform in the informers' keys
                .decoding(
                        b.keepManagedFields
                                ? Decoding.compact()
                                : Decoding.compact().withoutManagedFields());
        if (b.namespace != null) {
            factory.namespace(b.namespace);
        }
        this.informers = factory.build();
        this.cacheSyncTimeout = b.cacheSyncTimeout;
        this.gracefulShutdownTimeout = b.gracefulShutdownTimeout;
        this.bindAddress = b.bindAddress;
        this.metricsPort = b.metricsPort;
        this.probePort = b.probePort;
        this.events = new EventBroadcaster(client, clock, meterRegistry);
        this.controllerClient = new CachingControllerClient(
                client,
                informers,
                b.namespace,
                clock,
                cacheSyncTimeout,
                b.failOnMissingInformer,
                b.readYourOwnWrites ? b.readYourOwnWritesTimeout : null);
        this.others = new RunnableGroup("non-leader", clock);
        this.leaderRunnables = new RunnableGroup("leader", clock);
        this.denials = new RbacDenials(clock);
        if (b.leaderElection != null) {
            this.election = b.leaderElection.clock().isPresent()
                    ? b.leaderElection
                    : LeaderElectionConfig.builder(b.leaderElection.leaseName(), b.leaderElection.namespace())
                            .identity(b.leaderElection.identity())
                            .leaseDuration(b.leaderElection.leaseDuration())
                            .renewDeadline(b.leaderElection.renewDeadline())
                            .retryPeriod(b.leaderElection.retryPeriod())
                            .releaseOnCancel(b.leaderElection.releaseOnCancel())
                            .clock(clock)
                            .build();
            this.elector = LeaderElector.builder(client, election)
                    .meterRegistry(meterRegistry)
                    .callbacks(new LeaderCallbacks() {
                        @Override
                        public void onStartedLeading() {
                            Manager.this.onStartedLeading();
                        }

                        @Override
                        public void onStoppedLeading() {
                            Manager.this.onStoppedLeading();
                        }

                        @Override
                        public void onNewLeader(String identity) {
                            log.info("manager: lease {} is held by {}", leaseDescription(), identity);
                        }
                    })
                    .build();
            Duration margin =
                    election.leaseDuration().minus(election.renewDeadline()).dividedBy(2);
            this.lossStopTimeout = margin.compareTo(gracefulShutdownTimeout) < 0 ? margin : gracefulShutdownTimeout;
        } else {
            this.election = null;
            this.elector = null;
            this.lossStopTimeout = Duration.ZERO;
        }
        readiness.add("informers", this::checkInformers);
        readiness.add("rbac", this::checkRbac);
        liveness.add("ping", () -> {});
        liveness.add("runnables", this::checkRunnables);
        if (elector != null) {
            liveness.add("leader-election", this::checkElector);
        }
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

    /**
     * Where the manager, its controllers, queues and informers record their metrics: the registry given to the
     * builder (a composite of it and the Prometheus registry behind {@code /metrics} when it was not a Prometheus
     * one), else a Prometheus registry.
     */
    public MeterRegistry meterRegistry() {
        return meterRegistry;
    }

    /** The clock behind every timer of the manager and its controllers. */
    public Clock clock() {
        return clock;
    }

    /** How long a start waits for caches to sync; controllers started later wait as long for theirs. */
    Duration cacheSyncTimeout() {
        return cacheSyncTimeout;
    }

    /** The namespace the manager's caches watch, or null for all namespaces. */
    public String namespace() {
        return namespace;
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
        EventRecorder recorder = events.recorderFor(component);
        eventsUsed = true;
        return recorder;
    }

    /**
     * Adds a runnable. One that {@link ManagedRunnable#needsLeaderElection() needs leader election} starts once the
     * manager leads (at once without leader election), the others after the caches synced; added to a running
     * manager, it starts at once if its group runs.
     */
    public void add(ManagedRunnable runnable) {
        Objects.requireNonNull(runnable, "runnable");
        boolean late;
        lock.lock();
        try {
            late = state == State.RUNNING;
        } finally {
            lock.unlock();
        }
        if (late) {
            // a controller added to a running manager: its informers start now (their sync is not awaited)
            ensureInformers(runnable);
            installWatchErrorHandlers();
            informers.start();
        }
        (runnable.needsLeaderElection() ? leaderRunnables : others).add(runnable);
    }

    /**
     * Creates a controller's informers in the factory before the caches start, so that they are started and waited
     * for with the others (a controller would otherwise ask for its owned and watched types' informers only when its
     * workers start, after the manager's cache sync).
     */
    private void ensureInformers(ManagedRunnable runnable) {
        if (!(runnable instanceof Controller c)) {
            return;
        }
        Set<Class<? extends HasMetadata>> types = new java.util.LinkedHashSet<>();
        types.add(c.forType());
        types.addAll(c.ownedTypes());
        types.addAll(c.watchedTypes());
        for (Class<? extends HasMetadata> type : types) {
            if (type != GenericKubernetesResource.class) {
                informers.informerFor(type);
            }
        }
    }

    /** Adds a check to the readiness probe {@code /readyz} (also served alone on {@code /readyz/<name>}). */
    public void addReadinessCheck(String name, HealthCheck check) {
        readiness.add(name, check);
    }

    /** Adds a check to the liveness probe {@code /healthz} (also served alone on {@code /healthz/<name>}). */
    public void addLivenessCheck(String name, HealthCheck check) {
        liveness.add(name, check);
    }

    /**
     * A check that passes only while this manager holds the leader lease (always without leader election). Not
     * part of readiness by default — a standby is ready — but a user may add it:
     * {@code manager.addReadinessCheck("leader", manager.leaderCheck())}.
     */
    public HealthCheck leaderCheck() {
        return () -> {
            if (!isLeader()) {
                throw new IllegalStateException("not the leader; lease " + leaseDescription() + " is held by "
                        + elector.leaderIdentity().orElse("nobody"));
            }
        };
    }

    /** Whether this manager runs its leader runnables: it holds the lease, or runs without leader election. */
    public boolean isLeader() {
        return elector == null ? isRunning() : elector.isLeader();
    }

    /** Whether {@link #start()} completed and {@link #close()} was not called. */
    public boolean isRunning() {
        lock.lock();
        try {
            return state == State.RUNNING;
        } finally {
            lock.unlock();
        }
    }

    /** Null when every readiness check passes; otherwise the failing checks and their reasons, one a line. */
    public String readinessProblems() {
        return readiness.failures();
    }

    /** Null when every liveness check passes; otherwise the failing checks and their reasons, one a line. */
    public String livenessProblems() {
        return liveness.failures();
    }

    /** The port {@code /metrics} is served on (the real one when 0 was configured); -1 when off or not started. */
    public int metricsPort() {
        lock.lock();
        try {
            return metricsServer == null ? -1 : metricsServer.port();
        } finally {
            lock.unlock();
        }
    }

    /** The port {@code /healthz} and {@code /readyz} are served on; -1 when off or not started. */
    public int healthProbePort() {
        lock.lock();
        try {
            return probeServer == null ? -1 : probeServer.port();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Starts the HTTP servers and the informers, waits for every cache to sync, starts the runnables that do not need
     * leader election, then campaigns for the lease (or starts the leader runnables at once without leader election).
     * Returns once that is done; the manager runs on its own threads until {@link #close()}.
     *
     * @throws IllegalStateException a cache did not sync within the cache sync timeout ({@code WaitForCacheSync timed
     *     out}, with the types), the manager was closed meanwhile, or it was started before; the manager is then
     *     closed
     * @throws java.io.UncheckedIOException a port cannot be bound
     */
    public void start() {
        lock.lock();
        try {
            if (state != State.NEW) {
                throw new IllegalStateException("the manager can be started once; it is " + state);
            }
            state = State.STARTING;
            starter = Thread.currentThread();
            if (metricsPort >= 0) {
                metricsServer = HttpEndpoint.start("metrics", bindAddress, metricsPort, Map.of("/metrics", metrics()));
            }
            if (probePort >= 0) {
                probeServer = HttpEndpoint.start(
                        "probes", bindAddress, probePort, Map.of("/readyz", readiness, "/healthz", liveness));
            }
        } catch (RuntimeException e) {
            lock.unlock();
            close();
            throw e;
        }
        lock.unlock();
        try {
            startCaches();
            lock.lock();
            try {
                if (state == State.CLOSED) {
                    throw new IllegalStateException("the manager was closed while it started");
                }
                starter = null;
            } finally {
                lock.unlock();
            }
            others.start();
            if (elector == null) {
                leaderRunnables.start();
            } else {
                elector.start();
            }
            boolean closedMeanwhile;
            lock.lock();
            try {
                closedMeanwhile = state == State.CLOSED;
                if (!closedMeanwhile) {
                    state = State.RUNNING;
                }
            } finally {
                lock.unlock();
            }
            if (closedMeanwhile) {
                // close() ran while the runnables started: stop what it may have missed (idempotent)
                if (elector != null) {
                    elector.stop();
                }
                leaderRunnables.stop(Duration.ZERO);
                others.stop(Duration.ZERO);
                throw new IllegalStateException("the manager was closed while it started");
            }
            log.info(
                    "manager started: {} informer(s) synced, metrics {}, probes {}{}",
                    informers.informers().size(),
                    metricsPort() < 0 ? "off" : "on port " + metricsPort(),
                    healthProbePort() < 0 ? "off" : "on port " + healthProbePort(),
                    elector == null
                            ? ""
                            : ", campaigning for lease " + leaseDescription() + " as " + elector.identity());
        } catch (RuntimeException e) {
            close();
            throw e;
        } finally {
            if (isClosed()) {
                Thread.interrupted(); // an interrupt from close() was meant for the cache wait only
            }
        }
    }

    private void startCaches() {
        others.runnables().forEach(this::ensureInformers);
        leaderRunnables.runnables().forEach(this::ensureInformers);
        installWatchErrorHandlers();
        informers.start();
        Map<InformerKey, Boolean> synced = informers.waitForCacheSync(cacheSyncTimeout);
        List<String> notSynced = synced.entrySet().stream()
                .filter(e -> !e.getValue())
                .map(e -> e.getKey().describe())
                .collect(Collectors.toList());
        if (!notSynced.isEmpty()) {
            if (isClosed()) {
                throw new IllegalStateException("the manager was closed while it waited for caches");
            }
            String types = String.join(", ", notSynced);
            String why = readiness.failures();
            log.error(
                    "WaitForCacheSync timed out after {}; not synced: {}{}",
                    cacheSyncTimeout,
                    types,
                    why == null ? "" : "; " + why.replace('\n', ' '));
            throw new IllegalStateException(
                    "WaitForCacheSync timed out after " + cacheSyncTimeout + "; not synced: " + types);
        }
    }

    /** Installs the RBAC-aware watch error handler on every informer not started yet. */
    private void installWatchErrorHandlers() {
        for (Map.Entry<InformerKey, SharedIndexInformer<?>> e :
                informers.informers().entrySet()) {
            if (!handled.add(e.getKey())) {
                continue;
            }
            try {
                e.getValue().setWatchErrorHandler(denials.handlerFor(e.getKey()));
            } catch (IllegalStateException alreadyStarted) {
                log.debug(
                        "manager: informer {} started before the manager; its RBAC refusals are not reported",
                        e.getValue().name());
            }
        }
    }

    private boolean isClosed() {
        lock.lock();
        try {
            return state == State.CLOSED;
        } finally {
            lock.unlock();
        }
    }

    private String leaseDescription() {
        return election == null ? "none" : election.namespace() + "/" + election.leaseName();
    }

    /** On the elector's callback thread: one transition at a time, in order. */
    private void onStartedLeading() {
        if (isClosed()) {
            return;
        }
        log.info("manager: leading lease {} as {}; starting leader runnables", leaseDescription(), elector.identity());
        leaderRunnables.start();
    }

    /** On the elector's callback thread; isLeader() is already false. */
    private void onStoppedLeading() {
        long deadline = closeDeadline;
        Duration budget = deadline != 0 ? left(deadline) : lossStopTimeout;
        log.warn(
                "manager: no longer leading lease {} as {}; stopping leader runnables within {}{}",
                leaseDescription(),
                elector.identity(),
                budget,
                deadline != 0 ? "" : "; caches stay warm and the manager campaigns again");
        leaderRunnables.stop(budget);
    }

    /**
     * Stops the manager: leader runnables (in-flight reconciles may finish within the graceful shutdown timeout),
     * releases the lease, stops the other runnables, the informers and the HTTP servers. Idempotent; returns when
     * every thread of the manager has ended. Leaves the {@link #kubernetesClient() client} open: the caller created it.
     */
    @Override
    public void close() {
        HttpEndpoint metricsToStop;
        HttpEndpoint probesToStop;
        lock.lock();
        try {
            if (state == State.CLOSED) {
                return;
            }
            state = State.CLOSED;
            if (starter != null && starter != Thread.currentThread()) {
                starter.interrupt(); // ends the wait for caches
            }
            metricsToStop = metricsServer;
            probesToStop = probeServer;
            metricsServer = null;
            probeServer = null;
        } finally {
            lock.unlock();
        }
        log.info("manager: stopping (graceful shutdown timeout {})", gracefulShutdownTimeout);
        long deadline = clock.nanoTime() + gracefulShutdownTimeout.toNanos();
        closeDeadline = deadline == 0 ? 1 : deadline;
        leaderRunnables.stop(left(deadline));
        if (elector != null) {
            try {
                elector.stop(); // after the leader runnables: the lease is released once nothing reconciles
            } catch (RuntimeException e) {
                log.warn("manager: the leader elector failed to stop", e);
            }
        }
        others.stop(left(deadline));
        events.close(left(deadline)); // events recorded while stopping still get their try
        informers.shutdown();
        if (metricsToStop != null) {
            metricsToStop.close();
        }
        if (probesToStop != null) {
            probesToStop.close();
        }
        terminated.countDown();
        log.info("manager: stopped");
    }

    private Duration left(long deadline) {
        return Duration.ofNanos(Math.max(0, deadline - clock.nanoTime()));
    }

    /** Waits until {@link #close()} has finished (a {@code main} that runs a manager until a shutdown hook closes it). */
    public void awaitTermination() throws InterruptedException {
        terminated.await();
    }

    /**
     * The RBAC objects this manager needs, as YAML: get/list/watch on every informer's resource; create, update,
     * patch and delete on the types its controllers own; update and patch on their reconciled types and their
     * {@code /status} (unless a controller is {@link ControllerBuilder#readOnly() read-only}); create and patch on events when an event recorder is used; get, create and update on leases in
     * the election namespace with leader election. A {@code Role} per namespace watched, a {@code ClusterRole} for
     * all namespaces and cluster-scoped resources; all named {@code roleName}. Call it once every controller is
     * built (before or after {@link #start()}).
     */
    public String rbac(String roleName) {
        Objects.requireNonNull(roleName, "roleName");
        RbacRules rules = new RbacRules();
        for (InformerKey key : informers.informers().keySet()) {
            rules.grant(key.namespace(), key.resource().group(), key.resource().resource(), "get", "list", "watch");
        }
        List<ManagedRunnable> all = new ArrayList<>(others.runnables());
        all.addAll(leaderRunnables.runnables());
        for (ManagedRunnable r : all) {
            if (r instanceof Controller c) {
                if (c.readOnly()) {
                    grant(rules, c.forType(), "get", "list", "watch");
                } else {
                    grant(rules, c.forType(), "get", "list", "watch", "update", "patch");
                    grantStatus(rules, c.forType());
                }
                for (Class<? extends HasMetadata> owned : c.ownedTypes()) {
                    grant(rules, owned, "get", "list", "watch", "create", "update", "patch", "delete");
                }
                for (Class<? extends HasMetadata> watched : c.watchedTypes()) {
                    grant(rules, watched, "get", "list", "watch");
                }
            }
        }
        if (eventsUsed) {
            // core/v1 Events, created and then patched (count, series) as client-go's recorder does
            rules.grant(namespace, "", "events", "create", "patch");
        }
        if (election != null) {
            rules.grant(election.namespace(), "coordination.k8s.io", "leases", "get", "create", "update");
        }
        String header = "# RBAC for a kubeloop manager, derived from its informers, controllers and leader election.\n"
                + "# Bind it to the manager's ServiceAccount (RoleBinding per Role, ClusterRoleBinding for a ClusterRole).\n";
        return header + rules.toYaml(roleName);
    }

    /** {@link #rbac(String)} named {@code kubeloop-manager}. */
    public String rbac() {
        return rbac("kubeloop-manager");
    }

    private void grant(RbacRules rules, Class<? extends HasMetadata> type, String... verbs) {
        if (type == GenericKubernetesResource.class) {
            return; // generic informers are granted by their informer keys
        }
        ResourceType rt = client.resources(type).type();
        rules.grant(rt.namespaced() ? namespace : null, rt.gvk().group(), rt.plural(), verbs);
    }

    private void grantStatus(RbacRules rules, Class<? extends HasMetadata> type) {
        if (type == GenericKubernetesResource.class) {
            return;
        }
        ResourceType rt = client.resources(type).type();
        if (rt.subresources().contains(ResourceType.STATUS)) {
            rules.grant(
                    rt.namespaced() ? namespace : null, rt.gvk().group(), rt.plural() + "/status", "update", "patch");
        }
    }

    private HttpHandler metrics() {
        return exchange -> {
            try (exchange) {
                if (!exchange.getRequestMethod().equals("GET")
                        && !exchange.getRequestMethod().equals("HEAD")) {
                    exchange.sendResponseHeaders(405, -1);
                    return;
                }
                byte[] body = prometheus.scrape().getBytes(java.nio.charset.StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
                boolean head = exchange.getRequestMethod().equals("HEAD");
                exchange.sendResponseHeaders(200, head ? -1 : body.length);
                if (!head) {
                    exchange.getResponseBody().write(body);
                }
            }
        };
    }

    private void checkInformers() {
        State s;
        lock.lock();
        try {
            s = state;
        } finally {
            lock.unlock();
        }
        if (s == State.NEW) {
            throw new IllegalStateException("the manager has not started");
        }
        if (s == State.CLOSED) {
            throw new IllegalStateException("the manager is stopped");
        }
        List<String> problems = new ArrayList<>();
        for (SharedIndexInformer<?> informer : informers.informers().values()) {
            InformerHealth h = informer.health();
            if (!h.synced() || h.state() != InformerHealth.State.WATCHING) {
                problems.add(informer.name() + ": " + (h.synced() ? "synced" : "not synced") + ", "
                        + h.state() + " since " + h.since()
                        + (h.lastError() == null ? "" : ", last error: " + h.lastError()));
            }
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException(String.join("\n", problems));
        }
    }

    private void checkRbac() {
        List<RbacDenials.Denial> current = denials.current(informers.informers());
        if (!current.isEmpty()) {
            throw new IllegalStateException(
                    current.stream().map(RbacDenials.Denial::describe).collect(Collectors.joining("\n")));
        }
    }

    private void checkElector() {
        LeaderElector.Status status = elector.status();
        if (isRunning() && !status.running()) {
            throw new IllegalStateException("the leader elector of lease " + leaseDescription() + " is not running");
        }
        Duration limit = election.renewDeadline().plus(election.retryPeriod());
        if (status.leader()
                && status.lastContact() != null
                && status.lastContact().plus(limit).isBefore(clock.now())) {
            throw new IllegalStateException("the leader elector claims lease " + leaseDescription()
                    + " but has not heard from the API server since " + status.lastContact() + " (renew deadline "
                    + election.renewDeadline() + "): wedged");
        }
    }

    private void checkRunnables() {
        List<String> problems = new ArrayList<>(others.problems());
        problems.addAll(leaderRunnables.problems());
        if (!problems.isEmpty()) {
            throw new IllegalStateException(String.join("\n", problems));
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
        private boolean keepManagedFields;
        private InetAddress bindAddress;
        private int metricsPort = 8080;
        private int probePort = 8081;
        private LeaderElectionConfig leaderElection;
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

        /**
         * Where to record metrics; default a Prometheus registry (served on {@code /metrics}). Another kind of registry
         * is combined with a Prometheus one, so that {@code /metrics} still serves every meter.
         */
        public Builder meterRegistry(MeterRegistry meterRegistry) {
            this.meterRegistry = Objects.requireNonNull(meterRegistry, "meterRegistry");
            return this;
        }

        /**
         * Watch and cache only this namespace (default: all namespaces). One namespace or all: to watch a few, run a
         * manager per namespace or watch all of them.
         */
        public Builder namespace(String namespace) {
            Objects.requireNonNull(namespace, "namespace");
            if (namespace.isBlank()) {
                throw new IllegalArgumentException("namespace is blank; leave it unset to watch all namespaces");
            }
            this.namespace = namespace;
            return this;
        }

        /** How long {@link #start()} waits for the caches (default 2 min, as controller-runtime). */
        public Builder cacheSyncTimeout(Duration timeout) {
            this.cacheSyncTimeout = positive(timeout, "cacheSyncTimeout");
            return this;
        }

        /** How long {@link #close()} lets in-flight reconciles finish (default 30 s, as controller-runtime). */
        public Builder gracefulShutdownTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative()) {
                throw new IllegalArgumentException("gracefulShutdownTimeout must not be negative: " + timeout);
            }
            this.gracefulShutdownTimeout = timeout;
            return this;
        }

        /**
         * Keep {@code metadata.managedFields} in cached objects (default false: the caches drop them, often a third of
         * an object, which reconcilers reading from the cache almost never need).
         */
        public Builder keepManagedFields(boolean keep) {
            this.keepManagedFields = keep;
            return this;
        }

        /** The address the metrics and probe servers listen on (default every interface, as Go's ":8080"). */
        public Builder bindAddress(InetAddress address) {
            this.bindAddress = Objects.requireNonNull(address, "address");
            return this;
        }

        /** The port of {@code /metrics} (default 8080); 0 picks a free port, a negative value turns it off. */
        public Builder metricsPort(int port) {
            this.metricsPort = port(port, "metricsPort");
            return this;
        }

        /** The port of {@code /healthz} and {@code /readyz} (default 8081); 0 picks a free port, negative turns it off. */
        public Builder healthProbePort(int port) {
            this.probePort = port(port, "healthProbePort");
            return this;
        }

        /**
         * Run the runnables that {@link ManagedRunnable#needsLeaderElection() need leader election} (controllers)
         * only while this manager holds the {@code coordination.k8s.io/v1} Lease {@code leaseName} in {@code namespace},
         * with client-go's defaults (lease 15 s, renew deadline 10 s, retry 2 s) and identity (pod name or host plus a
         * random suffix), on the manager's clock.
         */
        public Builder leaderElection(String leaseName, String namespace) {
            return leaderElection(
                    LeaderElectionConfig.builder(leaseName, namespace).build());
        }

        /** {@link #leaderElection(String, String)} with other settings (identity, durations, release on cancel). */
        public Builder leaderElection(LeaderElectionConfig config) {
            this.leaderElection = Objects.requireNonNull(config, "config");
            return this;
        }

        private static int port(int port, String what) {
            if (port > 65535) {
                throw new IllegalArgumentException(
                        what + " " + port + " is not a port (0..65535; 0 = any, negative = off)");
            }
            return port < 0 ? -1 : port;
        }

        private static Duration positive(Duration d, String what) {
            Objects.requireNonNull(d, what);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(what + " must be positive: " + d);
            }
            return d;
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

    @Override
    public String toString() {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("namespace", namespace == null ? "*" : namespace);
        d.put("lease", leaseDescription());
        return "Manager" + d;
    }
}
