package io.kubeloop.client.codec;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A lossy, bounded table of canonical instances: {@link #intern} returns an equal instance seen before when its
 * slot still holds one, else stores and returns the given one. A direct-mapped cache (one slot per hash bucket,
 * the newest wins), so memory is bounded by the slot count whatever is decoded, nothing is pinned for ever (a
 * string seen once is soon overwritten), and values that recur in every object — namespaces, label keys and values,
 * image names, managedFields managers — stay in their slots and are shared.
 *
 * <p>Thread-safe without locks: a slot is read and written with plain volatile semantics; a lost race only costs
 * a missed share. Values must be immutable (or treated as such) and have value-based {@code equals}/{@code hashCode}.
 */
final class InternTable<T> {

    private final AtomicReferenceArray<T> slots;
    private final int mask;

    /** {@code size} is rounded up to a power of two. */
    InternTable(int size) {
        int n = Integer.highestOneBit(Math.max(16, size - 1) << 1);
        this.slots = new AtomicReferenceArray<>(n);
        this.mask = n - 1;
    }

    T intern(T value) {
        return intern(value, java.util.function.UnaryOperator.identity());
    }

    /**
     * Like {@link #intern(Object)}, but a value that is not found is first passed through {@code onMiss} (which
     * must return an equal value, for example a more compact copy) and that is stored: the work is done once per
     * distinct value, not once per occurrence.
     */
    T intern(T value, java.util.function.UnaryOperator<T> onMiss) {
        if (value == null) {
            return null;
        }
        int h = value.hashCode();
        int i = (h ^ (h >>> 16)) & mask;
        T current = slots.getPlain(i);
        if (current == value) {
            return current;
        }
        if (current != null && current.equals(value)) {
            return current;
        }
        T stored = onMiss.apply(value);
        slots.setRelease(i, stored);
        return stored;
    }
}
