package io.kubeloop.apiserver.internal.storage;

import io.kubeloop.clock.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The one implementation of {@link StoreWatch}: a bounded buffer between the store's writers and one consumer.
 *
 * <p>Events reach the consumer in this order, each part strictly after the previous in revision:
 * the initial objects and the BOOKMARK of a {@link Store#listAndWatch} ({@code initialState}), or the history
 * replayed by {@link Store#watch} ({@code replay}); then the {@code live} events, which writers add under the
 * store's write lock, in revision order, through {@link #offer}. The store registers a watcher and computes its
 * replay under its write lock, so the replay ends exactly where the live events begin.
 *
 * <p>Invariants, under {@code lock}: {@code live} holds at most {@code capacity} events; once
 * {@code endReason} is set, nothing but {@code finalEvent} (an ERROR, if any) remains to be taken and nothing is
 * added; {@code lastTaken} is the revision of the last event taken (or the start revision), and
 * {@code lastBookmark} the last bookmark handed out, both non-decreasing.
 *
 * <p>Lock order: the store's write lock, then this watcher's {@code lock}. Nothing here calls the store while
 * holding {@code lock}.
 */
final class Watcher implements StoreWatch {

    private static final Duration FOREVER = Duration.ofDays(365L * 100);

    final String group;
    final String resource;
    /** One namespace, or null for all. */
    final String namespace;
    /** Live events at or below this revision are not for this watcher. */
    final long startRevision;

    private final Predicate<ObjectNode> filter;
    private final int capacity;
    private final Clock clock;
    private final MvccStore store;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();

    /** Guarded by {@code lock}: listAndWatch's objects, then (if {@code markerPending}) its BOOKMARK. */
    private List<Version> initialState = List.of();

    private int initialIndex;
    private boolean markerPending;
    /** Guarded by {@code lock}: history events before the live ones. */
    private List<StoreEvent> replay = List.of();

    private int replayIndex;
    /** Guarded by {@code lock}. */
    private final ArrayDeque<StoreEvent> live = new ArrayDeque<>();

    private long lastTaken;
    private long lastBookmark;
    private EndReason endReason;
    private StoreEvent finalEvent;

    Watcher(
            MvccStore store,
            Clock clock,
            String group,
            String resource,
            String namespace,
            long startRevision,
            Predicate<ObjectNode> filter,
            int capacity,
            boolean sendInitialState) {
        this.store = store;
        this.clock = clock;
        this.group = group;
        this.resource = resource;
        this.namespace = namespace;
        this.startRevision = startRevision;
        this.filter = filter;
        this.capacity = capacity;
        this.markerPending = sendInitialState;
        this.lastTaken = startRevision;
    }

    /** A watcher that has already ended with one ERROR event. */
    static Watcher failed(MvccStore store, Clock clock, StorageException error, EndReason reason) {
        Watcher w = new Watcher(store, clock, "", "", null, 0, null, 1, false);
        w.end(reason, new StoreEvent(StoreEvent.Type.ERROR, error.toStatus(), 0));
        return w;
    }

    /** Whether a write to {@code key} belongs to this watcher's range. */
    boolean covers(StorageKey key) {
        return key.resource().equals(resource)
                && key.group().equals(group)
                && (namespace == null || namespace.equals(key.namespace()));
    }

    /**
     * The event this watcher gets for the write {@code v} (whose unfiltered event is {@code natural}), or null
     * if none: kube-apiserver's watch-cache rules for filtered watchers.
     */
    StoreEvent eventFor(Version v, StoreEvent natural) {
        if (filter == null) {
            return natural;
        }
        ObjectNode previous = v.previousObject();
        boolean oldPasses = previous != null && filter.test(previous);
        boolean newPasses = !v.deleted && filter.test(v.object);
        if (newPasses) {
            return new StoreEvent(oldPasses ? StoreEvent.Type.MODIFIED : StoreEvent.Type.ADDED, v.object, v.revision);
        }
        if (!oldPasses) {
            return null;
        }
        // Stopped matching: DELETED with the previous (matching) content, carrying this write's revision.
        ObjectNode gone = v.deleted ? v.object : ObjectTrees.withObjectResourceVersion(previous, v.revision);
        return new StoreEvent(StoreEvent.Type.DELETED, gone, v.revision);
    }

    /** Sets the history to replay; called under the store's write lock before any live event. */
    void setReplay(List<StoreEvent> events) {
        lock.lock();
        try {
            replay = List.copyOf(events);
        } finally {
            lock.unlock();
        }
    }

    /** Sets listAndWatch's objects; called before the watch is handed to the consumer. */
    void setInitialState(List<Version> objects) {
        lock.lock();
        try {
            if (endReason == null) {
                initialState = objects;
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Called by a writer, under the store's write lock, with every write of this watcher's range, in revision
     * order.
     *
     * @return false once this watcher has ended and should be unregistered
     */
    boolean offer(Version v, StoreEvent natural) {
        if (v.revision <= startRevision) {
            return !isEnded();
        }
        StoreEvent event;
        try {
            event = eventFor(v, natural);
        } catch (RuntimeException e) {
            filterFailed(e);
            return false;
        }
        lock.lock();
        try {
            if (endReason != null) {
                return false;
            }
            if (event == null) {
                return true;
            }
            if (live.size() >= capacity) {
                end(EndReason.OVERFLOWED, null);
                return false;
            }
            live.addLast(event);
            changed.signalAll();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Ends the watch with a 500 ERROR event because the filter threw {@code e}. */
    void filterFailed(RuntimeException e) {
        ObjectNode status = JsonNodeFactory.instance.objectNode();
        status.put("kind", "Status");
        status.put("apiVersion", "v1");
        status.putObject("metadata");
        status.put("status", "Failure");
        status.put("message", "Internal error occurred: watch filter failed: " + e);
        status.put("reason", "InternalError");
        status.putObject("details").putArray("causes").addObject().put("message", "watch filter failed: " + e);
        status.put("code", 500);
        end(EndReason.FILTER_FAILED, new StoreEvent(StoreEvent.Type.ERROR, status, 0));
    }

    /** Ends the watch (if it is still running), dropping what the consumer has not taken. */
    void end(EndReason reason, StoreEvent last) {
        lock.lock();
        try {
            if (endReason != null) {
                return;
            }
            endReason = reason;
            finalEvent = last;
            initialState = List.of();
            markerPending = false;
            replay = List.of();
            live.clear();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    boolean isEnded() {
        lock.lock();
        try {
            return endReason != null;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public StoreEvent next(Duration timeout) throws InterruptedException {
        Objects.requireNonNull(timeout, "timeout");
        boolean forever = timeout.compareTo(FOREVER) >= 0;
        long deadline = forever ? Long.MAX_VALUE : clock.nanoTime() + Math.max(0, timeout.toNanos());
        lock.lockInterruptibly();
        try {
            // Each round either returns or waits; the clock bounds the number of rounds by the deadline.
            while (true) {
                StoreEvent e = takeLocked();
                if (e != null || endReason != null) {
                    return e;
                }
                if (!forever && deadline - clock.nanoTime() <= 0) {
                    return null;
                }
                clock.awaitUntil(lock, changed, deadline);
            }
        } finally {
            lock.unlock();
        }
    }

    private StoreEvent takeLocked() {
        if (initialIndex < initialState.size()) {
            Version v = initialState.get(initialIndex++);
            return new StoreEvent(StoreEvent.Type.ADDED, v.object, v.revision);
        }
        if (markerPending) {
            markerPending = false;
            initialState = List.of();
            lastTaken = startRevision;
            return new StoreEvent(StoreEvent.Type.BOOKMARK, null, startRevision);
        }
        if (replayIndex < replay.size()) {
            StoreEvent e = replay.get(replayIndex++);
            if (replayIndex == replay.size()) {
                replay = List.of();
                replayIndex = 0;
            }
            lastTaken = e.revision();
            return e;
        }
        StoreEvent e = live.pollFirst();
        if (e != null) {
            lastTaken = e.revision();
            return e;
        }
        e = finalEvent;
        finalEvent = null;
        return e;
    }

    @Override
    public boolean isDone() {
        lock.lock();
        try {
            return endReason != null && finalEvent == null;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public EndReason endReason() {
        lock.lock();
        try {
            return endReason;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public OptionalLong bookmarkRevision() {
        // Read before looking at the buffer: writers fill the buffer before they publish a revision, so if the
        // buffer is empty below, every event of this watcher up to `current` has been taken.
        long current = store.currentRevision();
        lock.lock();
        try {
            if (endReason != null || markerPending) {
                return OptionalLong.empty();
            }
            long safe;
            if (replayIndex < replay.size()) {
                safe = replay.get(replayIndex).revision() - 1;
            } else if (!live.isEmpty()) {
                safe = live.peekFirst().revision() - 1;
            } else {
                safe = current;
            }
            lastBookmark = Math.max(lastBookmark, Math.max(safe, lastTaken));
            return OptionalLong.of(lastBookmark);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        end(EndReason.CLOSED, null);
        store.unregister(this);
    }

    @Override
    public String toString() {
        return "Watcher[" + StorageKey.qualifiedResource(group, resource)
                + (namespace == null ? "" : " in " + namespace) + " from " + startRevision + "]";
    }
}
