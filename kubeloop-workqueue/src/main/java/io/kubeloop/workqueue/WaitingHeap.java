package io.kubeloop.workqueue;

import java.util.ArrayList;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The delaying queue's waiting items: a binary min-heap by ready time plus an index from item to entry, so
 * that an item appears at most once and moving it to an earlier time costs O(log n). Only
 * {@link #readyAt(Object)} may be called without the owner's lock.
 *
 * <p>Invariants: {@code heap.get(i).index == i} for every entry; {@code byItem} holds exactly the entries of
 * {@code heap}; every parent comes before its children in (readyAt, seq) order. Not thread-safe: the owner locks.
 */
final class WaitingHeap<T> {

    private static final class Entry<T> {
        final T item;
        /** Volatile: {@link #readyAt(Object)} reads it without the owner's lock. */
        volatile long readyAt;
        /** Insertion order: items ready at the same time leave in the order they were offered. */
        long seq;

        int index;

        Entry(T item, long readyAt, long seq) {
            this.item = item;
            this.readyAt = readyAt;
            this.seq = seq;
        }
    }

    private static <T> boolean before(Entry<T> a, Entry<T> b) {
        long d = a.readyAt - b.readyAt;
        return d < 0 || (d == 0 && a.seq < b.seq);
    }

    private final ArrayList<Entry<T>> heap = new ArrayList<>();
    /** Concurrent so that {@link #readyAt} may read it without the owner's lock; written under it. */
    private final ConcurrentHashMap<T, Entry<T>> byItem = new ConcurrentHashMap<>();

    private long nextSeq;

    /**
     * Adds {@code item} to be ready at {@code readyAt}, or moves it earlier if it is already waiting for a
     * later time. Returns true if the earliest ready time of the heap changed.
     */
    boolean offer(T item, long readyAt) {
        Entry<T> existing = byItem.get(item);
        if (existing != null) {
            if (readyAt - existing.readyAt >= 0) {
                return false;
            }
            existing.readyAt = readyAt;
            existing.seq = nextSeq++;
            siftUp(existing.index);
            return existing.index == 0;
        }
        Entry<T> entry = new Entry<>(item, readyAt, nextSeq++);
        entry.index = heap.size();
        heap.add(entry);
        byItem.put(item, entry);
        siftUp(entry.index);
        return entry.index == 0;
    }

    /**
     * When {@code item} becomes ready, or null if it is not waiting. Safe without the owner's lock: a caller
     * that sees a time no later than the one it wants may skip {@link #offer}, which would change nothing,
     * even if the item is being polled at that moment (then it is being added at the earlier time anyway).
     */
    Long readyAt(Object item) {
        Entry<T> e = byItem.get(item);
        return e == null ? null : e.readyAt;
    }

    boolean isEmpty() {
        return heap.isEmpty();
    }

    int size() {
        return heap.size();
    }

    /** Ready time of the earliest item; the heap must not be empty. */
    long peekReadyAt() {
        return heap.get(0).readyAt;
    }

    /** Removes and returns the earliest item; the heap must not be empty. */
    T poll() {
        Entry<T> head = heap.get(0);
        Entry<T> last = heap.remove(heap.size() - 1);
        if (last != head) {
            last.index = 0;
            heap.set(0, last);
            siftDown(0);
        }
        byItem.remove(head.item);
        return head.item;
    }

    void clear() {
        heap.clear();
        byItem.clear();
    }

    private void siftUp(int i) {
        Entry<T> entry = heap.get(i);
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            Entry<T> p = heap.get(parent);
            if (!before(entry, p)) {
                break;
            }
            place(p, i);
            i = parent;
        }
        place(entry, i);
    }

    private void siftDown(int i) {
        Entry<T> entry = heap.get(i);
        int size = heap.size();
        while (true) {
            int child = 2 * i + 1;
            if (child >= size) {
                break;
            }
            Entry<T> c = heap.get(child);
            if (child + 1 < size && before(heap.get(child + 1), c)) {
                child++;
                c = heap.get(child);
            }
            if (!before(c, entry)) {
                break;
            }
            place(c, i);
            i = child;
        }
        place(entry, i);
    }

    private void place(Entry<T> e, int i) {
        heap.set(i, e);
        e.index = i;
    }
}
