package io.kubeloop.informer.fifo;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.kubeloop.clock.Clock;
import io.kubeloop.informer.cache.DeletedFinalStateUnknown;
import io.kubeloop.informer.cache.KeyException;
import io.kubeloop.informer.cache.KeyFunc;
import io.kubeloop.informer.cache.KnownObjects;
import io.kubeloop.informer.reflector.ReflectorStore;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The queue between a Reflector and an informer's process loop: client-go's {@code DeltaFIFO}. It holds, per
 * object key, the ordered list of changes ({@link Delta deltas}) not yet processed, and hands out one key's
 * deltas at a time, in the order the keys were first enqueued.
 *
 * <p>Rules (client-go's, with {@code EmitDeltaTypeReplaced = true} as informers use it):
 *
 * <ul>
 *   <li>A key is in the queue at most once; its position is the time its oldest unprocessed delta arrived, and
 *       later deltas of the same key never move it.
 *   <li>Two consecutive {@link DeltaType#DELETED} deltas of a key collapse into one: the older one is kept,
 *       unless it is a {@link DeletedFinalStateUnknown} tombstone, in which case the newer one is.
 *   <li>{@link #delete} of an object that is neither queued nor known to the consumer is ignored (a relist
 *       already removed it). Without {@code knownObjects}, every delete of an unqueued key is ignored.
 *   <li>{@link #replace} enqueues {@link DeltaType#REPLACED} for every listed object, then a
 *       {@code DELETED(DeletedFinalStateUnknown)} tombstone for every queued key and every known key that is
 *       missing from the list, carrying the newest queued state or else the known object.
 *   <li>{@link #resync} enqueues {@link DeltaType#SYNC} with the known object for every known key that has
 *       nothing queued (a queued delta is newer than the cache; a Sync would be stale).
 *   <li>With {@linkplain Builder#coalesceUpdates coalescing} (the default), an UPDATED or SYNC delta that
 *       arrives while the key's last queued delta is UPDATED or SYNC replaces that delta: the newest object
 *       wins, and the type is UPDATED if either was. A frequently updated object therefore never queues more
 *       than one pending update, and the consumer always sees the latest state. Turn it off for client-go's
 *       exact delivery of every update.
 * </ul>
 *
 * <p>{@link #pop} runs the consumer's {@link PopProcessor} while holding the FIFO's lock, so an informer's cache
 * update is atomic with respect to the Replace, Resync and Delete calls that consult that cache. {@link
 * #hasSynced} turns true once the first Replace's objects (and its tombstones) have all been popped <em>and</em>
 * processed; unlike client-go, never while the last of them is still being processed.
 *
 * <p>Objects whose key cannot be computed are logged at ERROR, with the object's description, and skipped
 * (client-go returns a {@code KeyError} the Reflector only logs); {@link #replace} instead rejects the whole list
 * before changing anything. Thread-safe; one consumer is the norm (several may pop, but may then process
 * different states of one object concurrently).
 *
 * <pre>{@code
 * DeltaFIFO<Pod> fifo = DeltaFIFO.<Pod>builder(Keys.DELETION_HANDLING).knownObjects(indexer).build();
 * // the Reflector calls fifo.replace(...), fifo.add(...), ... on its own thread; the process loop:
 * while (fifo.pop((deltas, initial) -> handleDeltas(deltas, initial)) != null) {}
 * }</pre>
 *
 * @param <T> the object type
 */
public final class DeltaFIFO<T> implements ReflectorStore<T> {

    private static final Logger log = LoggerFactory.getLogger(DeltaFIFO.class);

    /** A pop that processes longer than this while more than {@link #SLOW_DEPTH} keys wait is logged. */
    static final Duration SLOW_PROCESSING = Duration.ofMillis(100);

    static final int SLOW_DEPTH = 10;

    private final String name;
    private final KeyFunc keyFunc;
    private final KnownObjects<T> knownObjects; // null: the consumer's state is not consulted
    private final boolean coalesceUpdates;
    private final UnaryOperator<T> transformer; // null: objects are queued as given
    private final Clock clock;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();

    /*
     * Guarded by lock. Invariants: key ∈ queue ⟺ key ∈ items; queue holds no duplicates; every list in items is
     * non-empty and ordered oldest first.
     */
    private final HashMap<String, ArrayList<Delta<T>>> items = new HashMap<>();
    private final ArrayDeque<String> queue = new ArrayDeque<>();

    /** Guarded by lock: a Replace, Add, Update or Delete has happened. */
    private boolean populated;

    /**
     * Guarded by lock: keys of the initial population (the first Replace's listed keys and tombstones) not yet
     * processed; null before the first population and once it has been processed. Each such key is in the queue,
     * since only pop removes keys.
     */
    private HashSet<String> initialKeys;

    /** Written under lock, once, when the initial population has been processed; never goes back. */
    private volatile boolean synced;

    private volatile boolean closed;

    private DeltaFIFO(Builder<T> b) {
        this.name = b.name;
        this.keyFunc = b.keyFunc;
        this.knownObjects = b.knownObjects;
        this.coalesceUpdates = b.coalesceUpdates;
        this.transformer = b.transformer;
        this.clock = b.clock;
    }

    /**
     * A builder of a FIFO that keys objects with {@code keyFunc}. Give the type explicitly when chaining:
     * {@code DeltaFIFO.<Pod>builder(keyFunc)}.
     */
    public static <T> Builder<T> builder(KeyFunc keyFunc) {
        return new Builder<>(keyFunc);
    }

    /**
     * Thrown by a {@link PopProcessor} to put the popped deltas back into the FIFO (client-go's {@code ErrRequeue}).
     * With a cause, {@link #pop} hands the cause back to its caller in a {@link RequeuedException} once the deltas
     * are requeued, as client-go's {@code Pop} returns {@code ErrRequeue}'s inner error; without one, {@code pop}
     * returns normally.
     */
    public static final class RequeueException extends Exception {
        private static final long serialVersionUID = 1L;

        public RequeueException() {
            super("requeue", null, false, false);
        }

        /** {@code cause} says why; {@link #pop} throws it to its caller inside a {@link RequeuedException}. */
        public RequeueException(Throwable cause) {
            super("requeue", cause, false, false);
        }
    }

    /**
     * Thrown by {@link #pop} after its processor asked for a requeue with a cause ({@code getCause()}): the popped
     * deltas are back at the end of the queue ({@link #putBack()} true), or were dropped because newer deltas of the
     * key had been queued meanwhile (false; only possible when the processor itself writes to the FIFO). Either way
     * nothing is lost and the FIFO is consistent: a consumer loop logs it and pops again.
     */
    public static final class RequeuedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        private final String key;
        private final boolean putBack;

        RequeuedException(String fifoName, String key, boolean putBack, Throwable cause) {
            super(
                    "DeltaFIFO " + fifoName + ": processing " + key + " asked for a requeue ("
                            + (putBack
                                    ? "its deltas are back in the queue"
                                    : "dropped: newer deltas of the key were queued")
                            + "): " + cause,
                    cause);
            this.key = key;
            this.putBack = putBack;
        }

        /** The key whose deltas were requeued. */
        public String key() {
            return key;
        }

        /** True when the deltas are back in the queue; false when newer deltas of the key superseded them. */
        public boolean putBack() {
            return putBack;
        }
    }

    // ---------------------------------------------------------------- ReflectorStore

    /**
     * Enqueues {@link DeltaType#ADDED}. An object without a key is logged at ERROR and skipped.
     *
     * @throws NullPointerException {@code object} is null
     */
    @Override
    public void add(T object) {
        enqueueEvent(DeltaType.ADDED, object);
    }

    /**
     * Enqueues {@link DeltaType#UPDATED} (coalesced with a pending update when coalescing is on). An object
     * without a key is logged at ERROR and skipped.
     */
    @Override
    public void update(T object) {
        enqueueEvent(DeltaType.UPDATED, object);
    }

    /**
     * Enqueues {@link DeltaType#DELETED}, unless the key has nothing queued and the known objects do not hold it
     * (without known objects: unless the key has nothing queued). A known-objects lookup that fails counts as
     * "may exist". {@code object} may be a {@link DeletedFinalStateUnknown}.
     */
    @Override
    public void delete(T object) {
        Objects.requireNonNull(object, "object");
        lock.lock();
        try {
            markPopulatedByEvent();
            String key = keyOrLog(DeltaType.DELETED, object);
            if (key == null) {
                return;
            }
            if (!items.containsKey(key) && !mayBeKnown(key)) {
                return; // presumably removed by a relist already: nothing to tell the consumer
            }
            Object queued = transformOrLog(DeltaType.DELETED, object);
            if (queued != null) {
                enqueueLocked(DeltaType.DELETED, queued, key);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * The object {@code namespace}/{@code name} changed into (or was deleted in) a state that does not decode: enqueues
     * a {@code DELETED(DeletedFinalStateUnknown)} tombstone carrying its newest queued state or else the known object,
     * as {@link #replace} does for an object missing from a list; nothing when the key is neither queued nor known.
     * The key is {@code namespace/name} ({@code name} when the namespace is empty), the form of
     * {@code Keys.META_NAMESPACE} and {@code Keys.DELETION_HANDLING}.
     */
    @Override
    public void removeUndecodable(String objectNamespace, String objectName) {
        Objects.requireNonNull(objectName, "objectName");
        String key =
                objectNamespace == null || objectNamespace.isEmpty() ? objectName : objectNamespace + "/" + objectName;
        lock.lock();
        try {
            markPopulatedByEvent();
            Object last = null;
            List<Delta<T>> deltas = items.get(key);
            if (deltas != null) {
                last = deltas.get(deltas.size() - 1).object();
            } else if (knownObjects != null) {
                try {
                    last = knownObjects.getByKey(key).orElse(null);
                } catch (RuntimeException e) {
                    log.warn("DeltaFIFO {}: looking up known key {} failed; its tombstone has no object", name, key, e);
                }
                if (last == null) {
                    return; // not cached: nothing to drop
                }
            } else {
                return;
            }
            if (last instanceof DeletedFinalStateUnknown<?> tombstone) {
                last = tombstone.object();
            }
            enqueueLocked(DeltaType.DELETED, new DeletedFinalStateUnknown<>(key, last), key);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Enqueues {@link DeltaType#REPLACED} for every object in list order, then a tombstone for every queued or
     * known key missing from the list. Atomic: keys (and the transformer) are applied to every object first, and
     * if one fails nothing is enqueued and the error is thrown. {@code resourceVersion} is not used.
     *
     * @throws KeyException an object has no key (the message names it)
     * @throws IllegalStateException the transformer failed on an object (the message names it)
     * @throws NullPointerException {@code objects} or one of its elements is null
     */
    @Override
    public void replace(Collection<? extends T> objects, String resourceVersion) {
        Objects.requireNonNull(objects, "objects");
        // Outside the lock: key and transform are pure functions of the object, and the list may be large.
        int n = objects.size();
        String[] keys = new String[n];
        Object[] queued = new Object[n];
        int i = 0;
        for (T object : objects) {
            if (i == n) {
                throw new IllegalArgumentException("DeltaFIFO " + name + ": the replace list grew while being read");
            }
            if (object == null) {
                throw new NullPointerException("DeltaFIFO " + name + ": replace list item " + i + " is null");
            }
            keys[i] = keyForReplace(object, i);
            queued[i] = transformForReplace(object, i);
            i++;
        }
        if (i != n) {
            throw new IllegalArgumentException("DeltaFIFO " + name + ": the replace list shrank while being read");
        }

        lock.lock();
        try {
            HashSet<String> listed = HashSet.newHashSet(n);
            for (int j = 0; j < n; j++) {
                listed.add(keys[j]);
                enqueueLocked(DeltaType.REPLACED, queued[j], keys[j]);
            }
            List<String> tombstoned = new ArrayList<>();

            // Keys only in the queue: created (and maybe deleted) while the watch was down, never processed.
            // Without this they would reach the cache and stay there (kubernetes#115658).
            for (String key : queue) {
                if (!listed.contains(key)) {
                    tombstoned.add(key);
                }
            }
            for (String key : tombstoned) {
                List<Delta<T>> deltas = items.get(key);
                Object newest = deltas.get(deltas.size() - 1).object(); // a tombstone's is unwrapped, not nested
                enqueueLocked(DeltaType.DELETED, new DeletedFinalStateUnknown<>(key, newest), key);
            }
            int queuedOnly = tombstoned.size();

            // Keys the consumer knows, with nothing queued: deleted while the watch was down.
            if (knownObjects != null) {
                for (String key : knownObjects.listKeys()) {
                    if (listed.contains(key) || items.containsKey(key)) {
                        continue;
                    }
                    Object last = null;
                    try {
                        last = knownObjects.getByKey(key).orElse(null);
                        if (last == null) {
                            log.warn(
                                    "DeltaFIFO {}: known key {} vanished during replace; its tombstone has no object",
                                    name,
                                    key);
                        }
                    } catch (RuntimeException e) {
                        log.warn(
                                "DeltaFIFO {}: looking up known key {} failed; its tombstone has no object",
                                name,
                                key,
                                e);
                    }
                    enqueueLocked(DeltaType.DELETED, new DeletedFinalStateUnknown<>(key, last), key);
                    tombstoned.add(key);
                }
            }
            if (log.isDebugEnabled()) {
                log.debug(
                        "DeltaFIFO {}: replace with {} objects at resourceVersion {}: {} tombstones ({} queued-only,"
                                + " {} known)",
                        name,
                        n,
                        resourceVersion,
                        tombstoned.size(),
                        queuedOnly,
                        tombstoned.size() - queuedOnly);
            }
            if (!populated) {
                populated = true;
                listed.addAll(tombstoned);
                if (listed.isEmpty()) {
                    synced = true;
                } else {
                    initialKeys = listed;
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Enqueues {@link DeltaType#SYNC} with the known object for every known key that has nothing queued. Does
     * nothing without known objects. Objects are not transformed again (they already were on their way in).
     */
    @Override
    public void resync() {
        if (knownObjects == null) {
            return;
        }
        lock.lock();
        try {
            for (String key : knownObjects.listKeys()) {
                if (items.containsKey(key)) {
                    continue; // a queued delta is newer than the cache's object
                }
                Optional<T> known;
                try {
                    known = knownObjects.getByKey(key);
                } catch (RuntimeException e) {
                    log.warn("DeltaFIFO {}: resync: looking up known key {} failed; skipped", name, key, e);
                    continue;
                }
                if (known.isEmpty()) {
                    log.debug("DeltaFIFO {}: resync: known key {} vanished; skipped", name, key);
                    continue;
                }
                enqueueLocked(DeltaType.SYNC, known.get(), key);
            }
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- consumer side

    /**
     * Waits until a key is queued, removes it with its deltas, and runs {@code process} on them while holding the
     * FIFO's lock. Returns the deltas (not modifiable), or {@code null} once the FIFO is {@linkplain #close()
     * closed} and empty: a closed FIFO still hands out what it holds (client-go's semantics), so callers that want
     * to stop at once check their own stop flag.
     *
     * <p>If {@code process} throws {@link RequeueException}, the deltas are put back at the end of the queue
     * (unless the key was enqueued again meanwhile: then the newer deltas win and these are dropped) and they stay
     * part of the initial population if they were; then pop returns them normally if the exception has no cause,
     * or throws a {@link RequeuedException} carrying that cause (client-go's {@code Pop} returns
     * {@code ErrRequeue}'s inner error the same way). Any other exception is rethrown (checked ones wrapped in a
     * {@link RuntimeException}) after the deltas are gone for good.
     *
     * @throws RequeuedException the processor asked for a requeue with a cause; the deltas were requeued
     * @throws InterruptedException interrupted while waiting (nothing was popped), or {@code process} threw it
     *     (the deltas are gone)
     */
    public List<Delta<T>> pop(PopProcessor<T> process) throws InterruptedException {
        Objects.requireNonNull(process, "process");
        lock.lockInterruptibly();
        try {
            while (queue.isEmpty()) {
                if (closed) {
                    return null;
                }
                notEmpty.await();
            }
            String key = queue.poll();
            ArrayList<Delta<T>> deltas = items.remove(key);
            boolean initial = initialKeys != null && initialKeys.contains(key);
            List<Delta<T>> view = Collections.unmodifiableList(deltas);
            long start = clock.nanoTime();
            Throwable failure = null;
            boolean requeue = false;
            Throwable requeueCause = null;
            try {
                process.process(view, initial);
            } catch (RequeueException e) {
                requeue = true;
                requeueCause = e.getCause();
            } catch (Throwable t) {
                failure = t;
            }
            boolean putBack = requeue && !items.containsKey(key);
            if (putBack) {
                items.put(key, deltas);
                queue.add(key);
                notEmpty.signal();
                view = List.copyOf(deltas); // the queued list grows again; what we return must not
            } else if (initial) {
                // Requeued deltas of an initial key stay initial; dropped or processed ones leave the population.
                if (!items.containsKey(key)) {
                    initialKeys.remove(key);
                    if (initialKeys.isEmpty()) {
                        initialKeys = null;
                        synced = true;
                    }
                }
            }
            traceSlow(key, start);
            if (failure != null) {
                throw rethrow(failure, key);
            }
            if (requeueCause != null) {
                throw new RequeuedException(name, key, putBack, requeueCause);
            }
            return view;
        } finally {
            lock.unlock();
        }
    }

    /**
     * True once the initial population has been processed: after the first {@link #replace} (or an add, update
     * or delete before any replace), when every key it listed or tombstoned has been popped and its
     * {@link PopProcessor} has returned. Never goes back to false.
     */
    public boolean hasSynced() {
        return synced;
    }

    /** Marks the FIFO closed and wakes every blocked {@link #pop}; queued deltas can still be popped. Idempotent. */
    public void close() {
        lock.lock();
        try {
            closed = true;
            notEmpty.signalAll();
        } finally {
            lock.unlock();
        }
    }

    public boolean isClosed() {
        return closed;
    }

    /** The number of queued keys. */
    public int size() {
        lock.lock();
        try {
            return queue.size();
        } finally {
            lock.unlock();
        }
    }

    public boolean isEmpty() {
        return size() == 0;
    }

    /** The queued keys, in the order they will be popped. */
    public List<String> listKeys() {
        lock.lock();
        try {
            return List.copyOf(queue);
        } finally {
            lock.unlock();
        }
    }

    /** A copy of the deltas queued under {@code key}, oldest first. */
    public Optional<List<Delta<T>>> getByKey(String key) {
        Objects.requireNonNull(key, "key");
        lock.lock();
        try {
            ArrayList<Delta<T>> deltas = items.get(key);
            return deltas == null ? Optional.empty() : Optional.of(List.copyOf(deltas));
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "DeltaFIFO[" + name + ", " + size() + " keys queued" + (closed ? ", closed" : "") + "]";
    }

    // ---------------------------------------------------------------- internals

    private void enqueueEvent(DeltaType type, T object) {
        Objects.requireNonNull(object, "object");
        lock.lock();
        try {
            markPopulatedByEvent();
            String key = keyOrLog(type, object);
            if (key == null) {
                return;
            }
            Object queued = transformOrLog(type, object);
            if (queued != null) {
                enqueueLocked(type, queued, key);
            }
        } finally {
            lock.unlock();
        }
    }

    /** An event before any Replace: there is no initial list, so the FIFO is synced at once. */
    private void markPopulatedByEvent() {
        if (!populated) {
            populated = true;
            synced = true;
        }
    }

    /** Appends one delta to {@code key}'s list, applying coalescing and Deleted-dedup. Caller holds lock. */
    private void enqueueLocked(DeltaType type, Object object, String key) {
        Delta<T> delta = Delta.ofQueued(type, object);
        ArrayList<Delta<T>> deltas = items.get(key);
        if (deltas == null) {
            deltas = new ArrayList<>(2);
            deltas.add(delta);
            items.put(key, deltas);
            queue.add(key);
            notEmpty.signal();
            return;
        }
        int last = deltas.size() - 1;
        DeltaType lastType = deltas.get(last).type();
        if (coalesceUpdates && isUpdateOrSync(type) && isUpdateOrSync(lastType)) {
            DeltaType merged =
                    type == DeltaType.UPDATED || lastType == DeltaType.UPDATED ? DeltaType.UPDATED : DeltaType.SYNC;
            deltas.set(last, merged == type ? delta : Delta.ofQueued(merged, object));
            return;
        }
        if (type == DeltaType.DELETED && lastType == DeltaType.DELETED) {
            // Two deletions in a row are one: keep the one that knows more (a tombstone knows less).
            if (deltas.get(last).isTombstone()) {
                deltas.set(last, delta);
            }
            return;
        }
        deltas.add(delta);
    }

    private static boolean isUpdateOrSync(DeltaType type) {
        return type == DeltaType.UPDATED || type == DeltaType.SYNC;
    }

    private boolean mayBeKnown(String key) {
        if (knownObjects == null) {
            return false;
        }
        try {
            return knownObjects.getByKey(key).isPresent();
        } catch (RuntimeException e) {
            log.warn("DeltaFIFO {}: looking up known key {} failed; enqueueing its deletion anyway", name, key, e);
            return true;
        }
    }

    /** The key of a tombstone is its own; every other object's comes from the key function. */
    private String keyOf(Object object) {
        if (object instanceof DeletedFinalStateUnknown<?> tombstone) {
            return tombstone.key();
        }
        String key = keyFunc.keyOf(object);
        if (key == null) {
            throw new KeyException("the key function returned null");
        }
        return key;
    }

    private String keyOrLog(DeltaType type, Object object) {
        try {
            return keyOf(object);
        } catch (RuntimeException e) {
            log.error(
                    "DeltaFIFO {}: dropping {} of {}: no key: {}. The consumer will not see this change until the"
                            + " next relist.",
                    name,
                    type,
                    describe(object),
                    e.toString());
            return null;
        }
    }

    private Object transformOrLog(DeltaType type, T object) {
        if (transformer == null || object instanceof DeletedFinalStateUnknown<?>) {
            return object;
        }
        try {
            return Objects.requireNonNull(transformer.apply(object), "the transformer returned null");
        } catch (RuntimeException e) {
            log.error(
                    "DeltaFIFO {}: dropping {} of {}: the transformer failed. The consumer will not see this"
                            + " change until the next relist.",
                    name,
                    type,
                    describe(object),
                    e);
            return null;
        }
    }

    private String keyForReplace(T object, int index) {
        try {
            return keyOf(object);
        } catch (KeyException e) {
            throw new KeyException("DeltaFIFO " + name + ": cannot replace: list item " + index + " ("
                    + describe(object) + ") has no key: " + e.getMessage());
        } catch (RuntimeException e) {
            throw new KeyException("DeltaFIFO " + name + ": cannot replace: the key function failed on list item "
                    + index + " (" + describe(object) + "): " + e);
        }
    }

    private Object transformForReplace(T object, int index) {
        if (transformer == null || object instanceof DeletedFinalStateUnknown<?>) {
            return object;
        }
        try {
            return Objects.requireNonNull(transformer.apply(object), "the transformer returned null");
        } catch (RuntimeException e) {
            throw new IllegalStateException(
                    "DeltaFIFO " + name + ": cannot replace: the transformer failed on list" + " item " + index + " ("
                            + describe(object) + ")",
                    e);
        }
    }

    private void traceSlow(String key, long startNanos) {
        long took = clock.nanoTime() - startNanos;
        if (queue.size() > SLOW_DEPTH && took > SLOW_PROCESSING.toNanos()) {
            log.info(
                    "DeltaFIFO {}: processing {} took {} ms while {} keys wait: slow processing blocks the queue"
                            + " and the Reflector",
                    name,
                    key,
                    took / 1_000_000,
                    queue.size());
        }
    }

    private RuntimeException rethrow(Throwable failure, String key) throws InterruptedException {
        if (failure instanceof InterruptedException e) {
            throw e;
        }
        if (failure instanceof RuntimeException e) {
            return e;
        }
        if (failure instanceof Error e) {
            throw e;
        }
        return new RuntimeException("DeltaFIFO " + name + ": processing the deltas of " + key + " failed", failure);
    }

    /** What an object is, for a log line: kind, namespace/name and uid when it has them. */
    static String describe(Object object) {
        if (object instanceof DeletedFinalStateUnknown<?> tombstone) {
            return "tombstone of " + tombstone.key();
        }
        if (object instanceof HasMetadata resource) {
            String kind = resource.getKind() == null || resource.getKind().isEmpty()
                    ? object.getClass().getSimpleName()
                    : resource.getKind();
            ObjectMeta meta = resource.getMetadata();
            if (meta == null) {
                return kind + " without metadata";
            }
            String name = meta.getName() == null || meta.getName().isEmpty() ? "<no name>" : meta.getName();
            String ns = meta.getNamespace() == null || meta.getNamespace().isEmpty() ? "" : meta.getNamespace() + "/";
            return kind + " " + ns + name + (meta.getUid() == null ? "" : " (uid " + meta.getUid() + ")");
        }
        return object == null ? "null" : object.getClass().getName();
    }

    /** Configures a {@link DeltaFIFO}. */
    public static final class Builder<T> {
        private final KeyFunc keyFunc;
        private KnownObjects<T> knownObjects;
        private boolean coalesceUpdates = true;
        private UnaryOperator<T> transformer;
        private Clock clock = Clock.system();
        private String name = "deltafifo";

        private Builder(KeyFunc keyFunc) {
            this.keyFunc = Objects.requireNonNull(keyFunc, "keyFunc");
        }

        /**
         * What the consumer already knows (an informer's indexer), consulted by delete, replace and resync;
         * {@code null} (the default) for none.
         */
        public Builder<T> knownObjects(KnownObjects<T> knownObjects) {
            this.knownObjects = knownObjects;
            return this;
        }

        /** Whether consecutive UPDATED/SYNC deltas of a key merge into the newest one (default true). */
        public Builder<T> coalesceUpdates(boolean coalesceUpdates) {
            this.coalesceUpdates = coalesceUpdates;
            return this;
        }

        /**
         * Applied once to every object on its way in (added, updated, deleted and listed objects), before it is
         * queued; never to tombstones or to the known objects a resync re-queues. {@code null} (the default) for
         * none. Must not return null. An informer's transform belongs here, so queued objects are already small.
         */
        public Builder<T> transformer(UnaryOperator<T> transformer) {
            this.transformer = transformer;
            return this;
        }

        /** The clock that times the process function for the slow-processing log line. */
        public Builder<T> clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** A name for log lines, such as the informer's (default {@code "deltafifo"}). */
        public Builder<T> name(String name) {
            Objects.requireNonNull(name, "name");
            if (name.isBlank()) {
                throw new IllegalArgumentException("a DeltaFIFO name must not be blank");
            }
            this.name = name;
            return this;
        }

        public DeltaFIFO<T> build() {
            return new DeltaFIFO<>(this);
        }
    }
}
