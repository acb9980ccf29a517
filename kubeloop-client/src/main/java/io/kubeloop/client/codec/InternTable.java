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
        int n = slotCount(size);
        this.slots = new AtomicReferenceArray<>(n);
        this.mask = n - 1;
    }

    /** The slot of hash {@code h}: the one place both intern methods compute it, so they always agree. */
    private int slot(int h) {
        return slot(h, mask);
    }

    /** The slot of hash {@code h} in a direct-mapped table of {@code mask + 1} slots (a power of two). */
    static int slot(int h, int mask) {
        return (h ^ (h >>> 16)) & mask;
    }

    /** The slot count of a direct-mapped table asked to hold {@code size}: a power of two, at least 16. */
    static int slotCount(int size) {
        return Integer.highestOneBit(Math.max(16, size - 1) << 1);
    }

    T intern(T value) {
        return intern(value, java.util.function.UnaryOperator.identity());
    }

    /**
     * For a table of Strings only: the String of {@code chars[offset, offset + length)}, without making a new one
     * when an equal String is in its slot (what a parser's buffer holds is turned into a String only once per
     * distinct value that stays in the table).
     */
    @SuppressWarnings("unchecked")
    String intern(char[] chars, int offset, int length) {
        int h = 0;
        for (int k = offset, end = offset + length; k < end; k++) {
            h = 31 * h + chars[k]; // String.hashCode's definition, so both intern methods find the same slot
        }
        int i = slot(h);
        if (slots.getPlain(i) instanceof String current
                && current.length() == length
                && current.hashCode() == h
                && sameChars(current, chars, offset)) {
            return current;
        }
        String made = new String(chars, offset, length);
        slots.setRelease(i, (T) made);
        return made;
    }

    private static boolean sameChars(String s, char[] chars, int offset) {
        for (int k = 0; k < s.length(); k++) {
            if (s.charAt(k) != chars[offset + k]) {
                return false;
            }
        }
        return true;
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
        int i = slot(h);
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
