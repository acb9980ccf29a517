package io.kubeloop.apiserver.internal.storage;

import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The revisions that lock-free readers are reading at, and the logical compacted revision, under one small lock.
 *
 * <p>A list reads version chains without the store's write lock, while writers may compact. The two agree
 * here: a reader {@linkplain #pin pins} its revision only if compaction has not passed it, and compaction may
 * cut chains only up to {@link #trimLimit()}, the lower of the compacted revision and the oldest pin. Both
 * decisions are made under {@link #lock}, so a reader either sees the compaction and fails with 410, or
 * compaction sees the pin and leaves the reader's versions alone. Pins are held only for the duration of one
 * synchronous list, so they never hold back compaction for long.
 */
final class SnapshotPins {

    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by {@code lock}: pinned revision to number of readers. */
    private final TreeMap<Long, Integer> pins = new TreeMap<>();
    /** Written under {@code lock} (and the store's write lock); volatile for lock-free readers of the value. */
    private volatile long compacted;

    SnapshotPins(long compacted) {
        this.compacted = compacted;
    }

    long compacted() {
        return compacted;
    }

    /**
     * Pins {@code revision} for reading.
     *
     * @return true if pinned; false if compaction has already passed it (then nothing is pinned)
     */
    boolean pin(long revision) {
        lock.lock();
        try {
            if (revision < compacted) {
                return false;
            }
            pins.merge(revision, 1, Integer::sum);
            return true;
        } finally {
            lock.unlock();
        }
    }

    void unpin(long revision) {
        lock.lock();
        try {
            pins.computeIfPresent(revision, (r, n) -> n == 1 ? null : n - 1);
        } finally {
            lock.unlock();
        }
    }

    /** Raises the compacted revision to {@code revision} (never lowers it). Caller holds the write lock. */
    void compactTo(long revision) {
        lock.lock();
        try {
            if (revision > compacted) {
                compacted = revision;
            }
        } finally {
            lock.unlock();
        }
    }

    /** The highest revision up to which version chains may be cut now. */
    long trimLimit() {
        lock.lock();
        try {
            return pins.isEmpty() ? compacted : Math.min(compacted, pins.firstKey());
        } finally {
            lock.unlock();
        }
    }
}
