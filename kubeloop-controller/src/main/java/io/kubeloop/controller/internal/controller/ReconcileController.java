package io.kubeloop.controller.internal.controller;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kubeloop.client.errors.ConflictException;
import io.kubeloop.client.errors.KubernetesApiException;
import io.kubeloop.client.watch.WatchException;
import io.kubeloop.clock.Clock;
import io.kubeloop.controller.Controller;
import io.kubeloop.controller.ManagedRunnable;
import io.kubeloop.controller.Reconciler;
import io.kubeloop.controller.Request;
import io.kubeloop.controller.Result;
import io.kubeloop.controller.TerminalException;
import io.kubeloop.informer.ResourceEventHandlerRegistration;
import io.kubeloop.informer.SharedIndexInformer;
import io.kubeloop.informer.SharedInformerFactory;
import io.kubeloop.workqueue.PriorityWorkQueue;
import io.kubeloop.workqueue.RateLimiter;
import io.kubeloop.workqueue.WorkQueue;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * A controller: the watches' informer handlers feed one {@link RequestQueue}; {@code workers} virtual threads named
 * {@code <name>-worker-<i>} take requests from it and call the reconciler (controller-runtime's
 * {@code internal/controller}).
 *
 * <p>What a reconcile's outcome does (controller-runtime's {@code reconcileHandler}, §2.1 of the reference):
 * <ul>
 *   <li>{@link Result#done()}: forget the key's back-off; {@code result="success"}.</li>
 *   <li>{@link Result#requeueAfter}: forget, then add after exactly that delay; {@code result="requeue_after"}.</li>
 *   <li>{@link Result#requeue()}: add rate-limited (the back-off keeps growing); {@code result="requeue"}.</li>
 *   <li>an exception: add rate-limited, ERROR {@code Reconcile error, requeuing}; {@code result="error"}, errors total.
 *       An unexpected {@code RuntimeException} or {@code Error} (not an API error) also counts as a panic. The worker
 *       never dies of it.</li>
 *   <li>a {@link TerminalException} anywhere in the cause chain: no requeue and no forget; errors and terminal errors
 *       total.</li>
 *   <li>a 409 {@link ConflictException} anywhere in the cause chain: add rate-limited, INFO; counted in the conflicts
 *       total and as {@code result="requeue"}, not as an error (a stale cache read, retried on fresh data).</li>
 *   <li>the reconcile timeout fired: the worker was interrupted; timeouts and errors total, add rate-limited.</li>
 *   <li>with {@code maxRetries = n}, the failure after n consecutive failed retries drops the key instead (forget,
 *       ERROR, a Warning Event on the object, dropped total); the key's next event starts afresh.</li>
 *   <li>a {@link VirtualMachineError} other than {@link StackOverflowError} (out of memory, an internal JVM error) is
 *       handled as a panic (counted, logged, requeued, done) and then rethrown: that worker thread ends through its
 *       uncaught exception handler and a new one takes its place, so the JVM's own handling of such errors runs.</li>
 * </ul>
 *
 * <p>Life cycle: the handlers are registered when the controller is built, so the events of the informers' initial
 * lists wait in the first queue until the manager starts the workers. {@link #stop} removes the handlers, shuts the
 * queue down (queued keys are not taken any more), lets reconciles in flight finish within the timeout and then
 * interrupts them. {@link #start} after a stop makes a fresh queue and registers the handlers again: the informers
 * replay their caches to them as initial-list adds, so every cached object is reconciled again, as controller-runtime
 * does after a re-election.
 */
public final class ReconcileController<T extends HasMetadata> implements Controller, ManagedRunnable {

    private static final Logger log = LoggerFactory.getLogger(Controller.class);

    /**
     * How long {@link #start} waits for caches that have not synced (controller-runtime's CacheSyncTimeout); under a
     * manager they have synced before it starts controllers, so this bounds only a controller added later.
     */
    private final String name;

    private final Class<T> forType;
    /** How long a start waits for the watched caches (the manager's cache sync timeout). */
    private final Duration cacheSyncTimeout;

    private final Set<Class<? extends HasMetadata>> ownedTypes;
    private final Set<Class<? extends HasMetadata>> watchedTypes;
    private final boolean readOnly;
    private final List<EventSource<?>> sources;
    private final int workers;
    private final RateLimiter<Request> rateLimiter;
    /** -1: no limit. */
    private final int maxRetries;
    /** Null: no timeout. */
    private final Duration reconcileTimeout;

    private final Reconciler<T> reconciler;
    private final SharedInformerFactory informers;
    private final SharedIndexInformer<T> forInformer;
    private final Clock clock;
    private final MeterRegistry registry;
    private final DroppedKeyEvents events;
    private final ControllerMetrics metrics;
    private final AtomicInteger activeWorkers = new AtomicInteger();

    /** Consecutive failures per key, for {@code maxRetries}; an entry is removed by any other outcome. */
    private final Map<Request, Integer> failures = new ConcurrentHashMap<>();

    /** Guards the life cycle: {@code run} changes and the worker sets of every run. */
    private final ReentrantLock lock = new ReentrantLock();

    /** Signalled (under {@code lock}) when a worker of any run ends. */
    private final Condition exited = lock.newCondition();

    /**
     * The current run: its queue, handler registrations and workers. Created at build (so the initial lists wait in
     * its queue) and by a start after a stop; null once stopped. A run is never reused: a stop that races with a
     * start only ever shuts down and waits for its own run.
     */
    private volatile Run run;

    /** One run of the controller, between a start and a stop. */
    private static final class Run {
        final RequestQueue queue;
        /** Guarded by the controller's lock. */
        final List<ResourceEventHandlerRegistration> registrations = new ArrayList<>();
        /** Guarded by the controller's lock: live worker threads. */
        final Set<Thread> workers = new LinkedHashSet<>();
        /** Guarded by the controller's lock. */
        boolean started;

        Run(RequestQueue queue) {
            this.queue = queue;
        }
    }

    public ReconcileController(
            String name,
            Class<T> forType,
            List<EventSource<?>> sources,
            Set<Class<? extends HasMetadata>> ownedTypes,
            boolean readOnly,
            int workers,
            RateLimiter<Request> rateLimiter,
            int maxRetries,
            Duration reconcileTimeout,
            Reconciler<T> reconciler,
            SharedInformerFactory informers,
            Clock clock,
            Duration cacheSyncTimeout,
            MeterRegistry registry,
            DroppedKeyEvents events) {
        this.cacheSyncTimeout = Objects.requireNonNull(cacheSyncTimeout, "cacheSyncTimeout");
        this.name = Objects.requireNonNull(name, "name");
        this.forType = Objects.requireNonNull(forType, "forType");
        this.sources = List.copyOf(sources);
        this.ownedTypes = Set.copyOf(ownedTypes);
        this.readOnly = readOnly;
        Set<Class<? extends HasMetadata>> watched = new LinkedHashSet<>();
        sources.forEach(s -> watched.add(s.type()));
        this.watchedTypes = Set.copyOf(watched);
        this.workers = workers;
        this.rateLimiter = Objects.requireNonNull(rateLimiter, "rateLimiter");
        this.maxRetries = maxRetries;
        this.reconcileTimeout = reconcileTimeout;
        this.reconciler = Objects.requireNonNull(reconciler, "reconciler");
        this.informers = informers;
        this.forInformer = informers.informerFor(forType);
        this.clock = clock;
        this.registry = registry;
        this.events = events;
        this.metrics = new ControllerMetrics(registry, name, workers, activeWorkers, () -> {
            Run r = run;
            return r == null ? 0.0 : r.queue.oldestWaitingSeconds();
        });
        lock.lock();
        try {
            run = newRun();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Class<? extends HasMetadata> forType() {
        return forType;
    }

    @Override
    public Set<Class<? extends HasMetadata>> ownedTypes() {
        return ownedTypes;
    }

    @Override
    public Set<Class<? extends HasMetadata>> watchedTypes() {
        return watchedTypes;
    }

    @Override
    public boolean readOnly() {
        return readOnly;
    }

    @Override
    public int workers() {
        return workers;
    }

    @Override
    public int queueDepth() {
        Run r = run;
        return r == null || r.queue.shuttingDown() ? 0 : r.queue.len();
    }

    /** A fresh queue with one handler per watch feeding it. Called with {@code lock} held. */
    private Run newRun() {
        PriorityWorkQueue<Request> q = WorkQueue.<Request>builder()
                .name(name)
                .clock(clock)
                .meterRegistry(registry)
                .rateLimiter(rateLimiter)
                .buildPriority();
        Run r = new Run(new RequestQueue(q, clock));
        for (EventSource<?> source : sources) {
            r.registrations.add(registerOne(source, r.queue));
        }
        return r;
    }

    private <S extends HasMetadata> ResourceEventHandlerRegistration registerOne(
            EventSource<S> source, RequestQueue target) {
        SharedIndexInformer<S> informer = informers.informerFor(source.type());
        return informer.addEventHandler(source.handler(() -> target, name, log));
    }

    /**
     * Starts the workers (after a stop: with a fresh queue and the handlers registered again, which replays the
     * caches). Informers this controller watches that are not started yet (a controller added to a running manager)
     * are started, and the workers wait for their caches, as controller-runtime's sources do.
     *
     * @throws IllegalStateException a watched cache did not sync within the manager's cache sync timeout
     */
    @Override
    public void start() {
        informers.start();
        List<String> notSynced = new ArrayList<>();
        List<java.util.function.BooleanSupplier> synced = new ArrayList<>();
        for (Class<? extends HasMetadata> type : watchedTypes) {
            SharedIndexInformer<? extends HasMetadata> informer = informers.informerFor(type);
            synced.add(informer::hasSynced);
        }
        if (!synced.stream().allMatch(java.util.function.BooleanSupplier::getAsBoolean)
                && !SharedIndexInformer.waitForCacheSync(
                        clock, cacheSyncTimeout, synced.toArray(java.util.function.BooleanSupplier[]::new))) {
            for (Class<? extends HasMetadata> type : watchedTypes) {
                if (!informers.informerFor(type).hasSynced()) {
                    notSynced.add(informers.informerFor(type).name());
                }
            }
            log.error(
                    "controller {}: WaitForCacheSync timed out after {}; not synced: {}",
                    name,
                    cacheSyncTimeout,
                    notSynced);
            throw new IllegalStateException("controller " + name + ": WaitForCacheSync timed out after "
                    + cacheSyncTimeout + "; not synced: " + notSynced);
        }
        lock.lock();
        try {
            Run r = run;
            if (r != null && r.started) {
                return;
            }
            if (r == null) {
                r = newRun();
                run = r;
            }
            r.started = true;
            for (int i = 0; i < workers; i++) {
                startWorker(r, i);
            }
            log.info("controller {}: started {} worker(s) for {}", name, workers, forType.getSimpleName());
        } finally {
            lock.unlock();
        }
    }

    /** Called with {@code lock} held. */
    private void startWorker(Run r, int index) {
        Thread t = Thread.ofVirtual().name(name + "-worker-" + index).unstarted(() -> runWorker(r, index));
        r.workers.add(t);
        t.start();
    }

    @Override
    public void stop(Duration timeout) throws InterruptedException {
        Objects.requireNonNull(timeout, "timeout");
        List<Thread> stuck;
        lock.lock();
        try {
            Run r = run;
            if (r == null) {
                return;
            }
            // The queue shuts down first: once queueDepth() reads 0, a worker finishing its reconcile takes no
            // further key (it sees the queue shutting down), so "stopped taking keys" is observable and true.
            r.queue.shutDown();
            r.registrations.forEach(ResourceEventHandlerRegistration::remove);
            r.registrations.clear();
            run = null;
            long deadline = clock.nanoTime() + saturatedNanos(timeout);
            while (!r.workers.isEmpty() && deadline - clock.nanoTime() > 0) {
                clock.awaitUntil(lock, exited, deadline);
            }
            stuck = List.copyOf(r.workers);
        } finally {
            lock.unlock();
        }
        if (!stuck.isEmpty()) {
            log.warn(
                    "controller {}: {} reconcile(s) still running after the stop timeout of {}; interrupting {}",
                    name,
                    stuck.size(),
                    timeout,
                    stuck.stream().map(Thread::getName).toList());
            stuck.forEach(Thread::interrupt);
        } else {
            log.info("controller {}: stopped", name);
        }
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE / 2;
        }
    }

    private void runWorker(Run r, int index) {
        RequestQueue q = r.queue;
        try {
            while (true) {
                RequestQueue.Taken taken;
                try {
                    taken = q.get();
                } catch (InterruptedException e) {
                    return;
                }
                if (taken == null) {
                    return;
                }
                if (q.shuttingDown()) {
                    // stopping: keys still queued are not taken any more (the next run lists them again)
                    q.done(taken.request());
                    return;
                }
                try {
                    reconcileHandler(q, taken);
                } catch (VirtualMachineError fatal) {
                    lock.lock();
                    try {
                        if (run == r) {
                            startWorker(r, index);
                        }
                    } finally {
                        lock.unlock();
                    }
                    throw fatal;
                } finally {
                    q.done(taken.request());
                }
            }
        } finally {
            lock.lock();
            try {
                r.workers.remove(Thread.currentThread());
                exited.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    /** One reconcile of {@code request} and what its outcome does to the queue; see the type's Javadoc. */
    private void reconcileHandler(RequestQueue q, RequestQueue.Taken taken) {
        Request request = taken.request();
        MDC.put("controller", name);
        MDC.put("namespace", request.namespace());
        MDC.put("name", request.name());
        MDC.put("reconcileID", UUID.randomUUID().toString());
        activeWorkers.incrementAndGet();
        Throwable fatal = null;
        try {
            log.debug("Reconcile started");
            long start = clock.nanoTime();
            Deadline deadline = reconcileTimeout != null ? new Deadline(Thread.currentThread()) : null;
            if (deadline != null) {
                deadline.scheduled = clock.schedule(deadline, reconcileTimeout);
            }
            Result result = null;
            Throwable failure = null;
            try {
                result = reconciler.reconcile(request);
                if (result == null) {
                    failure = new NullPointerException(
                            "the reconciler returned null; return Result.done() when there is nothing more to do");
                }
            } catch (Throwable t) {
                failure = t;
            }
            boolean timedOut = deadline != null && deadline.finish();
            Duration elapsed = Duration.ofNanos(clock.nanoTime() - start);
            metrics.observe(elapsed);
            handleOutcome(q, taken, result, failure, timedOut, new Took(elapsed));
            if (failure instanceof VirtualMachineError vme && !(failure instanceof StackOverflowError)) {
                fatal = vme;
            }
        } finally {
            activeWorkers.decrementAndGet();
            MDC.remove("controller");
            MDC.remove("namespace");
            MDC.remove("name");
            MDC.remove("reconcileID");
        }
        if (fatal instanceof VirtualMachineError vme) {
            throw vme;
        }
    }

    private void handleOutcome(
            RequestQueue q, RequestQueue.Taken taken, Result result, Throwable failure, boolean timedOut, Took took) {
        Request request = taken.request();
        if (failure == null && !timedOut) {
            failures.remove(request);
            if (!result.requeueDelay().isZero()) {
                metrics.requeueAfter.increment();
                q.forget(request);
                q.addAfter(taken, result.requeueDelay());
                log.debug("Reconcile done in {}, requeue after {}", took, result.requeueDelay());
            } else if (result.rateLimitedRequeue()) {
                metrics.requeue.increment();
                q.addRateLimited(taken);
                log.debug("Reconcile done in {}, requeue with back-off", took);
            } else {
                metrics.success.increment();
                q.forget(request);
                log.debug("Reconcile succeeded in {}", took);
            }
            return;
        }
        if (failure instanceof InterruptedException && q.shuttingDown() && !timedOut) {
            // the stop timeout interrupted it: the next run lists the key again
            metrics.error.increment();
            metrics.errors.increment();
            failures.remove(request);
            log.info("Reconcile of {} interrupted by the controller's stop after {}", request, took);
            Thread.currentThread().interrupt();
            return;
        }
        if (failure != null && TerminalException.isTerminal(failure)) {
            // no requeue, and no forget either: the next event starts where the back-off stopped (as upstream)
            metrics.error.increment();
            metrics.errors.increment();
            metrics.terminalErrors.increment();
            failures.remove(request);
            log.error("Reconcile failed with a terminal error after {}; {} is not retried", took, request, failure);
            return;
        }
        if (timedOut) {
            metrics.timeouts.increment();
            metrics.error.increment();
            metrics.errors.increment();
            if (!dropAfterTooManyFailures(q, request, failure, took)) {
                q.addRateLimited(taken);
                log.error(
                        "Reconcile error, requeuing {}: the reconcile timed out after {} (limit {})",
                        request,
                        took,
                        reconcileTimeout,
                        failure);
            }
            return;
        }
        if (isConflict(failure)) {
            metrics.conflicts.increment();
            metrics.requeue.increment();
            if (!dropAfterTooManyFailures(q, request, failure, took)) {
                q.addRateLimited(taken);
                log.info(
                        "Reconcile conflict (409) after {}, retrying {} after the back-off: {}",
                        took,
                        request,
                        failure.getMessage());
            }
            return;
        }
        metrics.error.increment();
        metrics.errors.increment();
        if (isPanic(failure)) {
            metrics.panics.increment();
        }
        if (!dropAfterTooManyFailures(q, request, failure, took)) {
            q.addRateLimited(taken);
            log.error("Reconcile error, requeuing {} (reconcile took {})", request, took, failure);
        }
    }

    /**
     * Counts one more consecutive failure of {@code request}; past {@code maxRetries} retries, drops the key (forget,
     * ERROR log, Warning Event, dropped total) and returns true.
     */
    private boolean dropAfterTooManyFailures(RequestQueue q, Request request, Throwable failure, Took took) {
        int failed = failures.merge(request, 1, Integer::sum);
        if (maxRetries < 0 || failed <= maxRetries) {
            return false;
        }
        failures.remove(request);
        q.forget(request);
        metrics.dropped.increment();
        String message = "reconcile of " + request + " failed " + failed + " times in a row (" + maxRetries
                + " retries); controller " + name + " gave up on it until its next change";
        log.error(
                "Reconcile error, giving up: {} failed {} times in a row (maxRetries {}); the key is dropped until "
                        + "its next event (last reconcile took {})",
                request,
                failed,
                maxRetries,
                took,
                failure);
        try {
            forInformer
                    .indexer()
                    .getByKey(request.toString())
                    .ifPresent(object -> events.warning(object, "ReconcileRetriesExhausted", message));
        } catch (RuntimeException e) {
            log.warn("controller {}: could not record the Event for dropping {}", name, request, e);
        }
        return true;
    }

    private static boolean isConflict(Throwable failure) {
        Throwable t = failure;
        for (int depth = 0; t != null && depth < 64; depth++, t = t.getCause()) {
            if (t instanceof ConflictException) {
                return true;
            }
        }
        return false;
    }

    /** An unexpected failure: an Error, or a RuntimeException that is not an API, I/O or terminal failure. */
    private static boolean isPanic(Throwable failure) {
        if (failure instanceof Error) {
            return true;
        }
        return failure instanceof RuntimeException
                && !(failure instanceof KubernetesApiException
                        || failure instanceof UncheckedIOException
                        || failure instanceof WatchException
                        || failure instanceof TerminalException);
    }

    @Override
    public String toString() {
        return "controller " + name + " (" + forType.getSimpleName() + ", " + workers + " worker(s))";
    }

    /** A reconcile's duration as logs show it: {@code 12.345 ms}. */
    private record Took(Duration duration) {
        @Override
        public String toString() {
            return String.format(java.util.Locale.ROOT, "%.3f ms", duration.toNanos() / 1e6);
        }
    }

    /**
     * The reconcile timeout of one call. The clock's task interrupts the worker only while the call runs; both sides
     * decide under the lock, so an interrupt can never leak into the worker's next call.
     */
    private static final class Deadline implements Runnable {
        private final Thread worker;
        private final ReentrantLock lock = new ReentrantLock();
        /** Guarded by lock: 0 running, 1 finished, 2 expired. */
        private int state;

        volatile Clock.Scheduled scheduled;

        Deadline(Thread worker) {
            this.worker = worker;
        }

        @Override
        public void run() {
            lock.lock();
            try {
                if (state == 0) {
                    state = 2;
                    worker.interrupt();
                }
            } finally {
                lock.unlock();
            }
        }

        /** Ends the call; true when the timeout fired (the interrupt it caused is cleared). */
        boolean finish() {
            Clock.Scheduled s = scheduled;
            if (s != null) {
                s.cancel();
            }
            lock.lock();
            try {
                if (state == 0) {
                    state = 1;
                    return false;
                }
            } finally {
                lock.unlock();
            }
            Thread.interrupted();
            return true;
        }
    }
}
