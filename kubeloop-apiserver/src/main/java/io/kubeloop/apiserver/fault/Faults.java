package io.kubeloop.apiserver.fault;

import io.kubeloop.clock.Clock;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Faults to inject into a running {@link io.kubeloop.apiserver.EmbeddedApiServer}, for tests, demos and
 * resilience experiments: get it with {@code server.faults()}.
 *
 * <pre>{@code
 * Faults faults = server.faults();
 * faults.partition(Duration.ofSeconds(30));            // pull the network cable for 30 seconds
 * faults.fail(Failure.status(503).count(3).resource("pods").verb("list"));
 * faults.latency(Latency.of(Duration.ofMillis(200)));
 * faults.closeWatches("pods");                          // as if every pod watch timed out
 * faults.stall(Duration.ofSeconds(10));                 // watch events wait, then arrive in order
 * faults.compact();                                     // resuming from an older resourceVersion gets 410
 * faults.clear();                                       // everything back to normal
 * }</pre>
 *
 * <p>Failures and latency apply to requests for resources (the kube verbs); discovery, {@code /version}, health
 * and {@code /metrics} are never failed or delayed. A partition holds every new request except the fault admin
 * path. Durations run on the server's {@link Clock}; fractions and jitter draw from one random source seeded with
 * the server's fault seed, so the same seed and the same sequence of requests give the same pattern. Every start
 * and end of a fault is logged at INFO and counted in {@code /metrics}.
 *
 * <p>Thread-safe. Invariants: a held request or watch write waits only while a fault that applies to it is in
 * force on the clock, and resumes when it ends, is replaced by one that does not apply, or is cleared; a held
 * watch loses no event and reorders none (events wait in the watch's buffer, whose overflow ends the watch as
 * it always does).
 */
public final class Faults {

    private static final Logger log = LoggerFactory.getLogger(Faults.class);
    private static final long FOREVER = Long.MAX_VALUE;

    private final Clock clock;
    private final long seed;
    private final LongSupplier compactor;
    private final FaultMetrics metrics = new FaultMetrics();

    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled, under {@code lock}, whenever a fault starts, ends or is cleared. */
    private final Condition changed = lock.newCondition();
    /** Guarded by {@code lock}; draws happen in request order. */
    private final SplittableRandom random;
    /** Guarded by {@code lock}. */
    private final List<FailureRule> failures = new ArrayList<>();
    /** Guarded by {@code lock}. */
    private final List<LatencyRule> latencies = new ArrayList<>();
    /** Guarded by {@code lock}; null when none. */
    private Window partition;
    /** Guarded by {@code lock}; null when none. */
    private Window stall;
    /** Guarded by {@code lock}: incremented by {@link #clear()}, which cuts short every latency wait. */
    private long clears;
    /** Guarded by {@code lock}: the thread that ends timed faults, started with the first one. */
    private Thread expiry;
    /** Guarded by {@code lock}. */
    private boolean closed;

    /** Fast paths: written under {@code lock} whenever the faults change; false means no lock needed. */
    private volatile boolean requestFaults;

    private volatile boolean holding;

    private final ConcurrentHashMap<Long, OpenWatch> watches = new ConcurrentHashMap<>();
    private final AtomicLong watchIds = new AtomicLong();

