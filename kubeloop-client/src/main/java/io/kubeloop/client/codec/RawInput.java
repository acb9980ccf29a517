package io.kubeloop.client.codec;

import io.kubeloop.client.internal.ItemInput;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.util.Objects;
import tools.jackson.core.JacksonException;
import tools.jackson.core.io.IOContext;
import tools.jackson.core.io.InputDecorator;

/**
 * The input of every parser a {@link Decoding} creates: passes the bytes through to the parser unchanged and
 * remembers the most recent ones, so that {@link JsonText} can copy a value's text exactly as it arrived instead of
 * writing it again with a generator. Over an array (a part being decoded from its text), the whole array is the
 * memory and nothing is copied.
 *
 * <p>Invariant: the bytes at stream offsets {@code [start, read)} are kept, where {@code start} is at most
 * {@code read} minus the largest read request so far (the parser's buffer, which a value the parser is on starts
 * in) and, while a capture is pinned, at most the pinned offset. So a value that starts inside the parser's buffer
 * can always be copied whole, however many reads its end takes. Likewise, while an item is marked
 * ({@link ItemInput}), at most the marked offset: an item that fails to bind can be read again from its bytes.
 *
 * <p>Not thread-safe: it belongs to one parser.
 */
final class RawInput extends InputStream implements ItemInput {

    /** Wraps each input of a Jackson factory (streams and arrays; readers are left alone). */
    static final InputDecorator DECORATOR = new Decorator();

    /** The source, or null when all of the input is {@link #kept} from the start (an array). */
    private final InputStream in;
    /** Stream byte {@code o} (for {@code start <= o < read}, or all of an array) is at {@code kept[o - shift]}. */
    private byte[] kept;

    private long shift;
    /** The first stream offset still kept. */
    private long start;
    /** Bytes handed to the reader so far: the stream offset of the next byte. */
    private long read;
    /** For an array: the end of the input, as a stream offset. */
    private final long end;
    /** The largest read request seen: the parser's buffer, inside which the value it is on starts. */
    private int window = 8192;
    /** The stream offset that must stay kept during a capture, or -1. */
    private long pinned = -1;
    /** The stream offset of the item being decoded, kept until {@link #unmarkItem}; or -1. */
    private long itemMark = -1;

    private RawInput(InputStream in) {
        this.in = in;
        this.kept = new byte[4 * window];
        this.end = -1;
    }

    private RawInput(byte[] data, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, data.length);
        this.in = null;
        this.kept = data;
        this.shift = -offset;
        this.end = length;
    }

    /**
     * Pins stream offset {@code from} for a capture if that byte is kept and is {@code expected}; false (nothing
     * pinned) otherwise.
     */
    boolean pin(long from, byte expected) {
        if (from < start || from >= read || kept[(int) (from - shift)] != expected) {
            return false;
        }
        pinned = from;
        return true;
    }

    /** Ends the capture started by {@link #pin}. */
    void unpin() {
        pinned = -1;
    }

    /**
     * Writes the kept bytes {@code [pinned, to)} to {@code out}, after checking that the last of them is
     * {@code last}.
     *
     * @throws IllegalStateException if the range is not kept or does not end with {@code last}: the capture is out
     *     of step with the parser, which is a bug, never something the input can cause
     */
    void copyPinned(long to, byte last, ByteArrayOutputStream out) {
        long from = pinned;
        if (from < 0 || to <= from || to > read || kept[(int) (to - 1 - shift)] != last) {
            throw new IllegalStateException("the raw text of a JSON value is out of step with its parser (bytes " + from
                    + " to " + to + ", " + read + " read)");
        }
        out.write(kept, (int) (from - shift), (int) (to - from));
    }

    @Override
    public boolean markItem(long from, byte expected) {
        if (from < start || from >= read || kept[(int) (from - shift)] != expected) {
            itemMark = -1;
            return false;
        }
        itemMark = from;
        return true;
    }

    @Override
    public void unmarkItem() {
        itemMark = -1;
    }

    @Override
    public byte[] markedItem(long to, byte last) {
        long from = itemMark;
        if (from < start || to <= from || to > read || kept[(int) (to - 1 - shift)] != last) {
            return null;
        }
        return java.util.Arrays.copyOfRange(kept, (int) (from - shift), (int) (to - shift));
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) {
            return 0;
        }
        if (in == null) {
            if (read >= end) {
                return -1;
            }
            int n = (int) Math.min(len, end - read);
            System.arraycopy(kept, (int) (read - shift), b, off, n);
            read += n;
            return n;
        }
        int n = in.read(b, off, len);
        if (n > 0) {
            window = Math.max(window, len);
            keep(b, off, n);
            read += n;
        }
        return n;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    /** Appends {@code n} new bytes, first dropping what the invariant no longer needs when there is no room. */
    private void keep(byte[] b, int off, int n) {
        int used = (int) (read - start);
        if (used + n > kept.length) {
            long from = Math.max(start, read + n - window);
            if (pinned >= 0) {
                from = Math.min(from, pinned);
            }
            if (itemMark >= 0) {
                from = Math.min(from, itemMark);
            }
            int keep = (int) (read - from);
            byte[] to = keep + n > kept.length ? new byte[Math.max(2 * kept.length, keep + n + window)] : kept;
            System.arraycopy(kept, (int) (from - shift), to, 0, keep);
            kept = to;
            start = from;
            shift = from;
        }
        System.arraycopy(b, off, kept, (int) (read - shift), n);
    }

    @Override
    public int available() throws IOException {
        return in == null ? (int) (end - read) : in.available();
    }

    @Override
    public void close() throws IOException {
        if (in != null) {
            in.close();
        }
    }

    private static final class Decorator extends InputDecorator {
        private static final long serialVersionUID = 1L;

        @Override
        public InputStream decorate(IOContext ctxt, InputStream in) throws JacksonException {
            return in instanceof RawInput ? in : new RawInput(in);
        }

        @Override
        public InputStream decorate(IOContext ctxt, byte[] src, int offset, int length) throws JacksonException {
            return new RawInput(src, offset, length);
        }

        @Override
        public Reader decorate(IOContext ctxt, Reader r) throws JacksonException {
            return r;
        }
    }
}
