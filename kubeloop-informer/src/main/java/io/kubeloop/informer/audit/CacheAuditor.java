package io.kubeloop.informer.audit;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.kubeloop.clock.Clock;
import io.kubeloop.informer.cache.KeyFunc;
import io.kubeloop.informer.cache.Keys;
import io.kubeloop.informer.cache.KnownObjects;
import io.kubeloop.informer.reflector.ListerWatcher;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks that an informer's cache holds what the server holds: the same keys at the same resourceVersions. The
 * informer is meant to converge on the server's state by construction; the auditor is how an operator finds out
 * when it did not (a lost event, a ghost object left by a missed deletion, a stale copy). It compares versions, not
 * contents: a cached object mutated in place is the mutation detector's business.
 *
 * <pre>{@code
 * ListerWatcher<Pod> source = ListerWatchers.forClient(client.resources(Pod.class).inAnyNamespace());
 * CacheAuditor<Pod> auditor = CacheAuditor.builder(source, podInformer.indexer())
 *         .name("pods")
 *         .meterRegistry(registry)
 *         .build();
 * AuditResult result = auditor.audit();       // or auditor.startPeriodic(Duration.ofMinutes(10))
 * if (!result.isClean()) { ... result.missingInCache(), result.extraInCache(), result.staleInCache() ... }
 * }</pre>
 *
 * <p>How an audit works: list the server (every page, one snapshot), then read the cache, and compare key by key.
 * A cache always lags the server a little, so a difference may just be an event on its way. Every difference
 * found is therefore checked again after the {@linkplain Builder#settleTime settle time}, against a fresh list
 * and the cache as it is then. A key counts as settled, and is not reported, when the cache now holds what the
 * server holds now, or what the server held at the first look (it caught up; a newer change is on its way). What
 * remains is reported: in the returned {@link AuditResult}, in the metrics ({@code informer_cache_drift_objects},
 * {@code informer_cache_audits_total}) and in one log line (INFO when clean, WARN with counts and up to ten keys
 * when not).
 *
 * <p>Consequence of that rule: an object that the cache misses by exactly one update made during the settle time
 * is reported by the next audit, not this one. A key that changes faster than the settle time on every look is
 * never reported; such an object is not drift in the informer's sense (its cache entry keeps moving).
 *
 * <p>Thread-safe. Audits run one at a time (a second caller waits). The source is normally the informer's own
 * {@link ListerWatcher}, so the audit sees the same namespace and selectors as the cache.
 *
 * @param <T> the object type
 */
public final class CacheAuditor<T extends HasMetadata> implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(CacheAuditor.class);

    /** The default settle time. */
    public static final Duration DEFAULT_SETTLE_TIME = Duration.ofSeconds(2);
    /** The default page size of the audit's list, client-go's pager default. */
    public static final int DEFAULT_PAGE_SIZE = 500;
    /** How long {@link #close()} waits for the periodic thread to end. */
    private static final Duration CLOSE_JOIN = Duration.ofSeconds(10);

    private final String name;
    private final ListerWatcher<T> source;
    private final KnownObjects<T> cache;
    private final KeyFunc keyFunc;
    private final Duration settleTime;
    private final int pageSize;
    private final Clock clock;
    private final ThreadFactory threadFactory;
    private final AuditMetrics metrics;

    /** Held for a whole audit: audits run one at a time, so the gauge always shows one audit's result. */
    private final ReentrantLock auditLock = new ReentrantLock();
    /** Guards {@code closed}, {@code periodic} and {@code lastResult}; {@code wake} is signalled on close. */
    private final ReentrantLock stateLock = new ReentrantLock();

    private final Condition wake = stateLock.newCondition();
    private boolean closed;
    private Thread periodic;
    private AuditResult lastResult;

    private CacheAuditor(Builder<T> b) {
        this.name = b.name;
        this.source = b.source;
        this.cache = b.cache;
        this.keyFunc = b.keyFunc;
        this.settleTime = b.settleTime;
        this.pageSize = b.pageSize;
        this.clock = b.clock;
        this.threadFactory = b.threadFactory != null
                ? b.threadFactory
                : Thread.ofVirtual().name("cache-auditor-" + b.name).factory();
        this.metrics = new AuditMetrics(b.name, b.meterRegistry);
    }

    /**
     * A builder of an auditor comparing {@code cache} (an informer's store or indexer) with what {@code source}
     * lists.
     */
    public static <T extends HasMetadata> Builder<T> builder(ListerWatcher<T> source, KnownObjects<T> cache) {
        return new Builder<>(source, cache);
    }

    /** The name that labels this auditor's metrics and log lines. */
    public String name() {
        return name;
    }

    /**
     * Runs one audit now, on the calling thread: lists the server, compares, and if anything differs waits the
     * settle time (on the clock) and checks those keys again. Records the metrics and logs the result.
     *
     * @return the differences that persisted
     * @throws io.kubeloop.client.errors.KubernetesApiException the server answered a list with an error (counted
     *     as {@code result="error"})
     * @throws InterruptedException interrupted while waiting the settle time
     * @throws IllegalStateException the auditor is closed
     */
    public AuditResult audit() throws InterruptedException {
        auditLock.lockInterruptibly();
        try {
            requireOpen();
            AuditResult result;
            try {
                result = compare();
            } catch (RuntimeException e) {
                metrics.failed();
                throw e;
            }
            metrics.completed(result);
            stateLock.lock();
            try {
                lastResult = result;
            } finally {
                stateLock.unlock();
            }
            report(result);
            return result;
        } finally {
            auditLock.unlock();
        }
    }

    /** The result of the last completed audit, if any. */
    public Optional<AuditResult> lastResult() {
        stateLock.lock();
        try {
            return Optional.ofNullable(lastResult);
        } finally {
            stateLock.unlock();
        }
    }

    /**
     * Audits every {@code period} on a thread of its own (the builder's thread factory; by default a virtual
     * thread named {@code cache-auditor-<name>}), until {@link #close()}. The first audit runs one period after
     * this call, so that a freshly started informer can sync first; each next one a period after the previous
     * one ended. A failed audit is logged at WARN and counted; the next one runs as planned.
     *
     * @throws IllegalArgumentException {@code period} is not positive
     * @throws IllegalStateException already started, or closed
     */
    public void startPeriodic(Duration period) {
        Objects.requireNonNull(period, "period");
        if (period.isNegative() || period.isZero()) {
            throw new IllegalArgumentException("period must be positive: " + period);
        }
        long periodNanos = period.toNanos();
        stateLock.lock();
        try {
            requireOpen();
            if (periodic != null) {
                throw new IllegalStateException("cache auditor " + name + " already audits periodically");
            }
            periodic = threadFactory.newThread(() -> runPeriodic(periodNanos));
            periodic.start();
        } finally {
            stateLock.unlock();
        }
        log.info("cache audit {}: every {}", name, period);
    }

    /**
     * Stops periodic audits (interrupting one in progress and waiting for the thread to end) and removes the
     * drift gauge. Idempotent; {@link #audit()} fails afterwards.
     */
    @Override
    public void close() {
        Thread thread;
        stateLock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            thread = periodic;
            wake.signalAll();
        } finally {
            stateLock.unlock();
        }
        if (thread != null) {
            thread.interrupt();
            try {
                if (!thread.join(CLOSE_JOIN)) {
                    log.warn(
                            "cache audit {}: the periodic thread {} did not end within {}",
                            name,
                            thread.getName(),
                            CLOSE_JOIN);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        metrics.close();
    }

    @Override
    public String toString() {
        return "CacheAuditor[" + name + ", settle " + settleTime + "]";
    }

    private boolean isClosed() {
        stateLock.lock();
        try {
            return closed;
        } finally {
            stateLock.unlock();
        }
    }

    private void requireOpen() {
        stateLock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("cache auditor " + name + " is closed");
            }
        } finally {
            stateLock.unlock();
        }
    }

    private AuditResult compare() throws InterruptedException {
        ServerListing first = ServerListing.read(source, keyFunc, pageSize);
        // The cache is read after the server: it lags, so reading it last gives in-flight events the most time.
        Set<String> keys = new HashSet<>(first.resourceVersions().keySet());
        keys.addAll(cache.listKeys());
        Set<String> suspects = new TreeSet<>();
        for (String key : keys) {
            if (!Objects.equals(first.resourceVersions().get(key), cachedVersion(key))) {
                suspects.add(key);
            }
        }
        if (suspects.isEmpty()) {
            return new AuditResult(
                    List.of(), List.of(), List.of(), first.resourceVersions().size(), first.resourceVersion());
        }
        log.debug(
                "cache audit {}: {} keys differ at resourceVersion {}; checking them again in {}",
                name,
                suspects.size(),
                first.resourceVersion(),
                settleTime);
        sleep(settleTime);

        ServerListing second = ServerListing.read(source, keyFunc, pageSize);
        List<String> missing = new ArrayList<>();
        List<String> extra = new ArrayList<>();
        List<AuditResult.StaleObject> stale = new ArrayList<>();
        for (String key : suspects) { // sorted: the result lists come out sorted by key
            String before = first.resourceVersions().get(key);
            String now = second.resourceVersions().get(key);
            String cached = cachedVersion(key);
            if (Objects.equals(cached, now) || Objects.equals(cached, before)) {
                continue; // settled: in flight at the first look
            }
            if (cached == null) {
                missing.add(key);
            } else if (now == null) {
                extra.add(key);
            } else {
                stale.add(new AuditResult.StaleObject(key, cached, now));
            }
        }
        return new AuditResult(missing, extra, stale, second.resourceVersions().size(), second.resourceVersion());
    }

    /** The cached object's resourceVersion; null when the key is absent. */
    private String cachedVersion(String key) {
        return cache.getByKey(key).map(CacheAuditor::resourceVersionOf).orElse(null);
    }

    /** An object's resourceVersion; "" when it has none, so that it differs from an absent key's null. */
    static String resourceVersionOf(HasMetadata object) {
        ObjectMeta meta = object.getMetadata();
        String rv = meta == null ? null : meta.getResourceVersion();
        return rv == null ? "" : rv;
    }

    private void report(AuditResult result) {
        if (result.isClean()) {
            log.info(
                    "cache audit {}: clean, {} objects at resourceVersion {}",
                    name,
                    result.checkedObjects(),
                    result.serverResourceVersion());
        } else {
            log.warn(
                    "cache audit {}: drift: {} missing in cache, {} extra in cache, {} stale in cache (of {} objects"
                            + " at resourceVersion {}), e.g. {}",
                    name,
                    result.missingInCache().size(),
                    result.extraInCache().size(),
                    result.staleInCache().size(),
                    result.checkedObjects(),
                    result.serverResourceVersion(),
                    result.exampleKeys(AuditResult.EXAMPLES));
        }
    }

    /** Waits {@code duration} on the clock; only an interrupt ends it early. */
    private void sleep(Duration duration) throws InterruptedException {
        long deadline = clock.nanoTime() + duration.toNanos();
        ReentrantLock lock = new ReentrantLock();
        Condition never = lock.newCondition();
        lock.lockInterruptibly();
        try {
            while (deadline - clock.nanoTime() > 0) {
                clock.awaitUntil(lock, never, deadline);
            }
        } finally {
            lock.unlock();
        }
    }

    private void runPeriodic(long periodNanos) {
        try {
            while (true) {
                long next = clock.nanoTime() + periodNanos;
                stateLock.lockInterruptibly();
                try {
                    while (!closed && next - clock.nanoTime() > 0) {
                        clock.awaitUntil(stateLock, wake, next);
                    }
                    if (closed) {
                        return;
                    }
                } finally {
                    stateLock.unlock();
                }
                try {
                    audit();
                } catch (RuntimeException e) {
                    if (isClosed()) {
                        return; // closed meanwhile: audit() refused to start
                    }
                    log.warn("cache audit {} failed: {}", name, e.toString());
                }
            }
        } catch (InterruptedException e) {
            // close(): end quietly
        }
    }

    /**
     * Builds a {@link CacheAuditor}.
     *
     * @param <T> the object type
     */
    public static final class Builder<T extends HasMetadata> {
        private final ListerWatcher<T> source;
        private final KnownObjects<T> cache;
        private String name;
        private KeyFunc keyFunc = Keys.META_NAMESPACE;
        private Duration settleTime = DEFAULT_SETTLE_TIME;
        private int pageSize = DEFAULT_PAGE_SIZE;
        private Clock clock = Clock.system();
        private MeterRegistry meterRegistry;
        private ThreadFactory threadFactory;

        private Builder(ListerWatcher<T> source, KnownObjects<T> cache) {
            this.source = Objects.requireNonNull(source, "source");
            this.cache = Objects.requireNonNull(cache, "cache");
        }

        /** Required: labels the metrics ({@code name}) and log lines, e.g. the informer's resource. */
        public Builder<T> name(String name) {
            Objects.requireNonNull(name, "name");
            if (name.isBlank()) {
                throw new IllegalArgumentException("name must not be blank");
            }
            this.name = name;
            return this;
        }

        /**
         * How long a difference may take to settle before it is reported (default 2 s): longer than the
         * informer's usual event latency, shorter than anyone's patience.
         */
        public Builder<T> settleTime(Duration settleTime) {
            Objects.requireNonNull(settleTime, "settleTime");
            if (settleTime.isNegative()) {
                throw new IllegalArgumentException("settleTime must be ≥ 0: " + settleTime);
            }
            this.settleTime = settleTime;
            return this;
        }

        /**
         * The key function of the cache (default: {@link Keys#META_NAMESPACE}, {@code namespace/name} or
         * {@code name} for a cluster-scoped object, as client-go's {@code MetaNamespaceKeyFunc}).
         */
        public Builder<T> keyFunc(KeyFunc keyFunc) {
            this.keyFunc = Objects.requireNonNull(keyFunc, "keyFunc");
            return this;
        }

        /** Objects per page of the audit's list (default 500); 0 lists everything in one request. */
        public Builder<T> pageSize(int pageSize) {
            if (pageSize < 0) {
                throw new IllegalArgumentException("pageSize must be ≥ 0: " + pageSize);
            }
            this.pageSize = pageSize;
            return this;
        }

        /** The clock of the settle time and the periodic mode (default: the system clock). */
        public Builder<T> clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** Where to record the metrics; without one nothing is recorded. */
        public Builder<T> meterRegistry(MeterRegistry meterRegistry) {
            this.meterRegistry = Objects.requireNonNull(meterRegistry, "meterRegistry");
            return this;
        }

        /** Makes the periodic mode's thread (default: a virtual thread named {@code cache-auditor-<name>}). */
        public Builder<T> threadFactory(ThreadFactory threadFactory) {
            this.threadFactory = Objects.requireNonNull(threadFactory, "threadFactory");
            return this;
        }

        /**
         * The auditor.
         *
         * @throws IllegalStateException no {@link #name} was given
         */
        public CacheAuditor<T> build() {
            if (name == null) {
                throw new IllegalStateException("a CacheAuditor needs a name (Builder.name), e.g. the resource");
            }
            return new CacheAuditor<>(this);
        }
    }
}