    Faults(Clock clock, long seed, LongSupplier compactor) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.seed = seed;
        this.random = new SplittableRandom(seed);
        this.compactor = Objects.requireNonNull(compactor, "compactor");
    }

    // ---- the faults

    /** Ends every open watch now, cleanly, as a server-side timeout does. Returns how many were closed. */
    public int closeWatches() {
        return closeWatches(null);
    }

    /**
     * Ends every open watch of {@code resource} ({@code pods}, {@code deployments.apps}; null for all) now,
     * cleanly: the client sees the stream end as on a server-side timeout. Returns how many were closed.
     */
    public int closeWatches(String resource) {
        Scope scope = new Scope(resource, null);
        int closed = 0;
        for (OpenWatch w : watches.values()) {
            if (scope.matchesResource(w.group, w.plural) && w.closed.compareAndSet(false, true)) {
                w.close.run();
                metrics.affected("close-watches", Scope.qualified(w.group, w.plural), "watch");
                closed++;
            }
        }
        metrics.injected("close-watches", scope);
        log.info("fault injected: close-watches {} closed {} open watches", scope, closed);
        return closed;
    }

    /** Starts failing requests as {@code failure} says. */
    public void fail(Failure failure) {
        Objects.requireNonNull(failure, "failure");
        start("fail", failure.scope(), failure.describe(), failure.lasting(), end -> {
            failures.add(new FailureRule(failure, end));
        });
    }

    /** Starts delaying requests as {@code latency} says. */
    public void latency(Latency latency) {
        Objects.requireNonNull(latency, "latency");
        start("latency", latency.scope(), latency.describe(), latency.lasting(), end -> {
            latencies.add(new LatencyRule(latency, end));
        });
    }

    /** {@link #partition(Duration, String)} for every client. */
    public void partition(Duration duration) {
        partition(duration, null);
    }

    /**
     * Cuts clients off for {@code duration}, as a pulled network cable does: connections are accepted but nothing
     * is sent. New requests wait, and open watches send nothing; events that happen meanwhile are delivered after,
     * in order. Ends early on {@link #clear()}; a new partition replaces the current one.
     *
     * @param userAgentPrefix only clients whose User-Agent starts with this (e.g. {@code kubectl}, or the agent
     *     of the informer under test) are cut off, so that others can keep writing; null for every client
     */
    public void partition(Duration duration, String userAgentPrefix) {
        requirePositive(duration);
        if (userAgentPrefix != null && userAgentPrefix.isEmpty()) {
            throw new IllegalArgumentException("userAgent must not be empty");
        }
        Map<String, Object> settings = seconds(duration);
        if (userAgentPrefix != null) {
            settings.put("userAgent", userAgentPrefix);
        }
        start("partition", Scope.ALL, settings, duration, end -> {
            replaced(partition);
            partition = new Window("partition", end, userAgentPrefix, Scope.ALL, settings);
        });
    }

    /** {@link #stall(Duration, String)} for every resource. */
    public void stall(Duration duration) {
        stall(duration, null);
    }

    /**
     * Holds every watch event of {@code resource} (null for all) for {@code duration} while requests and writes go
     * on; then the held events are delivered, in order. Ends early on {@link #clear()}; a new stall replaces the
     * current one.
     */
    public void stall(Duration duration, String resource) {
        requirePositive(duration);
        Scope scope = new Scope(resource, null);
        Map<String, Object> settings = seconds(duration);
        scope.describe(settings);
        start("stall", scope, settings, duration, end -> {
            replaced(stall);
            stall = new Window("stall", end, null, scope, settings);
        });
    }

    /**
     * Compacts the history now: every list at, or watch from, an older resourceVersion gets 410 Expired, so
     * informers must relist. Returns the oldest revision still available.
     */
    public long compact() {
        long revision = compactor.getAsLong();
        metrics.injected("compact", Scope.ALL);
        log.info("fault injected: compact, the history now starts at revision {}", revision);
        return revision;
    }

    /** Ends every fault in force: held requests and watches resume, delayed ones go on. Returns how many. */
    public int clear() {
        lock.lock();
        try {
            int n = failures.size() + latencies.size() + (partition == null ? 0 : 1) + (stall == null ? 0 : 1);
            failures.forEach(r -> ended("fail", r.failure.describe(), "cleared"));
            latencies.forEach(r -> ended("latency", r.latency.describe(), "cleared"));
            if (partition != null) {
                ended("partition", partition.settings, "cleared");
            }
            if (stall != null) {
                ended("stall", stall.settings, "cleared");
            }
            failures.clear();
            latencies.clear();
            partition = null;
            stall = null;
            clears++;
            changedLocked();
            return n;
        } finally {
            lock.unlock();
        }
    }

    /** The faults in force now, oldest first. */
    public List<ActiveFault> active() {
        lock.lock();
        try {
            long now = clock.nanoTime();
            List<ActiveFault> out = new ArrayList<>();
            for (FailureRule r : failures) {
                if (!ended(r.end, now)) {
                    Map<String, Object> s = r.failure.describe();
                    if (r.remaining > 0) {
                        s.put("remainingCount", r.remaining);
                    }
                    out.add(new ActiveFault("fail", remaining(s, r.end, now)));
                }
            }
            for (LatencyRule r : latencies) {
                if (!ended(r.end, now)) {
                    out.add(new ActiveFault("latency", remaining(r.latency.describe(), r.end, now)));
                }
            }
            for (Window w : new Window[] {partition, stall}) {
                if (w != null && !ended(w.end, now)) {
                    out.add(new ActiveFault(w.fault, remaining(new LinkedHashMap<>(w.settings), w.end, now)));
                }
            }
            return out;
        } finally {
            lock.unlock();
        }
    }

    /** The seed of the random source that fractions and jitter draw from. */
    public long seed() {
        return seed;
    }

    // ---- hooks for the request path (see FaultInjector)

    /** What a request in scope of failures or latency must suffer; null for nothing. */
    record Verdict(long delayNanos, Failure failure) {}

    Verdict verdict(String group, String plural, String verb) {
        if (!requestFaults) {
            return null;
        }
        String resource = Scope.qualified(group, plural);
        lock.lock();
        try {
            long now = clock.nanoTime();
            long delay = 0;
            for (LatencyRule r : latencies) {
                if (!ended(r.end, now) && r.latency.scope().matches(group, plural, verb)) {
                    long jitter = r.latency.jitterBound().toNanos();
                    delay += r.latency.fixed().toNanos() + (jitter > 0 ? random.nextLong(jitter + 1) : 0);
                    metrics.affected("latency", resource, verb);
                }
            }
            Failure failed = null;
            for (Iterator<FailureRule> it = failures.iterator(); it.hasNext(); ) {
                FailureRule r = it.next();
                if (ended(r.end, now) || !r.failure.scope().matches(group, plural, verb)) {
                    continue;
                }
                double p = r.failure.probability();
                if (p < 1 && random.nextDouble() >= p) {
                    continue;
                }
                failed = r.failure;
                metrics.affected("fail", resource, verb);
                if (r.remaining > 0 && --r.remaining == 0) {
                    it.remove();
                    ended("fail", r.failure.describe(), "its count was reached");
                    changedLocked();
                }
                break;
            }
            return delay == 0 && failed == null ? null : new Verdict(delay, failed);
        } finally {
            lock.unlock();
        }
    }

    /** Waits {@code nanos} on the clock, or until {@link #clear()}. */
    void delay(long nanos) throws InterruptedIOException {
        lock.lock();
        try {
            long epoch = clears;
            long deadline = clock.nanoTime() + nanos;
            while (clears == epoch && !closed && deadline - clock.nanoTime() > 0) {
                clock.awaitUntil(lock, changed, deadline);
            }
        } catch (InterruptedException e) {
            throw interrupted(e);
        } finally {
            lock.unlock();
        }
    }

    /** Holds a new request while a partition that applies to its User-Agent is in force. */
    void holdWhilePartitioned(String userAgent) throws InterruptedIOException {
        if (!holding) {
            return;
        }
        lock.lock();
        try {
            boolean counted = false;
            while (true) {
                Window p = partition;
                long now = clock.nanoTime();
                if (closed || p == null || ended(p.end, now) || !p.appliesToAgent(userAgent)) {
                    return;
                }
                if (!counted) {
                    metrics.affected("partition", "", "");
                    counted = true;
                }
                clock.awaitUntil(lock, changed, p.end);
            }
        } catch (InterruptedException e) {
            throw interrupted(e);
        } finally {
            lock.unlock();
        }
    }

    /** Registers an open watch so that {@link #closeWatches} can end it and partitions and stalls can hold it. */
    OpenWatch watchOpened(String group, String plural, String userAgent, Runnable close) {
        OpenWatch w = new OpenWatch(watchIds.incrementAndGet(), group, plural, userAgent, close);
        watches.put(w.id, w);
        return w;
    }

    /** Holds a write to an open watch while a partition or stall applies to it. */
    void holdWatchWrite(OpenWatch w) throws InterruptedIOException {
        if (!holding) {
            return;
        }
        lock.lock();
        try {
            Window countedFor = null;
            while (true) {
                long now = clock.nanoTime();
                Window p = partition;
                Window s = stall;
                Window hold = null;
                if (p != null && !ended(p.end, now) && p.appliesToAgent(w.userAgent)) {
                    hold = p;
                } else if (s != null && !ended(s.end, now) && s.scope.matchesResource(w.group, w.plural)) {
                    hold = s;
                }
                if (closed || hold == null) {
                    return;
                }
                if (hold != countedFor) {
                    metrics.affected(hold.fault, Scope.qualified(w.group, w.plural), "watch");
                    countedFor = hold;
                }
                clock.awaitUntil(lock, changed, hold.end);
            }
        } catch (InterruptedException e) {
            throw interrupted(e);
        } finally {
            lock.unlock();
        }
    }

    void bindMetrics(io.micrometer.core.instrument.MeterRegistry registry) {
        metrics.bind(registry, this::activeCount);
    }

    /** Ends every fault and stops the expiry thread; held requests resume. */
    void close() {
        clear();
        lock.lock();
        try {
            closed = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    // ---- internals

    /** One open watch; {@code closed} makes {@link #closeWatches} close and count it once. */
    static final class OpenWatch {
        final long id;
        final String group;
        final String plural;
        final String userAgent;
        final Runnable close;
        final AtomicBoolean closed = new AtomicBoolean();

        OpenWatch(long id, String group, String plural, String userAgent, Runnable close) {
            this.id = id;
            this.group = group;
            this.plural = plural;
            this.userAgent = userAgent == null ? "" : userAgent;
            this.close = close;
        }
    }

    /** Forgets a watch that has ended. */
    void watchEnded(OpenWatch w) {
        watches.remove(w.id);
    }

    private static final class FailureRule {
        final Failure failure;
        final long end;
        /** Failures left to inject; 0 when unlimited. */
        int remaining;

        FailureRule(Failure failure, long end) {
            this.failure = failure;
            this.end = end;
            this.remaining = failure.countLimit();
        }
    }

    private record LatencyRule(Latency latency, long end) {}

    /** A partition or stall: in force until {@code end} on the clock. */
    private record Window(String fault, long end, String userAgent, Scope scope, Map<String, Object> settings) {
        boolean appliesToAgent(String agent) {
            return userAgent == null || (agent != null && agent.startsWith(userAgent));
        }
    }

    private interface Installer {
        void install(long end);
    }

    private void start(String fault, Scope scope, Map<String, Object> settings, Duration lasting, Installer installer) {
        lock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("the API server is closed");
            }
            long end = lasting == null ? FOREVER : clock.nanoTime() + lasting.toNanos();
            installer.install(end);
            log.info("fault started: {} {}", fault, settings);
            metrics.injected(fault, scope);
            if (end != FOREVER && expiry == null) {
                expiry = Thread.ofVirtual().name("kubeloop-fault-expiry").start(this::expireLoop);
            }
            changedLocked();
        } finally {
            lock.unlock();
        }
    }

    /** Ends timed faults as the clock passes their end, so that each end is logged and the gauge drops. */
    private void expireLoop() {
        lock.lock();
        try {
            while (!closed) {
                long now = clock.nanoTime();
                long next = FOREVER;
                boolean any = false;
                for (Iterator<FailureRule> it = failures.iterator(); it.hasNext(); ) {
                    FailureRule r = it.next();
                    if (ended(r.end, now)) {
                        it.remove();
                        ended("fail", r.failure.describe(), "its duration elapsed");
                        any = true;
                    } else {
                        next = earlier(next, r.end);
                    }
                }
                for (Iterator<LatencyRule> it = latencies.iterator(); it.hasNext(); ) {
                    LatencyRule r = it.next();
                    if (ended(r.end, now)) {
                        it.remove();
                        ended("latency", r.latency.describe(), "its duration elapsed");
                        any = true;
                    } else {
                        next = earlier(next, r.end);
                    }
                }
                if (partition != null && ended(partition.end, now)) {
                    ended("partition", partition.settings, "its duration elapsed");
                    partition = null;
                    any = true;
                } else if (partition != null) {
                    next = earlier(next, partition.end);
                }
                if (stall != null && ended(stall.end, now)) {
                    ended("stall", stall.settings, "its duration elapsed");
                    stall = null;
                    any = true;
                } else if (stall != null) {
                    next = earlier(next, stall.end);
                }
                if (any) {
                    changedLocked();
                }
                if (next == FOREVER) {
                    changed.await();
                } else {
                    clock.awaitUntil(lock, changed, next);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
    }

    private int activeCount(String fault) {
        return (int) active().stream().filter(f -> f.fault().equals(fault)).count();
    }

    /** Called with {@code lock} held after any change: refreshes the fast paths and wakes every waiter. */
    private void changedLocked() {
        requestFaults = !failures.isEmpty() || !latencies.isEmpty();
        holding = partition != null || stall != null;
        changed.signalAll();
    }

    private void replaced(Window current) {
        if (current != null && !ended(current.end, clock.nanoTime())) {
            ended(current.fault, current.settings, "replaced");
        }
    }

    private static void ended(String fault, Map<String, Object> settings, String why) {
        log.info("fault ended: {} {} ({})", fault, settings, why);
    }

    private static boolean ended(long end, long now) {
        return end != FOREVER && end - now <= 0;
    }

    private static long earlier(long a, long b) {
        if (a == FOREVER || b == FOREVER) {
            return a == FOREVER ? b : a;
        }
        return b - a < 0 ? b : a;
    }

    private static Map<String, Object> remaining(Map<String, Object> settings, long end, long now) {
        if (end != FOREVER) {
            settings.put("remainingSeconds", Math.max(0, end - now) / 1e9);
        }
        return settings;
    }

    private static Map<String, Object> seconds(Duration d) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("seconds", d.toMillis() / 1000.0);
        return m;
    }

    private static void requirePositive(Duration duration) {
        Objects.requireNonNull(duration, "duration");
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("seconds must be positive, was " + duration.toMillis() / 1000.0);
        }
    }

    private static InterruptedIOException interrupted(InterruptedException e) {
        Thread.currentThread().interrupt();
        InterruptedIOException io = new InterruptedIOException("interrupted while a fault held the request");
        io.initCause(e);
        return io;
    }
}
