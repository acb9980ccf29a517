package io.kubeloop.controller;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kubeloop.controller.internal.controller.EventSource;
import io.kubeloop.controller.internal.controller.ReconcileController;
import io.kubeloop.model.ResourceType;
import io.kubeloop.workqueue.RateLimiter;
import io.kubeloop.workqueue.RateLimiters;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Builds a {@link Controller} and registers it with its {@link Manager} (controller-runtime's {@code builder}). Get
 * one from {@link Manager#newControllerFor(Class)}; {@link #complete} ends it:
 *
 * <pre>{@code
 * Controller c = manager.newControllerFor(ReplicaSet.class)   // events of ReplicaSets enqueue the ReplicaSet
 *         .owns(Pod.class)                                    // events of Pods enqueue their controlling ReplicaSet
 *         .watches(ConfigMap.class, cm -> List.of())          // events of ConfigMaps enqueue what the mapper says
 *         .withEventFilter(EventFilter.generationChanged())   // only spec changes of ReplicaSets
 *         .workers(2)
 *         .complete(request -> Result.done());
 * }</pre>
 *
 * <p>Defaults, as controller-runtime: name = the kind in lower case ({@code replicaset}); 1 worker; the per-key
 * exponential back-off from 5 ms to 1000 s ({@link RateLimiters#exponentialFailure}; the priority queue's default,
 * with no overall token bucket); unlimited retries; no reconcile timeout. The informers come from the manager's shared
 * factory: one per type however many controllers watch it.
 *
 * <p>Not thread-safe; use it on one thread, once.
 *
 * @param <T> the type the controller reconciles
 */
public final class ControllerBuilder<T extends HasMetadata> {

    /** A controller name is a metric label, a log field and a thread-name prefix. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}");

    private final Manager manager;
    private final Class<T> forType;
    private final ResourceType forResource;
    private EventFilter<? super T> forFilter;
    private final List<EventSource<?>> sources = new ArrayList<>();
    private final Set<Class<? extends HasMetadata>> owned = new LinkedHashSet<>();
    private String name;
    private int workers = 1;
    private RateLimiter<Request> rateLimiter;
    private int maxRetries = -1;
    private Duration reconcileTimeout;
    private boolean readOnly;
    private boolean completed;

    ControllerBuilder(Manager manager, Class<T> forType) {
        this.manager = Objects.requireNonNull(manager, "manager");
        this.forType = Objects.requireNonNull(forType, "forType");
        try {
            this.forResource = manager.kubernetesClient().resources(forType).type();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(
                    "newControllerFor(" + forType.getName() + "): not a resource type kubeloop knows (a built-in model "
                            + "class, or a custom resource class with @Group and @Version): " + e.getMessage(),
                    e);
        }
    }

    /**
     * Also reconcile the controlling owner of every object of {@code type}: an event of such an object enqueues its
     * owner reference with {@code controller: true} when that owner is of this controller's kind and API group
     * (controller-runtime's {@code Owns}, with {@code OnlyControllerOwner}). A namespaced owner is looked for in the
     * object's namespace; a cluster-scoped one with namespace "".
     */
    public ControllerBuilder<T> owns(Class<? extends HasMetadata> type) {
        return owns(type, null);
    }

    /** {@link #owns(Class)}, with only the events {@code filter} passes. */
    public <O extends HasMetadata> ControllerBuilder<T> owns(Class<O> type, EventFilter<? super O> filter) {
        requireOpen();
        Objects.requireNonNull(type, "type");
        sources.add(EventSource.controllerOwner(
                type, filter, forResource.group(), forResource.kind(), forResource.namespaced()));
        owned.add(type);
        return this;
    }

    /**
     * Also watch {@code type}: an event of such an object enqueues the requests {@code mapper} returns (for an
     * update, those of the old and of the new object, each once) — controller-runtime's
     * {@code Watches(obj, EnqueueRequestsFromMapFunc(fn))}.
     */
    public <S extends HasMetadata> ControllerBuilder<T> watches(Class<S> type, RequestMapper<? super S> mapper) {
        return watches(type, mapper, null);
    }

    /** {@link #watches(Class, RequestMapper)}, with only the events {@code filter} passes. */
    public <S extends HasMetadata> ControllerBuilder<T> watches(
            Class<S> type, RequestMapper<? super S> mapper, EventFilter<? super S> filter) {
        requireOpen();
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(mapper, "mapper");
        sources.add(EventSource.mapped(type, filter, mapper));
        return this;
    }

    /**
     * Also watch {@code type}, with {@code handler} deciding what each event enqueues (controller-runtime's
     * {@code Watches(obj, handler)} with a {@code TypedEventHandler}): for handlers that must know the kind of event
     * or keep bookkeeping in step with the cache before enqueueing (expectations), or enqueue after a delay.
     */
    public <S extends HasMetadata> ControllerBuilder<T> watches(Class<S> type, EventHandler<? super S> handler) {
        return watches(type, handler, null);
    }

    /** {@link #watches(Class, EventHandler)}, with only the events {@code filter} passes reaching the handler. */
    public <S extends HasMetadata> ControllerBuilder<T> watches(
            Class<S> type, EventHandler<? super S> handler, EventFilter<? super S> filter) {
        requireOpen();
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(handler, "handler");
        sources.add(EventSource.handled(type, filter, handler));
        return this;
    }

    /**
     * Only the events of the controller's own type that {@code filter} passes are enqueued. Unlike controller-runtime's
     * {@code WithEventFilter}, it applies to the {@code newControllerFor} type only: give {@link #owns(Class,
     * EventFilter)} and {@link #watches(Class, RequestMapper, EventFilter)} their own. Several calls combine with
     * {@link EventFilter#and}.
     */
    public ControllerBuilder<T> withEventFilter(EventFilter<? super T> filter) {
        requireOpen();
        Objects.requireNonNull(filter, "filter");
        forFilter = forFilter == null ? filter : EventFilter.<T>and(forFilter, filter);
        return this;
    }

    /**
     * The controller's name (default: the kind in lower case): unique in the manager, 1–128 letters, digits,
     * {@code _}, {@code -} and {@code .}, not starting with {@code -} or {@code .}. It labels the metrics
     * ({@code controller}, and the queue's {@code name}), the logs (MDC {@code controller}) and the worker threads.
     */
    public ControllerBuilder<T> named(String name) {
        requireOpen();
        this.name = requireValidName(Objects.requireNonNull(name, "name"));
        return this;
    }

    /**
     * How many reconciles may run at once, each on its own virtual thread (default 1, as controller-runtime). A key
     * is never reconciled by two workers at once. 2–4 suit a reconciler that mostly writes to the API server (more
     * only add write pressure); a reconciler that computes or waits on other systems may use more.
     */
    public ControllerBuilder<T> workers(int workers) {
        requireOpen();
        if (workers < 1) {
            throw new IllegalArgumentException("a controller needs at least 1 worker, was " + workers);
        }
        this.workers = workers;
        return this;
    }

    /** The back-off of failed and {@link Result#requeue() requeued} keys (see {@link RateLimiters}). */
    public ControllerBuilder<T> rateLimiter(RateLimiter<Request> rateLimiter) {
        requireOpen();
        this.rateLimiter = Objects.requireNonNull(rateLimiter, "rateLimiter");
        return this;
    }

    /**
     * Gives up on a key after {@code maxRetries} retries: when the reconcile of a key has failed {@code maxRetries + 1}
     * times in a row, the key is dropped (its back-off forgotten) with an ERROR log, a Warning Event
     * {@code ReconcileRetriesExhausted} on the object and {@code controller_runtime_reconcile_dropped_total}; its next
     * event starts afresh. Failures include timeouts and conflicts, not {@link Result#requeue()}. Default: no limit
     * (controller-runtime has none); 5–10 suit most controllers.
     */
    public ControllerBuilder<T> maxRetries(int maxRetries) {
        requireOpen();
        if (maxRetries < 0) {
            throw new IllegalArgumentException("maxRetries must be 0 or more, was " + maxRetries);
        }
        this.maxRetries = maxRetries;
        return this;
    }

    /**
     * Interrupts a reconcile that runs longer than {@code timeout} (on the manager's clock): the worker's thread is
     * interrupted, the reconcile counts in {@code controller_runtime_reconcile_timeouts_total} and the key is retried
     * with the back-off. The reconciler must let the interrupt end its blocking calls (the client's calls do).
     * Default: none.
     */
    public ControllerBuilder<T> reconcileTimeout(Duration timeout) {
        requireOpen();
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("a reconcile timeout must be positive, was " + timeout);
        }
        this.reconcileTimeout = timeout;
        return this;
    }

    /**
     * Declares that the reconciler never writes objects of the reconciled type (an auditor, a reporter): the
     * manager's {@link Manager#rbac(String) RBAC derivation} then grants only get, list and watch on it, and nothing
     * on its {@code /status}. It changes nothing else; owned types keep their write grants.
     */
    public ControllerBuilder<T> readOnly() {
        requireOpen();
        this.readOnly = true;
        return this;
    }

    /**
     * Builds the controller with {@code reconciler}, registers its informer handlers and adds it to the manager,
     * which starts it after the caches have synced.
     *
     * @throws IllegalStateException {@code complete} was already called on this builder
     * @throws IllegalArgumentException the manager has a controller of this name already
     */
    public Controller complete(Reconciler<T> reconciler) {
        requireOpen();
        Objects.requireNonNull(reconciler, "reconciler");
        String n = name != null ? name : defaultName();
        if (!manager.claimControllerName(n)) {
            throw new IllegalArgumentException("the manager already has a controller named \"" + n + "\""
                    + (name == null ? " (the default name, from the kind)" : "")
                    + "; give this one another with named(...)");
        }
        completed = true;
        List<EventSource<?>> all = new ArrayList<>();
        all.add(EventSource.forObject(forType, forFilter));
        all.addAll(sources);
        RateLimiter<Request> limiter = rateLimiter != null
                ? rateLimiter
                : RateLimiters.exponentialFailure(
                        RateLimiters.DEFAULT_CONTROLLER_BASE_DELAY, RateLimiters.DEFAULT_CONTROLLER_MAX_DELAY);
        ReconcileController<T> controller = new ReconcileController<>(
                n,
                forType,
                all,
                owned,
                readOnly,
                workers,
                limiter,
                maxRetries,
                reconcileTimeout,
                reconciler,
                manager.informerFactory(),
                manager.clock(),
                manager.cacheSyncTimeout(),
                manager.meterRegistry(),
                // the recorder is made at the first drop: a controller that never gives up starts no event writer
                (regarding, reason, message) ->
                        manager.eventRecorder(n).event(regarding, EventRecorder.WARNING, reason, message));
        manager.add(controller);
        return controller;
    }

    private String defaultName() {
        String n = forResource.kind().toLowerCase(Locale.ROOT);
        return requireValidName(n);
    }

    private static String requireValidName(String name) {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                    "invalid controller name \"" + name + "\": use 1 to 128 letters, digits, "
                            + "'_', '-' and '.', starting with a letter, a digit or '_' (the name is a metric label, a log "
                            + "field and a thread name)");
        }
        return name;
    }

    private void requireOpen() {
        if (completed) {
            throw new IllegalStateException("complete() was already called on this builder; a builder makes one "
                    + "controller (call manager.newControllerFor(...) again for another)");
        }
    }
}
