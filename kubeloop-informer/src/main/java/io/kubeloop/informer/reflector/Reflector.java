package io.kubeloop.informer.reflector;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.kubeloop.client.codec.UndecodableObject;
import io.kubeloop.client.codec.UndecodableObjects;
import io.kubeloop.client.errors.KubernetesApiException;
import io.kubeloop.client.resource.ListOptions;
import io.kubeloop.client.resource.ListPage;
import io.kubeloop.client.resource.WatchOptions;
import io.kubeloop.client.watch.WatchEvent;
import io.kubeloop.client.watch.WatchIdleTimeoutException;
import io.kubeloop.clock.Clock;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a {@link ReflectorStore} equal to the server's state of one kind of object: client-go's
 * {@code cache.Reflector}. It lists, hands the list to {@link ReflectorStore#replace}, then watches from the
 * list's resourceVersion and hands every event to the store, in order, for as long as it runs. Whatever fails, it
 * recovers by itself: it never stops before {@link #stop()}.
 *
 * <pre>{@code
 * Reflector<Pod> reflector = Reflector.builder(ListerWatchers.forClient(pods), deltaFifo)
 *         .name("pods in default")
 *         .resyncPeriod(Duration.ofMinutes(10))
 *         .meterRegistry(registry)
 *         .build();
 * Thread.ofVirtual().name("pods-reflector").start(reflector::run);
 * ...
 * reflector.stop();
 * }</pre>
 *
 * <p><b>List.</b> The first list reads at resourceVersion {@code "0"} (the server's cache may answer), a relist
 * at the last resourceVersion seen (never going back in time), and at {@code ""} (the newest, from storage) after
 * the server said that version is unavailable (410 Expired or "Too large resource version"), in which case the
 * list is retried at once at {@code ""}. Lists are paged ({@code limit}, default 500) when client-go pages: at
 * {@code "0"} or {@code ""}, or whenever a {@link Builder#pageSize page size} was set; if a {@code continue} token
 * expires, the list is read again whole, unpaged. Only a complete list reaches the store.
 *
 * <p><b>Watch.</b> From the last resourceVersion seen, with {@code allowWatchBookmarks=true} and a random
 * {@code timeoutSeconds} in [min, 2·min) (min 5 minutes). Bookmarks advance {@link #lastSyncResourceVersion()}
 * and never reach the store. When a watch ends cleanly (its timeout, the server closing it, a broken connection)
 * or goes silent (the client's idle rule, {@code WatchIdleTimeoutException}), another is opened at once from the
 * last resourceVersion, without relisting. A refused connection, a 429 or a 5xx with Retry-After when opening a
 * watch → wait one backoff delay (at least Retry-After) and watch again, without relisting. A 410 "too old
 * resource version", a watch that ended in under a second with no event ({@link VeryShortWatchException}), a
 * resync failure or any other error → back off and relist.
 *
 * <p><b>Backoff</b> ({@link Backoff#DEFAULT}: 800 ms doubling, jitter 1.0, cap 30 s, reset after 2 minutes) after
 * every list-and-watch round that ended, successful or not (client-go's sliding loop), never shorter than a
 * Retry-After the server sent.
 *
 * <p><b>Resync.</b> While watching, every {@link Builder#resyncPeriod resync period} the reflector asks
 * {@link Builder#shouldResync} and, if yes, calls {@link ReflectorStore#resync()}.
 *
 * <p><b>Threads.</b> {@link #run()} blocks its caller; resyncs run on one extra thread from the
 * {@link Builder#threadFactory thread factory} while watching. Store calls never overlap: the watch and the resync
 * thread take turns. {@link #stop()} ends {@code run()} promptly from any thread (it closes the open watch,
 * interrupts a list or watch request in flight, and wakes a backoff wait); nothing is left running afterwards.
 *
 * <p><b>Objects that do not decode.</b> A list item or watch event whose object does not decode to the Java type
 * (the lister-watcher reports it as a {@code ListPage.undecodable()} entry or a {@link WatchEvent.Undecodable}) is,
 * by default ({@link UndecodableObjects#SKIP}), left out of the store while every other object keeps flowing: logged
 * at WARN with its namespace/name, resourceVersion and the decoding error (once per object and resourceVersion, not
 * on every relist), counted ({@code reflector_decode_errors_total}) and listed by {@link #undecodableObjects()}. A
 * version of it the store already holds is dropped ({@link ReflectorStore#removeUndecodable}, a deletion whose final
 * state is unknown), so that the store never keeps a state the server has left behind; when the object changes to
 * something that decodes, it enters the store as usual. A DELETED event of an undecodable object still removes it.
 * With {@link UndecodableObjects#FAIL} the list or watch fails instead, and the reflector backs off and relists, as
 * client-go does.
 *
 * <p>Every timer (backoff, resync, the very-short-watch rule) reads the {@link Builder#clock clock}.
 *
 * @param <T> the object type
 */
public final class Reflector<T> {

    private static final Logger LOG = LoggerFactory.getLogger(Reflector.class);

    /** client-go's pager page size. */
    public static final long DEFAULT_PAGE_SIZE = 500;
    /** The shortest watch timeout; a watch lasts a random time in [min, 2·min). */
    public static final Duration DEFAULT_MIN_WATCH_TIMEOUT = Duration.ofMinutes(5);
    /** A watch that ends cleanly sooner than this without an event is a {@link VeryShortWatchException}. */
    static final long VERY_SHORT_WATCH_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** Thrown inside the run loop when stop() was called; never escapes run(). */
    private static final class Stopped extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Stopped() {
            super(null, null, false, false);
        }
    }

    private static final Stopped STOPPED = new Stopped();

    private final String name;
    private final ListerWatcher<T> listerWatcher;
    private final ReflectorStore<T> store;
    private final Clock clock;
    private final Duration resyncPeriod;
    private final BooleanSupplier shouldResync;
    private final ListPager<T> pager;
    private final long minWatchTimeoutSeconds;
    private final BackoffTimer backoff;
    private final boolean streamingList;
    private final WatchErrorHandler watchErrorHandler;
    private final ReflectorMetrics metrics;
    private final ThreadFactory threadFactory;
    private final RandomGenerator random;
    private final UndecodableObjects undecodablePolicy;
    private final Undecodables undecodables;

    /** Guards the fields below it, the phase changes and the waits (backoff, resync). */
    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled by stop() and when the resync thread must end. */
    private final Condition wake = lock.newCondition();

    private boolean stopRequested;
    private Thread runThread;
    /** True only while the run thread is inside a list or watch request that stop() may interrupt. */
    private boolean interruptible;
    /** The open watch, which stop() closes; null when none. */
    private WatchStream<T> currentWatch;
    /** Bumped to end the resync thread of the current watch phase. */
    private long resyncGeneration;
    /** A failed resync ends the watch with this error (read and cleared by the run thread). */
    private RuntimeException resyncFailure;

    private ReflectorStatus status;

    /** Store calls never overlap: the run thread and the resync thread take this lock around each. */
    private final ReentrantLock storeLock = new ReentrantLock();

    private final AtomicBoolean started = new AtomicBoolean();
    private final CountDownLatch terminated = new CountDownLatch(1);
    private volatile String lastSyncResourceVersion = "";
    private volatile boolean hasListed;

    // Run-thread state.
    /** The last resourceVersion is known to be unavailable (410 or too large on a list): relist at "". */
    private boolean resourceVersionUnavailable;
    /** Why the next list is a relist, for the relists metric. */
    private String relistReason;
    /** The run thread was interrupted by someone other than stop(): restore the flag on exit. */
    private boolean interruptedFromOutside;

    private Reflector(Builder<T> b) {
        this.name = b.name != null ? b.name : String.valueOf(b.listerWatcher);
        this.listerWatcher = b.listerWatcher;
        this.store = b.store;
        this.clock = b.clock;
        this.resyncPeriod = b.resyncPeriod;
        this.shouldResync = b.shouldResync;
        this.pager = new ListPager<>(name, b.pageSize, this::listPage);
        this.minWatchTimeoutSeconds = b.minWatchTimeout.toSeconds();
        this.random = b.random != null ? b.random : new SplittableRandom();
        this.backoff = new BackoffTimer(b.backoff, clock, random);
        this.streamingList = b.streamingList;
        this.watchErrorHandler = b.watchErrorHandler;
        this.metrics = ReflectorMetrics.of(name, b.meterRegistry);
        this.undecodablePolicy = b.undecodableObjects;
        this.undecodables = new Undecodables(name, metrics);
        this.threadFactory = b.threadFactory != null
                ? b.threadFactory
                : Thread.ofVirtual()
                        .name("kubeloop-reflector-resync-" + name + "-", 0)
                        .factory();
        this.status = new ReflectorStatus(ReflectorStatus.Phase.NOT_STARTED, null, clock.now(), 0);
    }

    /** A builder of a reflector that fills {@code store} from {@code listerWatcher}. */
    public static <T> Builder<T> builder(ListerWatcher<T> listerWatcher, ReflectorStore<T> store) {
        return new Builder<>(listerWatcher, store);
    }

    // ---- public API -----------------------------------------------------------------------------------------------

    /**
     * Lists and watches until {@link #stop()}, on the calling thread. Returns only after stop() (or when the
     * thread is interrupted, which counts as stop(); the interrupt flag is then kept). A reflector runs once.
     *
     * @throws IllegalStateException run() was already called
     */
    public void run() {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("reflector " + name + " has already been run; build a new one");
        }
        lock.lock();
        try {
            if (stopRequested) {
                setPhase(ReflectorStatus.Phase.STOPPED);
                terminated.countDown();
                return;
            }
            runThread = Thread.currentThread();
        } finally {
            lock.unlock();
        }
        LOG.info("{}: starting (list, then watch)", name);
        try {
            runLoop();
        } finally {
            lock.lock();
            try {
                runThread = null;
                interruptible = false;
                setPhase(ReflectorStatus.Phase.STOPPED);
            } finally {
                lock.unlock();
            }
            closeCurrentWatch();
            metrics.close();
            Thread.interrupted(); // an interrupt from stop() must not leak to the caller
            if (interruptedFromOutside) {
                Thread.currentThread().interrupt();
            }
            LOG.info("{}: stopped at resourceVersion {}", name, lastSyncResourceVersion);
            terminated.countDown();
        }
    }

    /**
     * Ends {@link #run()} promptly: closes the open watch, interrupts a list or watch request in flight and wakes
     * a backoff wait. Callable from any thread, before or during run(), any number of times. Does not wait; see
     * {@link #awaitTermination}.
     */
    public void stop() {
        WatchStream<T> watch;
        lock.lock();
        try {
            if (!stopRequested) {
                stopRequested = true;
                wake.signalAll();
                if (interruptible && runThread != null) {
                    runThread.interrupt();
                }
            }
            watch = currentWatch;
            if (!started.get()) {
                setPhase(ReflectorStatus.Phase.STOPPED);
            }
        } finally {
            lock.unlock();
        }
        if (watch != null) {
            watch.close();
        }
    }

    /**
     * Waits (in real time) until {@link #run()} has returned after {@link #stop()}; true if it has.
     */
    public boolean awaitTermination(Duration timeout) throws InterruptedException {
        return terminated.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** The resourceVersion of the last list, watch event or bookmark; "" before the first list. */
    public String lastSyncResourceVersion() {
        return lastSyncResourceVersion;
    }

    /** Whether a watch is open (or being opened again right after a clean end). */
    public boolean isWatching() {
        return status().phase() == ReflectorStatus.Phase.WATCHING;
    }

    /** Whether a list has completed (and reached the store) at least once. */
    public boolean hasListed() {
        return hasListed;
    }

    /** What the reflector is doing now. */
    public ReflectorStatus status() {
        lock.lock();
        try {
            return status;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The objects the server holds that do not decode to the Java type and are therefore not in the store, by
     * namespace/name, as of the last list and watch event: empty in a healthy reflector.
     */
    public List<UndecodableObject> undecodableObjects() {
        return undecodables.snapshot();
    }

    /** How many objects are in {@link #undecodableObjects()}, without copying them. */
    public int undecodableCount() {
        return undecodables.count();
    }

    /** The name used in logs and metrics. */
    public String name() {
        return name;
    }

    @Override
    public String toString() {
        return "Reflector[" + name + ", " + status().phase() + ", resourceVersion " + lastSyncResourceVersion + "]";
    }

    // ---- the run loop ---------------------------------------------------------------------------------------------

    private void runLoop() {
        try {
            while (!stopping()) {
                RuntimeException failure;
                try {
                    failure = listAndWatch(); // a failure already reported, or null
                } catch (Stopped s) {
                    return;
                } catch (RuntimeException e) {
                    if (stopping()) {
                        return;
                    }
                    failure = e;
                    recordFailure(e);
                    notifyHandler(e);
                    if (relistReason == null) {
                        relistReason = "error";
                    }
                }
                backOff(failure);
            }
        } catch (Stopped s) {
            // stop() during a backoff wait
        }
    }

    /**
     * One round: list (or stream the list), then watch until the watch loop gives up.
     *
     * @return the failure that ended the watch, already reported to the handler (null after a clean end)
     * @throws RuntimeException a failure not yet reported: the run loop records and reports it
     */
    private RuntimeException listAndWatch() {
        if (hasListed) {
            metrics.relist(relistReason == null ? "error" : relistReason);
        }
        relistReason = null;
        WatchStream<T> stream = null;
        if (streamingList) {
            try {
                stream = watchList();
            } catch (Stopped s) {
                throw s;
            } catch (RuntimeException e) {
                if (stopping()) {
                    throw STOPPED;
                }
                LOG.info(
                        "{}: streaming list (sendInitialEvents) failed, falling back to list and watch: {}",
                        name,
                        Failures.summary(e));
            }
        }
        if (stream == null) {
            list();
        }
        return watchWithResync(stream);
    }

    // ---- list -----------------------------------------------------------------------------------------------------

    /** The resourceVersion of the next list (client-go's relistResourceVersion). */
    private String relistResourceVersion() {
        if (resourceVersionUnavailable) {
            return "";
        }
        return lastSyncResourceVersion.isEmpty() ? "0" : lastSyncResourceVersion;
    }

    private void list() {
        setPhase(ReflectorStatus.Phase.LISTING);
        String rv = relistResourceVersion();
        long start = clock.nanoTime();
        ListPager.Listed<T> result;
        try {
            result = pager.list(rv);
        } catch (Stopped s) {
            throw s;
        } catch (RuntimeException e) {
            if (stopping()) {
                throw STOPPED;
            }
            metrics.apiFailure("list");
            boolean expired = Failures.isExpired(e);
            if (!expired && !Failures.isTooLargeResourceVersion(e)) {
                throw e;
            }
            // client-go: the version is unavailable; list again at once from storage, at the newest version.
            resourceVersionUnavailable = true;
            String reason = expired ? "expired" : "too_large";
            metrics.relist(reason);
            LOG.info(
                    "{}: list at resourceVersion {} failed ({}); listing again at the newest resourceVersion: {}",
                    name,
                    rv,
                    reason,
                    Failures.summary(e));
            rv = "";
            try {
                result = pager.list(rv);
            } catch (Stopped s) {
                throw s;
            } catch (RuntimeException again) {
                if (stopping()) {
                    throw STOPPED;
                }
                metrics.apiFailure("list");
                throw again;
            }
        }
        resourceVersionUnavailable = false;
        undecodables.listed(result.undecodable());
        if (undecodablePolicy == UndecodableObjects.FAIL
                && !result.undecodable().isEmpty()) {
            throw new UndecodableObjectException(name, result.undecodable().get(0));
        }
        storeLock.lock();
        try {
            store.replace(result.items(), result.resourceVersion());
        } finally {
            storeLock.unlock();
        }
        lastSyncResourceVersion = result.resourceVersion() == null ? "" : result.resourceVersion();
        hasListed = true;
        long nanos = clock.nanoTime() - start;
        metrics.listed(result.items().size(), nanos, clock.now().toEpochMilli());
        markHealthy();
        LOG.info(
                "{}: listed {} objects at resourceVersion {} in {} ms (requested resourceVersion \"{}\")",
                name,
                result.items().size(),
                lastSyncResourceVersion,
                TimeUnit.NANOSECONDS.toMillis(nanos),
                rv);
    }

    // ---- streaming list (sendInitialEvents) -------------------------------------------------------------------------

    /**
     * client-go's watch-list: a watch with sendInitialEvents=true whose ADDED events build a temporary store until
     * the bookmark marked initial-events-end; then replace the store and keep watching on the same stream.
     *
     * @return the open stream, positioned after the bookmark
     */
    private WatchStream<T> watchList() {
        setPhase(ReflectorStatus.Phase.LISTING);
        while (true) {
            if (stopping()) {
                throw STOPPED;
            }
            String rv = resourceVersionUnavailable ? "" : lastSyncResourceVersion;
            long start = clock.nanoTime();
            WatchOptions options = WatchOptions.builder()
                    .resourceVersion(rv)
                    .resourceVersionMatch("NotOlderThan")
                    .sendInitialEvents(true)
                    .allowWatchBookmarks(true)
                    .timeoutSeconds(watchTimeoutSeconds())
                    .build();
            WatchStream<T> watch;
            try {
                watch = openWatch(options);
            } catch (Stopped s) {
                throw s;
            } catch (RuntimeException e) {
                if (stopping()) {
                    throw STOPPED;
                }
                metrics.apiFailure("watch");
                if (retryWatchInPlace(e)) {
                    continue;
                }
                if (!rv.isEmpty() && (Failures.isExpired(e) || Failures.isTooLargeResourceVersion(e))) {
                    resourceVersionUnavailable = true; // again at once, at the newest version
                    continue;
                }
                throw e;
            }
            register(watch);
            Map<String, T> initial = new LinkedHashMap<>();
            Map<String, UndecodableObject> initialUndecodable = new LinkedHashMap<>();
            int events = 0;
            try {
                while (true) {
                    WatchEvent<T> event = watch.next();
                    if (event == null) {
                        break;
                    }
                    events++;
                    switch (event) {
                        case WatchEvent.Change<T> c -> {
                            String key = keyOf(c.object());
                            if (key == null) {
                                LOG.warn(
                                        "{}: skipping a streaming-list event whose object has no metadata: {}",
                                        name,
                                        c.object().getClass().getName());
                                continue;
                            }
                            metrics.watchEvent(c.type().name(), clock.now().toEpochMilli());
                            initialUndecodable.remove(key);
                            if (c.type() == io.kubeloop.model.WatchEventType.DELETED) {
                                initial.remove(key);
                            } else {
                                initial.put(key, c.object());
                            }
                        }
                        case WatchEvent.Undecodable<T> u -> {
                            metrics.watchEvent(u.type().name(), clock.now().toEpochMilli());
                            UndecodableObject o = u.object();
                            initial.remove(o.key());
                            if (u.type() == io.kubeloop.model.WatchEventType.DELETED) {
                                initialUndecodable.remove(o.key());
                            } else if (undecodablePolicy == UndecodableObjects.FAIL) {
                                undecodables.seen(o);
                                throw new UndecodableObjectException(name, o);
                            } else if (o.hasName()) {
                                initialUndecodable.put(o.key(), o);
                            } else {
                                undecodables.seen(o); // cannot be told apart from others: logged now
                            }
                        }
                        case WatchEvent.Bookmark<T> b -> {
                            metrics.watchEvent("BOOKMARK", clock.now().toEpochMilli());
                            if (b.initialEventsEnd()) {
                                undecodables.listed(new ArrayList<>(initialUndecodable.values()));
                                storeLock.lock();
                                try {
                                    store.replace(new ArrayList<>(initial.values()), b.resourceVersion());
                                } finally {
                                    storeLock.unlock();
                                }
                                lastSyncResourceVersion = b.resourceVersion();
                                resourceVersionUnavailable = false;
                                hasListed = true;
                                long nanos = clock.nanoTime() - start;
                                metrics.listed(
                                        initial.size(), nanos, clock.now().toEpochMilli());
                                markHealthy();
                                LOG.info(
                                        "{}: streamed {} objects at resourceVersion {} in {} ms",
                                        name,
                                        initial.size(),
                                        b.resourceVersion(),
                                        TimeUnit.NANOSECONDS.toMillis(nanos));
                                return watch;
                            }
                        }
                        case WatchEvent.Error<T> err -> throw KubernetesApiException.fromWatchError(err.status());
                    }
                }
            } catch (InterruptedException e) {
                interruptedFromOutside();
                closeCurrentWatch();
                throw STOPPED;
            } catch (RuntimeException e) {
                closeCurrentWatch();
                if (stopping()) {
                    throw STOPPED;
                }
                if (!rv.isEmpty() && (Failures.isExpired(e) || Failures.isTooLargeResourceVersion(e))) {
                    resourceVersionUnavailable = true;
                    continue;
                }
                if (retryWatchInPlace(e)) {
                    continue;
                }
                throw e;
            }
            // Ended cleanly before the initial-events-end bookmark: start over with a new temporary store, unless
            // the server keeps closing it at once (then fall back to a LIST rather than loop).
            closeCurrentWatch();
            if (stopping()) {
                throw STOPPED;
            }
            if (events == 0 && clock.nanoTime() - start < VERY_SHORT_WATCH_NANOS) {
                throw new VeryShortWatchException(name);
            }
            LOG.info("{}: the streaming list ended before its initial-events-end bookmark; starting it again", name);
        }
    }

    // ---- watch ----------------------------------------------------------------------------------------------------

    private RuntimeException watchWithResync(WatchStream<T> open) {
        Thread resync = startResync();
        try {
            return watchLoop(open);
        } finally {
            stopResync(resync);
        }
    }

    /** How a watch ended. */
    private enum End {
        CLOSED,
        FAILED,
        STOPPED,
        RESYNC_FAILED
    }

    private record Outcome(End end, RuntimeException failure, int events, long nanos) {}

    /** Watches until a failure that needs a relist; returns it when already reported, throws it otherwise. */
    private RuntimeException watchLoop(WatchStream<T> open) {
        WatchStream<T> watch = open;
        long timeoutSeconds = 0;
        while (true) {
            if (stopping()) {
                throw STOPPED;
            }
            if (hasResyncFailure()) {
                closeCurrentWatch();
                relistReason = "resync_error";
                throw takeResyncFailure();
            }
            setPhase(ReflectorStatus.Phase.WATCHING);
            if (watch == null) {
                timeoutSeconds = watchTimeoutSeconds();
                WatchOptions options = WatchOptions.builder()
                        .resourceVersion(lastSyncResourceVersion)
                        .timeoutSeconds((int) timeoutSeconds)
                        .allowWatchBookmarks(true)
                        .build();
                try {
                    watch = openWatch(options);
                } catch (Stopped s) {
                    throw s;
                } catch (RuntimeException e) {
                    if (stopping()) {
                        throw STOPPED;
                    }
                    metrics.apiFailure("watch");
                    if (retryWatchInPlace(e)) {
                        continue;
                    }
                    relistReason = Failures.isExpired(e) ? "expired" : "error";
                    throw e; // the run loop tells the handler, backs off and relists
                }
                register(watch);
                markHealthy();
                if (hasResyncFailure()) {
                    continue; // the resync thread failed while the watch was being opened
                }
                LOG.debug(
                        "{}: watching from resourceVersion {} (timeout {} s)",
                        name,
                        options.resourceVersion(),
                        timeoutSeconds);
            }
            Outcome outcome = consume(watch);
            closeCurrentWatch();
            watch = null;
            switch (outcome.end()) {
                case STOPPED -> throw STOPPED;
                case RESYNC_FAILED -> {
                    relistReason = "resync_error";
                    throw takeResyncFailure();
                }
                case CLOSED -> {
                    if (outcome.nanos() < VERY_SHORT_WATCH_NANOS && outcome.events() == 0) {
                        relistReason = "very_short_watch";
                        metrics.watchRestart("very_short");
                        throw new VeryShortWatchException(name);
                    }
                    boolean timedOut =
                            timeoutSeconds > 0 && outcome.nanos() >= TimeUnit.SECONDS.toNanos(timeoutSeconds);
                    String reason = timedOut ? "timeout" : "server_closed";
                    metrics.watchRestart(reason);
                    LOG.info(
                            "{}: watch ended ({}) after {} s and {} events; watching again from resourceVersion {}",
                            name,
                            reason,
                            TimeUnit.NANOSECONDS.toSeconds(outcome.nanos()),
                            outcome.events(),
                            lastSyncResourceVersion);
                }
                case FAILED -> {
                    if (!handleWatchFailure(outcome)) {
                        return outcome.failure(); // the run loop backs off and relists
                    }
                }
            }
        }
    }

    /**
     * A watch ended with an error: true to watch again (after a backoff if needed) without relisting, false to
     * back off and relist. Tells the watch error handler.
     */
    private boolean handleWatchFailure(Outcome outcome) {
        RuntimeException e = outcome.failure();
        if (e instanceof WatchIdleTimeoutException) {
            metrics.watchRestart("idle");
            LOG.info(
                    "{}: watch went silent ({}); watching again from resourceVersion {}",
                    name,
                    Failures.summary(e),
                    lastSyncResourceVersion);
            notifyHandler(e);
            return true;
        }
        if (Failures.isBrokenStream(e)) {
            // client-go treats a lost connection like a clean end: watch again, unless it was very short.
            if (outcome.nanos() < VERY_SHORT_WATCH_NANOS && outcome.events() == 0) {
                relistReason = "very_short_watch";
                metrics.watchRestart("very_short");
                recordFailure(e);
                notifyHandler(e);
                return false;
            }
            metrics.watchRestart("connection_lost");
            LOG.info(
                    "{}: watch connection lost ({}); watching again from resourceVersion {}",
                    name,
                    Failures.summary(e),
                    lastSyncResourceVersion);
            return true;
        }
        if (Failures.isExpired(e)) {
            metrics.watchRestart("expired");
            relistReason = "expired";
            recordFailure(e);
            notifyHandler(e);
            return false;
        }
        if (Failures.isTooManyRequests(e)) {
            metrics.watchRestart("too_many_requests");
            recordFailure(e);
            notifyHandler(e);
            backOff(e);
            return true;
        }
        metrics.watchRestart("error");
        relistReason = "error";
        recordFailure(e);
        notifyHandler(e);
        return false; // the backoff logs the error
    }

    /**
     * A failure to open a watch that client-go retries in place (refused connection, 429; here also a 5xx with
     * Retry-After, which client-go's transport retries): tell the handler, wait one backoff delay (at least
     * Retry-After) and return true. False for any other failure.
     */
    private boolean retryWatchInPlace(RuntimeException e) {
        if (!Failures.isConnectionRefused(e) && !Failures.isTooManyRequests(e) && !Failures.isRetryableServerError(e)) {
            return false;
        }
        recordFailure(e);
        notifyHandler(e);
        backOff(e);
        return true;
    }

    /** Reads events until the watch ends; hands each to the store. */
    private Outcome consume(WatchStream<T> watch) {
        long start = clock.nanoTime();
        int events = 0;
        try {
            while (true) {
                WatchEvent<T> event = watch.next();
                if (event == null) {
                    return new Outcome(endWithoutFailure(), null, events, clock.nanoTime() - start);
                }
                events++;
                apply(event);
            }
        } catch (InterruptedException e) {
            interruptedFromOutside();
            return new Outcome(End.STOPPED, null, events, clock.nanoTime() - start);
        } catch (RuntimeException e) {
            End end = endWithoutFailure();
            return new Outcome(end == End.CLOSED ? End.FAILED : end, e, events, clock.nanoTime() - start);
        }
    }

    /** STOPPED or RESYNC_FAILED when the watch was closed for those reasons, else CLOSED. */
    private End endWithoutFailure() {
        lock.lock();
        try {
            if (stopRequested) {
                return End.STOPPED;
            }
            return resyncFailure != null ? End.RESYNC_FAILED : End.CLOSED;
        } finally {
            lock.unlock();
        }
    }

    private void apply(WatchEvent<T> event) {
        switch (event) {
            case WatchEvent.Change<T> c -> {
                T object = c.object();
                if (!(object instanceof HasMetadata m) || m.getMetadata() == null) {
                    // client-go: no metadata accessor → log and skip, without recording a resourceVersion.
                    LOG.warn(
                            "{}: skipping a {} event whose object has no metadata: {}",
                            name,
                            c.type(),
                            object.getClass().getName());
                    return;
                }
                ObjectMeta meta = m.getMetadata();
                if (!undecodables.isEmpty()) { // a key string per event only while some object does not decode
                    undecodables.gone(keyOf(object), c.type() != io.kubeloop.model.WatchEventType.DELETED);
                }
                storeLock.lock();
                try {
                    switch (c.type()) {
                        case ADDED -> store.add(object);
                        case MODIFIED -> store.update(object);
                        case DELETED -> store.delete(object);
                        default -> LOG.warn("{}: skipping a watch event of unknown type {}", name, c.type());
                    }
                } catch (RuntimeException e) {
                    // client-go: the event is dropped, its resourceVersion still recorded; a relist repairs it.
                    LOG.error(
                            "{}: the store failed on {} {}/{}; the event is dropped until the next relist",
                            name,
                            c.type(),
                            meta.getNamespace(),
                            meta.getName(),
                            e);
                } finally {
                    storeLock.unlock();
                }
                String rv = meta.getResourceVersion();
                if (rv != null && !rv.isEmpty()) {
                    lastSyncResourceVersion = rv;
                }
                metrics.watchEvent(c.type().name(), clock.now().toEpochMilli());
                if (LOG.isDebugEnabled()) {
                    LOG.debug(
                            "{}: {} {}/{} at resourceVersion {}",
                            name,
                            c.type(),
                            meta.getNamespace(),
                            meta.getName(),
                            rv);
                }
            }
            case WatchEvent.Bookmark<T> b -> {
                lastSyncResourceVersion = b.resourceVersion();
                metrics.watchEvent("BOOKMARK", clock.now().toEpochMilli());
                LOG.debug("{}: bookmark at resourceVersion {}", name, b.resourceVersion());
            }
            case WatchEvent.Undecodable<T> u -> applyUndecodable(u);
            case WatchEvent.Error<T> err -> {
                metrics.watchEvent("ERROR", clock.now().toEpochMilli());
                throw KubernetesApiException.fromWatchError(err.status());
            }
        }
    }

    /**
     * A watch event whose object does not decode: the object is no longer what the store may hold (changed into
     * something undecodable, or deleted in that state), so its cached version, if any, is dropped.
     */
    private void applyUndecodable(WatchEvent.Undecodable<T> u) {
        UndecodableObject o = u.object();
        metrics.watchEvent(u.type().name(), clock.now().toEpochMilli());
        if (u.type() == io.kubeloop.model.WatchEventType.DELETED) {
            undecodables.gone(o.key(), false);
            LOG.debug("{}: DELETED {} (undecodable) at resourceVersion {}", name, o.key(), o.resourceVersion());
        } else {
            undecodables.seen(o);
            if (undecodablePolicy == UndecodableObjects.FAIL) {
                throw new UndecodableObjectException(name, o);
            }
        }
        if (o.hasName()) {
            storeLock.lock();
            try {
                store.removeUndecodable(o.namespace() == null ? "" : o.namespace(), o.name());
            } catch (RuntimeException e) {
                LOG.error(
                        "{}: the store failed to drop {} (undecodable); it may keep an old version until the next "
                                + "relist",
                        name,
                        o.key(),
                        e);
            } finally {
                storeLock.unlock();
            }
        }
        String rv = o.resourceVersion();
        if (rv != null && !rv.isEmpty()) {
            lastSyncResourceVersion = rv;
        }
    }

    /** A random integer in [min, 2·min) seconds. */
    private int watchTimeoutSeconds() {
        long min = minWatchTimeoutSeconds;
        return (int) (min + (long) (random.nextDouble() * min));
    }

    // ---- resync ---------------------------------------------------------------------------------------------------

    private Thread startResync() {
        if (resyncPeriod.isZero()) {
            return null;
        }
        long generation;
        lock.lock();
        try {
            generation = ++resyncGeneration;
            resyncFailure = null;
        } finally {
            lock.unlock();
        }
        Thread t = threadFactory.newThread(() -> resyncLoop(generation));
        t.start();
        return t;
    }

    private void stopResync(Thread resync) {
        if (resync == null) {
            return;
        }
        lock.lock();
        try {
            resyncGeneration++;
            wake.signalAll();
        } finally {
            lock.unlock();
        }
        boolean interrupted = false;
        while (true) {
            try {
                resync.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true; // stop() may interrupt us; the resync thread ends on its own
            }
        }
        if (interrupted && !stopRequestedNow()) {
            interruptedFromOutside();
        }
    }

    /** Every resync period while this watch phase lasts: ask shouldResync, then store.resync(). */
    private void resyncLoop(long generation) {
        long period = resyncPeriod.toNanos();
        long next = clock.nanoTime() + period;
        lock.lock();
        try {
            while (!stopRequested && resyncGeneration == generation) {
                if (clock.nanoTime() - next < 0) {
                    clock.awaitUntil(lock, wake, next);
                    continue;
                }
                lock.unlock();
                RuntimeException failure = null;
                try {
                    failure = resyncOnce();
                } finally {
                    lock.lock();
                }
                if (failure != null) {
                    if (resyncGeneration == generation) {
                        resyncFailure = failure;
                    }
                    break;
                }
                next = clock.nanoTime() + period;
            }
        } catch (InterruptedException e) {
            // Ends the resync loop; the run loop owns the reflector's life.
        } finally {
            lock.unlock();
        }
        boolean failed;
        lock.lock();
        try {
            failed = resyncFailure != null && resyncGeneration == generation;
        } finally {
            lock.unlock();
        }
        if (failed) {
            closeCurrentWatch(); // the watch loop sees RESYNC_FAILED and relists
        }
    }

    private RuntimeException resyncOnce() {
        try {
            if (shouldResync != null && !shouldResync.getAsBoolean()) {
                return null;
            }
            storeLock.lock();
            try {
                store.resync();
            } finally {
                storeLock.unlock();
            }
            LOG.debug("{}: resync", name);
            return null;
        } catch (RuntimeException e) {
            LOG.warn("{}: resync failed; ending the watch to relist: {}", name, Failures.summary(e));
            return e;
        }
    }

    private boolean hasResyncFailure() {
        lock.lock();
        try {
            return resyncFailure != null;
        } finally {
            lock.unlock();
        }
    }

    private RuntimeException takeResyncFailure() {
        lock.lock();
        try {
            RuntimeException f = resyncFailure;
            resyncFailure = null;
            return f != null ? f : new IllegalStateException(name + ": resync failed");
        } finally {
            lock.unlock();
        }
    }

    // ---- waiting, stopping, status ----------------------------------------------------------------------------------

    /** Waits one backoff delay, at least the Retry-After of {@code failure}; throws STOPPED on stop(). */
    private void backOff(RuntimeException failure) {
        long delay = backoff.nextDelayNanos();
        long retryAfter = TimeUnit.SECONDS.toNanos(Failures.retryAfterSeconds(failure));
        delay = Math.max(delay, retryAfter);
        setPhase(ReflectorStatus.Phase.BACKING_OFF);
        if (failure == null) {
            LOG.info("{}: waiting {} ms before listing again", name, TimeUnit.NANOSECONDS.toMillis(delay));
        } else if (Failures.isExpired(failure)) {
            // Routine: the history moved on while the watch was down.
            LOG.info(
                    "{}: waiting {} ms before relisting after: {}",
                    name,
                    TimeUnit.NANOSECONDS.toMillis(delay),
                    Failures.summary(failure));
        } else {
            LOG.warn(
                    "{}: backing off {} ms after: {}",
                    name,
                    TimeUnit.NANOSECONDS.toMillis(delay),
                    Failures.summary(failure));
        }
        long deadline = clock.nanoTime() + delay;
        lock.lock();
        try {
            while (!stopRequested && clock.nanoTime() - deadline < 0) {
                clock.awaitUntil(lock, wake, deadline);
            }
        } catch (InterruptedException e) {
            interruptedFromOutside();
        } finally {
            lock.unlock();
        }
        if (stopping()) {
            throw STOPPED;
        }
    }

    private WatchStream<T> openWatch(WatchOptions options) {
        return Objects.requireNonNull(
                call(() -> listerWatcher.watch(options)),
                () -> "the ListerWatcher of " + name + " returned a null watch for " + options);
    }

    private ListPage<T> listPage(ListOptions options) {
        return Objects.requireNonNull(
                call(() -> listerWatcher.list(options)),
                () -> "the ListerWatcher of " + name + " returned a null page for " + options);
    }

    /** Runs a list or watch request that stop() may interrupt. */
    private <R> R call(Supplier<R> request) {
        lock.lock();
        try {
            if (stopRequested) {
                throw STOPPED;
            }
            interruptible = true;
        } finally {
            lock.unlock();
        }
        try {
            return request.get();
        } finally {
            lock.lock();
            try {
                interruptible = false;
                if (stopRequested) {
                    Thread.interrupted(); // stop()'s interrupt has done its job
                }
            } finally {
                lock.unlock();
            }
        }
    }

    /** Whether run() should end: stop() was called, or the run thread was interrupted from outside. */
    private boolean stopping() {
        if (Thread.currentThread() == runThread && Thread.currentThread().isInterrupted()) {
            lock.lock();
            try {
                if (!stopRequested) {
                    interruptedFromOutside = true;
                    stopRequested = true;
                    wake.signalAll();
                }
            } finally {
                lock.unlock();
            }
        }
        return stopRequestedNow();
    }

    private boolean stopRequestedNow() {
        lock.lock();
        try {
            return stopRequested;
        } finally {
            lock.unlock();
        }
    }

    private void interruptedFromOutside() {
        lock.lock();
        try {
            if (!stopRequested) {
                interruptedFromOutside = true;
                stopRequested = true;
                wake.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Makes {@code watch} the one stop() closes; closes it at once if stop() came first. */
    private void register(WatchStream<T> watch) {
        boolean stop;
        lock.lock();
        try {
            stop = stopRequested;
            if (!stop) {
                currentWatch = watch;
            }
        } finally {
            lock.unlock();
        }
        if (stop) {
            watch.close();
            throw STOPPED;
        }
    }

    private void closeCurrentWatch() {
        WatchStream<T> watch;
        lock.lock();
        try {
            watch = currentWatch;
            currentWatch = null;
        } finally {
            lock.unlock();
        }
        if (watch != null) {
            try {
                watch.close();
            } catch (RuntimeException e) {
                LOG.debug("{}: closing a watch failed: {}", name, Failures.summary(e));
            }
        }
    }

    private void notifyHandler(Throwable e) {
        try {
            watchErrorHandler.onWatchError(name, e);
        } catch (RuntimeException thrown) {
            LOG.warn("{}: the watch error handler threw; ignored: {}", name, Failures.summary(thrown));
        }
    }

    private void setPhase(ReflectorStatus.Phase phase) {
        lock.lock();
        try {
            if (status.phase() != phase && status.phase() != ReflectorStatus.Phase.STOPPED) {
                status = new ReflectorStatus(phase, status.lastError(), clock.now(), status.consecutiveFailures());
            }
        } finally {
            lock.unlock();
        }
    }

    private void recordFailure(Throwable e) {
        lock.lock();
        try {
            status = new ReflectorStatus(
                    status.phase(), Failures.summary(e), status.since(), status.consecutiveFailures() + 1);
        } finally {
            lock.unlock();
        }
    }

    private void markHealthy() {
        lock.lock();
        try {
            if (status.lastError() != null || status.consecutiveFailures() != 0) {
                status = new ReflectorStatus(status.phase(), null, status.since(), 0);
            }
        } finally {
            lock.unlock();
        }
    }

    private static String keyOf(Object object) {
        if (!(object instanceof HasMetadata m) || m.getMetadata() == null) {
            return null;
        }
        String ns = m.getMetadata().getNamespace();
        return (ns == null || ns.isEmpty() ? "" : ns + "/") + m.getMetadata().getName();
    }

    // ---- builder --------------------------------------------------------------------------------------------------

    /** Options of a {@link Reflector}; every one has a default. */
    public static final class Builder<T> {
        private final ListerWatcher<T> listerWatcher;
        private final ReflectorStore<T> store;
        private String name;
        private Clock clock = Clock.system();
        private Duration resyncPeriod = Duration.ZERO;
        private BooleanSupplier shouldResync;
        private long pageSize;
        private Duration minWatchTimeout = DEFAULT_MIN_WATCH_TIMEOUT;
        private Backoff backoff = Backoff.DEFAULT;
        private boolean streamingList;
        private WatchErrorHandler watchErrorHandler = WatchErrorHandler.LOGGING;
        private MeterRegistry meterRegistry;
        private ThreadFactory threadFactory;
        private RandomGenerator random;
        private UndecodableObjects undecodableObjects = UndecodableObjects.SKIP;

        private Builder(ListerWatcher<T> listerWatcher, ReflectorStore<T> store) {
            this.listerWatcher = Objects.requireNonNull(listerWatcher, "listerWatcher");
            this.store = Objects.requireNonNull(store, "store");
        }

        /** The name in logs and in the metrics' {@code name} tag, e.g. {@code pods in default}. */
        public Builder<T> name(String name) {
            Objects.requireNonNull(name, "name");
            if (name.isBlank()) {
                throw new IllegalArgumentException("a reflector name must not be blank");
            }
            this.name = name;
            return this;
        }

        /** The clock of backoff, resync and the very-short-watch rule; {@link Clock#system()} by default. */
        public Builder<T> clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** How often to call {@link ReflectorStore#resync()} while watching; zero (the default) for never. */
        public Builder<T> resyncPeriod(Duration resyncPeriod) {
            Objects.requireNonNull(resyncPeriod, "resyncPeriod");
            if (resyncPeriod.isNegative()) {
                throw new IllegalArgumentException("resyncPeriod must not be negative, was " + resyncPeriod);
            }
            this.resyncPeriod = resyncPeriod;
            return this;
        }

        /** Asked at each resync period; the store is resynced only when it says yes. Default: always yes. */
        public Builder<T> shouldResync(BooleanSupplier shouldResync) {
            this.shouldResync = Objects.requireNonNull(shouldResync, "shouldResync");
            return this;
        }

        /**
         * The list page size ({@code limit}) for every list. Unset (or 0), client-go's rules apply: 500 at
         * resourceVersion "0" or "", no limit at a specific version (the server's watch cache does not page),
         * and 500 always once a list at "0" came back paged.
         */
        public Builder<T> pageSize(long pageSize) {
            if (pageSize < 0) {
                throw new IllegalArgumentException("pageSize must be ≥ 0, was " + pageSize);
            }
            this.pageSize = pageSize;
            return this;
        }

        /**
         * The shortest watch timeout; each watch asks for a random {@code timeoutSeconds} in [min, 2·min).
         * Default and minimum 5 minutes (client-go ignores lower values; so does this builder, with a warning).
         */
        public Builder<T> minWatchTimeout(Duration minWatchTimeout) {
            Objects.requireNonNull(minWatchTimeout, "minWatchTimeout");
            if (minWatchTimeout.compareTo(DEFAULT_MIN_WATCH_TIMEOUT) < 0) {
                LOG.warn(
                        "minWatchTimeout {} is below client-go's minimum of 5 minutes; using 5 minutes",
                        minWatchTimeout);
                this.minWatchTimeout = DEFAULT_MIN_WATCH_TIMEOUT;
            } else {
                this.minWatchTimeout = minWatchTimeout;
            }
            return this;
        }

        /** The backoff after failures; {@link Backoff#DEFAULT} by default. */
        public Builder<T> backoff(Backoff backoff) {
            this.backoff = Objects.requireNonNull(backoff, "backoff");
            return this;
        }

        /**
         * Whether to fill the store with a streaming list (a watch with {@code sendInitialEvents=true}) instead of
         * a LIST; any failure of it falls back to list and watch. Off by default.
         */
        public Builder<T> streamingList(boolean streamingList) {
            this.streamingList = streamingList;
            return this;
        }

        /** Told about every list and watch failure; {@link WatchErrorHandler#LOGGING} by default. */
        public Builder<T> watchErrorHandler(WatchErrorHandler handler) {
            this.watchErrorHandler = Objects.requireNonNull(handler, "watchErrorHandler");
            return this;
        }

        /** Where to record the {@code reflector_*} metrics; without one nothing is recorded. */
        public Builder<T> meterRegistry(MeterRegistry meterRegistry) {
            this.meterRegistry = Objects.requireNonNull(meterRegistry, "meterRegistry");
            return this;
        }

        /** Makes the resync thread; by default virtual threads named {@code kubeloop-reflector-resync-<name>-<n>}. */
        public Builder<T> threadFactory(ThreadFactory threadFactory) {
            this.threadFactory = Objects.requireNonNull(threadFactory, "threadFactory");
            return this;
        }

        /** The random source of backoff jitter and watch timeouts (seed it in tests). */
        public Builder<T> random(RandomGenerator random) {
            this.random = Objects.requireNonNull(random, "random");
            return this;
        }

        /**
         * What to do with an object that does not decode to the Java type (see the class comment):
         * {@link UndecodableObjects#SKIP} (the default) leaves it out of the store, logs, counts and lists it, and
         * keeps every other object flowing; {@link UndecodableObjects#FAIL} fails the list or watch, backs off and
         * relists, until the object changes or is deleted (client-go's behaviour).
         */
        public Builder<T> undecodableObjects(UndecodableObjects policy) {
            this.undecodableObjects = Objects.requireNonNull(policy, "policy");
            return this;
        }

        public Reflector<T> build() {
            return new Reflector<>(this);
        }
    }
}
