package io.kubeloop.workqueue;

import java.util.ArrayList;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The delaying queue's waiting items: a binary min-heap by ready time plus an index from item to entry, so
 * that an item appears at most once and moving it to an earlier time costs O(log n). Each entry also carries
 * the priority the item is added with when it becomes ready (always 0 in a plain queue). Only
 * {@link #covers} may be called without the owner's lock.
 *
 * <p>Invariants: {@code heap.get(i).index == i} for every entry; {@code byItem} holds exactly the entries of
 * {@code heap}; every parent comes before its children in (readyAt, seq) order; while an entry is in the heap
 * its {@code readyAt} only decreases and its {@code priority} only increases. Not thread-safe: the owner locks.
 */
final class WaitingHeap<T> {

    /** A waiting item: {@link #poll()} hands it out whole, so that the owner learns its priority. */
    static final class Entry<T> {
        final T item;
        /** Volatile, like {@code priority}: {@link #covers} reads it without the owner's lock. */
        volatile long readyAt;

        volatile int priority;
        /** Insertion order: items ready at the same time leave in the order they were offered. */
        long seq;

        int index;

        Entry(T item, long readyAt, int priority, long seq) {
            this.item = item;
            this.readyAt = readyAt;
            this.priority = priority;
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
     * Adds {@code item} to be ready at {@code readyAt} with {@code priority}, or, if it is already waiting,
     * keeps the earlier of the two ready times and the higher of the two priorities. Returns true if the
     * earliest ready time of the heap changed.
     */
    boolean offer(T item, long readyAt, int priority) {
        Entry<T> existing = byItem.get(item);
        if (existing != null) {
            if (priority > existing.priority) {
                existing.priority = priority;
            }
            if (readyAt - existing.readyAt >= 0) {
                return false;
            }
            existing.readyAt = readyAt;
            existing.seq = nextSeq++;
            siftUp(existing.index);
            return existing.index == 0;
        }
        Entry<T> entry = new Entry<>(item, readyAt, priority, nextSeq++);
        entry.index = heap.size();
        heap.add(entry);
        byItem.put(item, entry);
        siftUp(entry.index);
        return entry.index == 0;
    }

    /**
     * True if {@code item} is waiting to be ready no later than {@code readyAt} at no lower priority than
     * {@code priority}, so that {@link #offer} would change nothing. Safe without the owner's lock: both fields
     * move only one way while the entry is in the heap, and an entry being polled at that moment is being
     * added at its (earlier, higher) values anyway.
     */
    boolean covers(Object item, long readyAt, int priority) {
        Entry<T> e = byItem.get(item);
        return e != null && e.readyAt - readyAt <= 0 && e.priority >= priority;
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

    /** Removes and returns the earliest entry; the heap must not be empty. */
    Entry<T> poll() {
        Entry<T> head = heap.get(0);
        Entry<T> last = heap.remove(heap.size() - 1);
        if (last != head) {
            last.index = 0;
            heap.set(0, last);
            siftDown(0);
        }
        byItem.remove(head.item);
        return head;
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
