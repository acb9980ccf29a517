package io.kubeloop.apiserver.internal.storage;

import java.util.NoSuchElementException;

/**
 * The event history: every {@link Version} written after the physically compacted revision, in revision order,
 * addressable by revision. A ring buffer that grows (and shrinks) by halves and doubles.
 *
 * <p>Invariant: the log holds exactly the revisions {@code (base, base + size]} with no gap, because every
 * successful write takes the next revision and is appended. Not thread-safe: the store uses it only under its
 * write lock.
 */
final class RevisionLog {

    private static final int MIN_CAPACITY = 16;

    private Version[] ring = new Version[MIN_CAPACITY];
    private int head;
    private int size;
    /** The revision just before the first entry. */
    private long base;

    RevisionLog(long base) {
        this.base = base;
    }

    /** The revision just before the oldest entry: every later revision up to {@link #last()} is here. */
    long base() {
        return base;
    }

    /** The revision of the newest entry, or {@link #base()} if empty. */
    long last() {
        return base + size;
    }

    int size() {
        return size;
    }

    void append(Version v) {
        if (v.revision != last() + 1) {
            throw new IllegalStateException("revision " + v.revision + " appended after " + last());
        }
        if (size == ring.length) {
            resize(ring.length * 2);
        }
        ring[(head + size) % ring.length] = v;
        size++;
    }

    /** The entry of {@code revision}, which must lie in {@code (base(), last()]}. */
    Version get(long revision) {
        if (revision <= base || revision > last()) {
            throw new NoSuchElementException("revision " + revision + " is not in (" + base + ", " + last() + "]");
        }
        return ring[(int) ((head + (revision - base - 1)) % ring.length)];
    }

    /** Removes and returns the oldest entry. */
    Version removeFirst() {
        if (size == 0) {
            throw new NoSuchElementException("empty revision log at " + base);
        }
        Version v = ring[head];
        ring[head] = null;
        head = (head + 1) % ring.length;
        size--;
        base++;
        if (ring.length > MIN_CAPACITY && size < ring.length / 4) {
            resize(ring.length / 2);
        }
        return v;
    }

    private void resize(int capacity) {
        Version[] next = new Version[capacity];
        for (int i = 0; i < size; i++) {
            next[i] = ring[(head + i) % ring.length];
        }
        ring = next;
        head = 0;
    }
}
