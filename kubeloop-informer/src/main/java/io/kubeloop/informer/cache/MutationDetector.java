package io.kubeloop.informer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kubeloop.clock.Clock;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The engine behind {@link CacheMutationDetector}: watches the stores it made ({@link DetectingIndexer}) and
 * compares their objects with JSON copies taken at write time, every {@code period} on its own thread and on
 * demand.
 *
 * <p>Invariants: a mutation is logged and queued in {@link #unreported} exactly once, when first found (the
 * thread that sets {@link Copy#mutation} reports it); {@link #checkNow()} drains the queue, so each mutation fails
 * at most one check. A write of the mutated key throws it again: that write is where the informer meets it. Stores are held weakly: a store nobody uses any more is
 * forgotten with its copies.
 */
final class MutationDetector {

    private static final Logger log = LoggerFactory.getLogger(CacheMutationDetector.class);

    /** Differences shown per mutation. */
    static final int MAX_DIFFERENCES = 5;

    private static final JsonMapper JSON = JsonMapper.builder()
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
            .build();

    private static final class Holder {
        static final MutationDetector GLOBAL = new MutationDetector(
                Clock.system(),
                Duration.ofSeconds(CacheMutationDetector.PERIOD_SECONDS),
                Duration.ofSeconds(CacheMutationDetector.RETENTION_SECONDS),
                Thread.ofPlatform()
                        .name(CacheMutationDetector.THREAD_NAME)
                        .daemon(true)
                        .factory());
    }

    /** Set once the global detector exists, so {@link #checkGlobal()} does not create it needlessly. */
    private static volatile boolean globalCreated;

    private final Clock clock;
    private final long periodNanos;
    private final long retentionNanos;
    private final ThreadFactory threadFactory;
    private final CopyOnWriteArrayList<WeakReference<DetectingIndexer<?>>> stores = new CopyOnWriteArrayList<>();
    private final ConcurrentLinkedQueue<Mutation> unreported = new ConcurrentLinkedQueue<>();
    /** Classes that could not be serialised, warned about once each. */
    private final Set<Class<?>> unserialisable = ConcurrentHashMap.newKeySet();

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition wake = lock.newCondition();
    /** Guarded by {@link #lock}. */
    private Thread thread;
    /** Guarded by {@link #lock}. */
    private boolean closed;

    MutationDetector(Clock clock, Duration period, Duration retention, ThreadFactory threadFactory) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.periodNanos = period.toNanos();
        this.retentionNanos = retention.toNanos();
        this.threadFactory = Objects.requireNonNull(threadFactory, "threadFactory");
    }

    static MutationDetector global() {
        globalCreated = true;
        return Holder.GLOBAL;
    }

    static void checkGlobal() {
        if (globalCreated) {
            Holder.GLOBAL.checkNow();
        }
    }

    /** A store over {@code delegate} that this detector watches; starts the checking thread on first use. */
    <T> Indexer<T> watch(ThreadSafeIndexer<T> delegate, KeyFunc keyFunc) {
        DetectingIndexer<T> store = new DetectingIndexer<>(delegate, keyFunc, this);
        stores.add(new WeakReference<>(store));
        lock.lock();
        try {
            if (thread == null && !closed) {
                log.warn(
                        "cache mutation detector is on: every cached object is copied and compared every {} ms; "
                                + "this costs memory and CPU and is meant for tests",
                        periodNanos / 1_000_000);
                thread = threadFactory.newThread(this::run);
                thread.start();
            }
        } finally {
            lock.unlock();
        }
        return store;
    }

    /**
     * Compares every copy now and throws for every mutation not reported by a check before.
     *
     * @throws CacheMutationException naming them
     */
    void checkNow() {
        checkAll();
        List<Mutation> found = new ArrayList<>();
        for (Mutation m; (m = unreported.poll()) != null; ) {
            found.add(m);
        }
        if (!found.isEmpty()) {
            throw new CacheMutationException(found);
        }
    }

    /** One round over every store: compare, report new mutations, drop copies past retention. */
    void checkAll() {
        long now = clock.nanoTime();
        for (WeakReference<DetectingIndexer<?>> ref : stores) {
            DetectingIndexer<?> store = ref.get();
            if (store == null) {
                stores.remove(ref);
            } else {
                store.checkCopies(now, retentionNanos);
            }
        }
    }

    /** Mutations found and not yet reported by {@link #checkNow()}; for tests. */
    List<Mutation> pending() {
        return List.copyOf(unreported);
    }

    /** Stops the checking thread (the global detector is never closed). */
    void close() {
        Thread t;
        lock.lock();
        try {
            closed = true;
            wake.signalAll();
            t = thread;
        } finally {
            lock.unlock();
        }
        if (t != null) {
            try {
                t.join(Duration.ofSeconds(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void run() {
        lock.lock();
        try {
            long next = clock.nanoTime() + periodNanos;
            while (!closed) {
                if (clock.nanoTime() - next < 0) {
                    clock.awaitUntil(lock, wake, next);
                    continue;
                }
                long started = clock.nanoTime();
                lock.unlock();
                try {
                    checkAll();
                } catch (RuntimeException e) {
                    log.error("cache mutation check failed", e);
                } finally {
                    lock.lock();
                }
                // A round that took longer than the period is followed by a pause as long as the round, so the
                // detector never takes more than half a core, whatever the size of the caches.
                long elapsed = clock.nanoTime() - started;
                next = clock.nanoTime() + Math.max(periodNanos, elapsed);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------------------------------------
    // Copies

    /** The JSON of {@code object}, or null when it cannot be serialised (then it is not watched; warned once). */
    byte[] serialise(Object object) {
        try {
            return JSON.writeValueAsBytes(object);
        } catch (JacksonException e) {
            if (unserialisable.add(object.getClass())) {
                log.warn(
                        "cache mutation detector cannot copy objects of {} and does not watch them: {}",
                        object.getClass().getName(),
                        e.getOriginalMessage());
            }
            return null;
        }
    }

    /** A copy of {@code object} stored under {@code key}, taken now. */
    <T> Copy<T> copy(String key, T object) {
        return new Copy<>(key, object, serialise(object), clock.nanoTime(), describe(key, object));
    }

    /**
     * The mutation of {@code copy}'s object, or null when it is unchanged (or not watched). Once found, the same
     * mutation is returned by every later call without comparing again; it is logged and queued only the first
     * time.
     */
    Mutation verify(Copy<?> copy) {
        Mutation known = copy.mutation.get();
        if (known != null || copy.json == null) {
            return known;
        }
        byte[] now;
        String failure = null;
        try {
            now = JSON.writeValueAsBytes(copy.object);
        } catch (RuntimeException e) {
            // e.g. a ConcurrentModificationException: the object is being changed right now.
            now = null;
            failure = "it could not be serialised (" + e + "), most likely because it is being changed concurrently";
        }
        if (now != null && Arrays.equals(now, copy.json)) {
            return null;
        }
        List<String> differences = failure != null
                ? List.of(failure)
                : JsonDiff.differences(JSON, copy.json, now, MAX_DIFFERENCES, copy.description.startsWith("Secret "));
        Mutation mutation = new Mutation(copy.description, differences);
        if (!copy.mutation.compareAndSet(null, mutation)) {
            return copy.mutation.get();
        }
        log.error(
                "CACHE MUTATION: {}. Cached objects are shared and must never be mutated: copy before changing.",
                mutation.describe());
        unreported.add(mutation);
        return mutation;
    }

    private static String describe(String key, Object object) {
        if (object instanceof HasMetadata resource) {
            String rv = resource.getMetadata() == null
                    ? null
                    : resource.getMetadata().getResourceVersion();
            return Keys.kindOf(resource) + " " + key + " (resourceVersion " + (rv == null ? "none" : rv) + ")";
        }
        return object.getClass().getSimpleName() + " " + key;
    }

    /**
     * An object as it was stored, with its JSON at that time ({@code json} null: not watched).
     *
     * @param <T> the object type
     */
    static final class Copy<T> {
        final String key;
        final T object;
        final byte[] json;
        final long storedAtNanos;
        final String description;
        /** Set once, when the mutation is first found. */
        final AtomicReference<Mutation> mutation = new AtomicReference<>();

        Copy(String key, T object, byte[] json, long storedAtNanos, String description) {
            this.key = key;
            this.object = object;
            this.json = json;
            this.storedAtNanos = storedAtNanos;
            this.description = description;
        }
    }

    /**
     * A mutation found: the object ({@code Kind namespace/name (resourceVersion N)}) and what changed.
     *
     * @param object the object's description
     * @param differences at most {@link #MAX_DIFFERENCES} changes, each {@code path: before -> after}
     */
    record Mutation(String object, List<String> differences) {
        String describe() {
            return object + " was changed after it was stored in the cache; changes: " + String.join("; ", differences);
        }
    }
}
