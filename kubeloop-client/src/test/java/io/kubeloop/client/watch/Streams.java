package io.kubeloop.client.watch;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** Byte streams for the decoder and watch tests. */
final class Streams {

    private Streams() {}

    static InputStream of(String s) {
        return new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8));
    }

    /** Hands out at most {@code chunk} bytes per read, as a slow network does. */
    static InputStream chunked(String s, int chunk) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        return new InputStream() {
            private int pos;

            @Override
            public int read() {
                return pos < bytes.length ? bytes[pos++] & 0xff : -1;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (len == 0) {
                    return 0;
                }
                if (pos >= bytes.length) {
                    return -1;
                }
                int n = Math.min(Math.min(len, chunk), bytes.length - pos);
                System.arraycopy(bytes, pos, b, off, n);
                pos += n;
                return n;
            }
        };
    }

    /**
     * A pipe the test writes into, read by the watch: reads block until bytes are written, the test ends it, or
     * someone closes it. Reads ignore interrupts, so that only closing the stream can release a blocked reader.
     */
    static final class Feed extends InputStream {
        private static final byte[] EOF = new byte[0];
        private final LinkedBlockingQueue<byte[]> chunks = new LinkedBlockingQueue<>();
        private byte[] current = new byte[0];
        private int pos;
        private volatile boolean closed;
        private volatile boolean ended;

        void write(String s) {
            chunks.add(s.getBytes(StandardCharsets.UTF_8));
        }

        /** A clean end of stream after what was written. */
        void end() {
            chunks.add(EOF);
        }

        boolean isClosed() {
            return closed;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            while (pos >= current.length) {
                if (closed) {
                    throw new IOException("stream closed");
                }
                if (ended) {
                    return -1;
                }
                byte[] next;
                try {
                    next = chunks.poll(10, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    continue; // deliberately deaf to interrupts
                }
                if (next == EOF) {
                    ended = true;
                } else if (next != null) {
                    current = next;
                    pos = 0;
                }
            }
            int n = Math.min(len, current.length - pos);
            System.arraycopy(current, pos, b, off, n);
            pos += n;
            return n;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    static String pod(String type, String name, String rv) {
        return "{\"type\":\"" + type + "\",\"object\":{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\""
                + name + "\",\"namespace\":\"default\",\"resourceVersion\":\"" + rv
                + "\",\"labels\":{\"app\":\"web\"}},"
                + "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx:1.27\"}]},\"status\":{\"phase\":\"Pending\"}}}";
    }

    static String bookmark(String rv, boolean initialEventsEnd) {
        return "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\""
                + rv + "\",\"creationTimestamp\":null"
                + (initialEventsEnd ? ",\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}" : "") + "}}}";
    }

    static final String EXPIRED =
            "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
                    + "\"status\":\"Failure\",\"message\":\"too old resource version: 5 (99)\",\"reason\":\"Expired\",\"code\":410}}";
}
