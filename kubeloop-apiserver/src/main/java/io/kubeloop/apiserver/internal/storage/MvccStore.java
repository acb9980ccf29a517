package io.kubeloop.apiserver.internal.storage;

import io.kubeloop.clock.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The in-memory {@link Store}.
 *
 * <p><b>Data.</b> {@code index} maps each key to its newest {@link Version}; older versions hang off it through
 * {@link Version#prev}, newest first. {@code log} holds every version after the physically compacted revision in
 * revision order: it is the event history. A version is one object shared by both, so a write costs one version,
 * one index update and one log slot, plus the new parts of the object tree ({@link ObjectTrees} shares the
 * rest with the previous version).
 *
 * <p><b>Writes</b> run under {@code writeLock}, one at a time, in this order: take revision
 * {@code current + 1}, link the new version above the key's head and put it in the index, append it to the log,
 * hand it to the watchers of its resource, then publish the revision ({@code currentRevision}, volatile), then
 * compact if the history is over its limit. Hence writes are totally ordered, and a revision is published only
 * when its version is in the index and in every watcher's buffer.
 *
 * <p><b>Reads</b> take no lock a writer holds. A read at revision R walks each key's chain to the newest version
 * at or below R; versions above R, including a write in progress, are simply skipped, so a list is a consistent
 * snapshot at R while writers continue. A list {@linkplain SnapshotPins pins} R so that compaction does not cut
 * the chains it is walking.
 *
 * <p><b>Compaction</b> is logical, then physical. Logically, the compacted revision C rises (under the write
 * lock and the pins' lock); lists below C and watches from below C fail with 410 from then on. Physically, the
 * log is consumed from its oldest entry up to {@code min(C, oldest pin)}: for each entry, the version's
 * {@code prev} link is cut (nothing older than the newest version at or below the limit is needed), and a
 * tombstone that is still its key's head leaves the index. Each version is trimmed once, so compaction costs
 * O(1) amortized per write and never walks a chain.
 *
 * <p><b>Watches.</b> Watchers are registered per (group, resource) under the write lock; a writer offers each
 * write to the watchers of its resource, which never blocks (a full buffer ends that watcher). A new watcher's
 * replay is read from the log under the same lock, so it ends exactly where its live events begin.
 */
final class MvccStore implements Store {

    private static final Logger LOG = LoggerFactory.getLogger(MvccStore.class);

    /** An empty store is at revision 1, as etcd is. */
    static final long INITIAL_REVISION = 1;
    /** {@link #guaranteedUpdate} attempts without the write lock before the final, locked one. */
    static final int OPTIMISTIC_ATTEMPTS = 3;

    private final Clock clock;
    private final int historyLimit;

    private final ReentrantLock writeLock = new ReentrantLock();
    private final ConcurrentSkipListMap<StorageKey, Version> index = new ConcurrentSkipListMap<>();
    /** Guarded by {@code writeLock}. */
    private final RevisionLog log = new RevisionLog(INITIAL_REVISION);
    /** Nothing is compacted at first: a watch from 0 replays everything. */
    private final SnapshotPins pins = new SnapshotPins(0);
    /** Guarded by {@code writeLock}: the watchers of each resource. */
    private final Map<GroupResource, List<Watcher>> watchers = new HashMap<>();
    /** Written under {@code writeLock}, after the write's version is in the index and the watchers' buffers. */
    private volatile long currentRevision = INITIAL_REVISION;

    private volatile boolean closed;

    private record GroupResource(String group, String resource) {}

    MvccStore(Clock clock, int historyLimit) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.historyLimit = historyLimit;
    }

    // ------------------------------------------------------------------------------------------------
    // Writes

    @Override
    public ObjectNode create(StorageKey key, ObjectNode object) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(object, "object");
        writeLock.lock();
        try {
            checkOpen();
            Version head = index.get(key);
            if (head != null && !head.deleted) {
                throw new AlreadyExistsException(key);
            }
            long revision = currentRevision + 1;
            ObjectNode stored = ObjectTrees.freezeForWrite(object, null, revision);
            commit(new Version(key, revision, stored, false, head));
            return stored;
        } finally {
            writeLock.unlock();
        }
    }

    @Override
    public ObjectNode update(StorageKey key, ObjectNode object, long expectedRevision) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(object, "object");
        writeLock.lock();
        try {
            checkOpen();
            Version head = liveHead(key);
            if (expectedRevision != 0 && expectedRevision != head.revision) {
                throw ConflictException.objectModified(key);
            }
            return commitUpdate(head, object);
        } finally {
            writeLock.unlock();
        }
    }

    @Override
    public ObjectNode delete(StorageKey key, Preconditions preconditions) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(preconditions, "preconditions (use Preconditions.NONE)");
        writeLock.lock();
        try {
            checkOpen();
            Version head = liveHead(key);
            preconditions.check(key, head.object);
            long revision = currentRevision + 1;
            ObjectNode last = ObjectTrees.withObjectResourceVersion(head.object, revision);
            commit(new Version(key, revision, last, true, head));
            return last;
        } finally {
            writeLock.unlock();
        }
    }

    @Override
    public ObjectNode guaranteedUpdate(StorageKey key, Preconditions preconditions, UnaryOperator<ObjectNode> update) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(preconditions, "preconditions (use Preconditions.NONE)");
        Objects.requireNonNull(update, "update");
        for (int attempt = 1; attempt <= OPTIMISTIC_ATTEMPTS; attempt++) {
            checkOpen();
            Version seen = publishedHead(key);
            if (seen == null) {
                throw new NotFoundException(key);
            }
            preconditions.check(key, seen.object);
            ObjectNode updated = apply(update, seen.object);
            writeLock.lock();
            try {
                checkOpen();
                if (index.get(key) == seen) {
                    return commitUpdate(seen, updated);
                }
            } finally {
                writeLock.unlock();
            }
        }
        // Lost every race: the last attempt holds the write lock throughout, so nothing can change under it.
        writeLock.lock();
        try {
            checkOpen();
            Version head = liveHead(key);
            preconditions.check(key, head.object);
            return commitUpdate(head, apply(update, head.object));
        } finally {
            writeLock.unlock();
        }
    }

    private static ObjectNode apply(UnaryOperator<ObjectNode> update, ObjectNode current) {
        return Objects.requireNonNull(update.apply(current.deepCopy()), "guaranteedUpdate function returned null");
    }

    /** The key's head, which must be a live object. Caller holds the write lock. */
    private Version liveHead(StorageKey key) {
        Version head = index.get(key);
        if (head == null || head.deleted) {
            throw new NotFoundException(key);
        }
        return head;
    }

    /** Writes {@code object} over {@code head}, or does nothing if equal. Caller holds the write lock. */
    private ObjectNode commitUpdate(Version head, ObjectNode object) {
        long revision = currentRevision + 1;
        ObjectNode stored = ObjectTrees.freezeForWrite(object, head.object, revision);
        if (stored == head.object) {
            return stored; // no-op: no revision, no event
        }
        commit(new Version(head.key, revision, stored, false, head));
        return stored;
    }

    /** Installs, logs, dispatches and publishes {@code v}, then compacts if needed. Caller holds the write lock. */
    private void commit(Version v) {
        index.put(v.key, v);
        log.append(v);
        dispatch(v);
        currentRevision = v.revision;
        if (v.revision - pins.compacted() > historyLimit) {
            pins.compactTo(v.revision - historyLimit);
        }
        trim();
    }

    private void dispatch(Version v) {
        List<Watcher> list = watchers.get(new GroupResource(v.key.group(), v.key.resource()));
        if (list == null) {
            return;
        }
        StoreEvent natural = new StoreEvent(v.eventType(), v.object, v.revision);
        boolean ended = false;
        for (Watcher w : list) {
            if (w.covers(v.key) && !w.offer(v, natural)) {
                ended = true;
                if (w.endReason() == StoreWatch.EndReason.OVERFLOWED) {
                    LOG.debug("{} fell behind at revision {} and was terminated", w, v.revision);
                }
            }
        }
        if (ended) {
            list.removeIf(Watcher::isEnded);
        }
    }

    /** Cuts version chains up to what compaction and the pins allow. Caller holds the write lock. */
    private void trim() {
        if (log.base() >= pins.compacted()) {
            return; // nothing logically compacted is still physically present
        }
        long limit = pins.trimLimit();
        while (log.base() < limit) { // at most log.size() rounds
            Version v = log.removeFirst();
            v.prev = null;
            if (v.deleted) {
                index.remove(v.key, v); // only if the tombstone is still the key's head
            }
        }
    }

    // ------------------------------------------------------------------------------------------------
    // Reads

    @Override
    public ObjectNode get(StorageKey key) {
        Objects.requireNonNull(key, "key");
        checkOpen();
        Version v = publishedHead(key);
        if (v == null) {
            throw new NotFoundException(key);
        }
        return v.object;
    }

    /**
     * The key's newest published version if it is live, else null. Lock-free: a head newer than the published
     * revision is a write in progress, whose {@code prev} is the newest published version. Compaction cuts that
     * link only after the write is published, so the link is trusted only if the write is still unpublished
     * after it was read; if the write was published meanwhile, it is itself a correct answer.
     */
    private Version publishedHead(StorageKey key) {
        Version v = index.get(key);
        if (v != null && v.revision > currentRevision) {
            Version previous = v.prev;
            if (v.revision > currentRevision) {
                v = previous;
            }
        }
        return v == null || v.deleted ? null : v;
    }

    @Override
    public ListResult list(
            String group,
            String resource,
            String namespace,
            long atRevision,
            Predicate<ObjectNode> filter,
            int limit,
            String continueKey) {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(resource, "resource");
        if (limit < 0) {
            throw new IllegalArgumentException("limit must be 0 (none) or positive, not " + limit);
        }
        if (atRevision < 0) {
            throw new IllegalArgumentException("revision must be 0 (current) or positive, not " + atRevision);
        }
        checkOpen();
        ContinueKey start = continueKey == null ? null : ContinueKey.parse(group, resource, namespace, continueKey);
        long current = currentRevision;
        long revision = atRevision == 0 ? current : atRevision;
        if (revision > current) {
            throw new TooLargeResourceVersionException(revision, current);
        }
        if (!pins.pin(revision)) {
            if (atRevision != 0) {
                long oldest = pins.compacted();
                throw continueKey == null
                        ? ExpiredException.forList(revision, oldest)
                        : ExpiredException.forContinue(revision, oldest);
            }
            // "Current" was overtaken by a burst of writes and compaction: pin the current revision under the
            // write lock, where it cannot be compacted.
            revision = pinCurrent();
        }
        try {
            return collect(
                    range(group, resource, namespace, start == null ? null : start.after()),
                    revision,
                    filter,
                    limit,
                    start == null ? -1 : start.remaining());
        } finally {
            pins.unpin(revision);
        }
    }

    /** Pins and returns the current revision. */
    private long pinCurrent() {
        writeLock.lock();
        try {
            checkOpen();
            long revision = currentRevision;
            if (!pins.pin(revision)) {
                throw new IllegalStateException("the current revision " + revision + " is compacted");
            }
            return revision;
        } finally {
            writeLock.unlock();
        }
    }

    /**
     * Reads one page at a pinned {@code revision}.
     *
     * @param knownRemaining how many objects the range holds at {@code revision} (from the continue key), or -1
     */
    private static ListResult collect(
            NavigableMap<StorageKey, Version> range,
            long revision,
            Predicate<ObjectNode> filter,
            int limit,
            long knownRemaining) {
        List<ObjectNode> items = new ArrayList<>(limit == 0 ? 16 : Math.min(limit, 1024));
        StorageKey lastKey = null;
        boolean hasMore = false;
        boolean countRest = filter == null && knownRemaining < 0;
        long counted = 0;
        for (Version head : range.values()) { // bounded by the size of the range
            Version v = Version.visibleAt(head, revision);
            if (v == null || (filter != null && !filter.test(v.object))) {
                continue;
            }
            if (limit != 0 && items.size() == limit) {
                hasMore = true;
                if (!countRest) {
                    break; // one look ahead is enough
                }
                counted++;
                continue;
            }
            items.add(v.object);
            lastKey = v.key;
        }
        long remaining;
        if (filter != null) {
            remaining = hasMore ? -1 : 0; // kube-apiserver reports no remaining count for filtered lists
        } else if (countRest) {
            remaining = counted;
        } else {
            remaining = knownRemaining - items.size();
            if ((remaining > 0) != hasMore) { // a key from some other list: count after all
                remaining = hasMore ? countVisible(range.tailMap(lastKey, false), revision) : 0;
            }
        }
        String next = hasMore ? new ContinueKey(remaining, lastKey).format() : null;
        return new ListResult(items, revision, hasMore, next, remaining);
    }

    private static long countVisible(NavigableMap<StorageKey, Version> range, long revision) {
        long n = 0;
        for (Version head : range.values()) { // bounded by the size of the range
            if (Version.visibleAt(head, revision) != null) {
                n++;
            }
        }
        return n;
    }

    /** The keys of one resource (in one namespace, or all), strictly after {@code after} if given. */
    private NavigableMap<StorageKey, Version> range(String group, String resource, String namespace, StorageKey after) {
        StorageKey from = namespace == null
                ? new StorageKey(group, resource, "", "")
                : new StorageKey(group, resource, namespace, "");
        StorageKey to = namespace == null
                ? new StorageKey(group, resource + '\0', "", "")
                : new StorageKey(group, resource, namespace + '\0', "");
        return after == null ? index.subMap(from, true, to, false) : index.subMap(after, false, to, false);
    }

    // ------------------------------------------------------------------------------------------------
    // Watches

    @Override
    public StoreWatch watch(
            String group,
            String resource,
            String namespace,
            long fromRevision,
            Predicate<ObjectNode> filter,
            int bufferSize) {
        checkWatchArguments(group, resource, bufferSize);
        if (fromRevision < 0) {
            throw new IllegalArgumentException("fromRevision must not be negative: " + fromRevision);
        }
        writeLock.lock();
        try {
            checkOpen();
            long compacted = pins.compacted();
            if (fromRevision < compacted) {
                return Watcher.failed(
                        this, clock, ExpiredException.forWatch(fromRevision, compacted), StoreWatch.EndReason.EXPIRED);
            }
            Watcher w = new Watcher(this, clock, group, resource, namespace, fromRevision, filter, bufferSize, false);
            List<StoreEvent> replay = new ArrayList<>();
            // The log holds every revision after the compacted one (trimming never passes it) that was written
            // (the initial revision was not), so the replay is complete. At most log.size() rounds.
            // Counted from below current, so a start at Long.MAX_VALUE (a resourceVersion no write can reach)
            // replays nothing instead of overflowing.
            for (long r = Math.max(fromRevision, log.base()); r < currentRevision; ) {
                Version v = log.get(++r);
                if (!w.covers(v.key)) {
                    continue;
                }
                StoreEvent e;
                try {
                    e = w.eventFor(v, new StoreEvent(v.eventType(), v.object, v.revision));
                } catch (RuntimeException filterError) {
                    w.filterFailed(filterError);
                    return w;
                }
                if (e != null) {
                    replay.add(e);
                }
            }
            w.setReplay(replay);
            register(w);
            return w;
        } finally {
            writeLock.unlock();
        }
    }

    @Override
    public StoreWatch listAndWatch(
            String group, String resource, String namespace, Predicate<ObjectNode> filter, int bufferSize) {
        checkWatchArguments(group, resource, bufferSize);
        long revision;
        Watcher w;
        writeLock.lock();
        try {
            checkOpen();
            revision = pinCurrent();
            w = new Watcher(this, clock, group, resource, namespace, revision, filter, bufferSize, true);
            register(w);
        } finally {
            writeLock.unlock();
        }
        // Collect the initial state without the write lock: writers go on, and their events queue up in w.
        try {
            List<Version> objects = new ArrayList<>();
            for (Version head : range(group, resource, namespace, null).values()) {
                Version v = Version.visibleAt(head, revision);
                if (v != null && (filter == null || filter.test(v.object))) {
                    objects.add(v);
                }
            }
            w.setInitialState(objects);
        } catch (RuntimeException filterError) {
            w.filterFailed(filterError);
        } finally {
            pins.unpin(revision);
        }
        return w;
    }

    private static void checkWatchArguments(String group, String resource, int bufferSize) {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(resource, "resource");
        if (bufferSize < 1) {
            throw new IllegalArgumentException("bufferSize must be at least 1, not " + bufferSize);
        }
    }

    /** Caller holds the write lock. */
    private void register(Watcher w) {
        watchers.computeIfAbsent(new GroupResource(w.group, w.resource), gr -> new ArrayList<>())
                .add(w);
    }

    void unregister(Watcher w) {
        writeLock.lock();
        try {
            GroupResource gr = new GroupResource(w.group, w.resource);
            List<Watcher> list = watchers.get(gr);
            if (list != null && list.remove(w) && list.isEmpty()) {
                watchers.remove(gr);
            }
        } finally {
            writeLock.unlock();
        }
    }

    // ------------------------------------------------------------------------------------------------
    // Revisions, compaction, lifecycle

    @Override
    public long currentRevision() {
        return currentRevision;
    }

    @Override
    public long compactedRevision() {
        return pins.compacted();
    }

    @Override
    public void compact(long revision) {
        writeLock.lock();
        try {
            checkOpen();
            if (revision > currentRevision) {
                throw new IllegalArgumentException(
                        "cannot compact to revision " + revision + " above the current " + currentRevision);
            }
            pins.compactTo(revision);
            trim();
        } finally {
            writeLock.unlock();
        }
    }

    @Override
    public void close() {
        List<Watcher> all = new ArrayList<>();
        writeLock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            watchers.values().forEach(all::addAll);
            watchers.clear();
        } finally {
            writeLock.unlock();
        }
        for (Watcher w : all) {
            w.end(StoreWatch.EndReason.STORE_CLOSED, null);
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the store is closed");
        }
    }

    /** Number of revisions physically held in the history; for tests of memory bounds. */
    int historySize() {
        writeLock.lock();
        try {
            return log.size();
        } finally {
            writeLock.unlock();
        }
    }
}
