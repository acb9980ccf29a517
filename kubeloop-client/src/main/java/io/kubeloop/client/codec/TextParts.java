package io.kubeloop.client.codec;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReferenceArray;
import tools.jackson.core.JsonParser;

/**
 * Shares model parts (containers, volumes, tolerations, ...) between decoded objects by their JSON text: a part is
 * first read as text; when the same class was decoded from the same text before and its slot still holds it, that
 * instance is returned and the text is never decoded; otherwise the text is decoded and remembered. Pods of one
 * template carry the same parts, so most parts of most objects are a text comparison instead of a decoding.
 *
 * <p>Invariant: the shared instance was decoded, in this mapper, from exactly this text as this class, so it is what
 * decoding the text would give (an exact share: {@code "1000m"} never stands for {@code "1"}, nor one member order
 * for another). A remembered value is immutable ({@link FrozenParts}): a change made through one object that holds it
 * would otherwise show in every other one, and in every later decode of the text.
 *
 * <p>A lossy, direct-mapped table like {@link InternTable}: one slot per hash bucket, the newest wins, so memory is
 * bounded by the slot count times the size of a part, nothing is pinned for ever, and a lost race only costs a
 * missed share. Thread-safe without locks.
 */
final class TextParts {

    /**
     * How to decode a part from its JSON text (an array the decoded part may keep: it is never changed), with the
     * context the caller passed to {@link #share}: passing it, rather than capturing it in a lambda, keeps a share
     * that finds its part from allocating anything.
     */
    @FunctionalInterface
    interface Decoder<C> {
        Object decode(byte[] json, C context);
    }

    private record Entry(Class<?> type, byte[] json, int hash, Object value) {}

    /**
     * What a {@link Decoder} returns for a value that must not be shared (one that could not be frozen): it is
     * handed to this caller only and not remembered.
     */
    record Unshared(Object value) {}

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final AtomicReferenceArray<Entry> slots;
    private final int mask;

    /** {@code size} is rounded up to a power of two. */
    TextParts(int size) {
        int n = InternTable.slotCount(size);
        this.slots = new AtomicReferenceArray<>(n);
        this.mask = n - 1;
    }

    /**
     * The part of class {@code type} at the parser's current token: a shared instance for text seen before, else
     * {@code decoder}'s result for the text and {@code context}, which is remembered. Leaves {@code p} on the part's
     * last token.
     */
    <C> Object share(Class<?> type, JsonParser p, C context, Decoder<? super C> decoder) {
        JsonText.Capture text = JsonText.capture(p);
        byte[] bytes = text.array();
        int length = text.length();
        int h = hash(bytes, length) * 31 + type.hashCode();
        int i = InternTable.slot(h, mask);
        Entry e = slots.getPlain(i);
        if (e != null && e.hash == h && e.type == type && Arrays.equals(e.json, 0, e.json.length, bytes, 0, length)) {
            return e.value;
        }
        // Copied before decoding: decoding the part may share nested parts, which reuses this thread's buffer.
        byte[] json = Arrays.copyOf(bytes, length);
        Object value = decoder.decode(json, context);
        if (value instanceof Unshared unshared) {
            return unshared.value();
        }
        slots.setRelease(i, new Entry(type, json, h, value));
        return value;
    }

    /** A fast hash of {@code bytes[0, length)}, eight bytes at a time. */
    private static int hash(byte[] bytes, int length) {
        long h = length;
        int i = 0;
        for (; i + 8 <= length; i += 8) {
            h = (h ^ (long) LONGS.get(bytes, i)) * 0x9E3779B97F4A7C15L;
        }
        for (; i < length; i++) {
            h = (h ^ bytes[i]) * 0x100000001B3L;
        }
        h ^= h >>> 32;
        return (int) (h ^ (h >>> 16));
    }
}
