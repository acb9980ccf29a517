package io.kubeloop.client.transport;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A response body read as an {@link InputStream} while the connection keeps reading ahead. The JDK's
 * {@code BodyHandlers.ofInputStream()} asks the connection for the next chunk only when the reader takes the one
 * before (lock step): a reader that decodes as fast as bytes arrive — a watch in a burst, a large list — then waits
 * for a thread hand-off and a socket read at every chunk, and measured about half its time idle. Here up to
 * {@link #AHEAD} chunks (lists of buffers, about 16 KB each) are asked for at once, and one more each time the
 * reader takes one, so the connection stays that far ahead and memory stays bounded.
 *
 * <p>Semantics are those of the JDK's stream: {@code read} blocks until bytes arrive, returns -1 at the end of the
 * body, and throws an IOException carrying the connection's failure once the bytes received before it are read;
 * {@link #close} cancels the exchange (dropping an HTTP/1.1 connection, resetting an HTTP/2 stream), discards what
 * was read ahead and wakes a reader blocked in {@code read}, which then throws. An interrupted reader throws
 * {@link InterruptedIOException} and keeps its interrupt status. One reader at a time.
 */
final class ReadAheadBody extends InputStream implements HttpResponse.BodySubscriber<InputStream> {

    /** Chunks asked for ahead of the reader. */
    static final int AHEAD = 16;

    /** A body handler whose bodies read ahead. */
    static final HttpResponse.BodyHandler<InputStream> HANDLER = info -> new ReadAheadBody();

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition arrived = lock.newCondition();
    /** Guarded by lock: chunks received and not yet taken by the reader, at most {@link #AHEAD}. */
    private final ArrayDeque<List<ByteBuffer>> chunks = new ArrayDeque<>();
    /** Guarded by lock. */
    private Flow.Subscription subscription;

    private Throwable failure;
    private boolean complete;
    /** Written under lock; read by the reader without it, so that a closed body throws at once. */
    private volatile boolean closed;

    /** The reader's own: the buffers of the chunk being read, and the buffer being read. */
    private Iterator<ByteBuffer> chunk = List.<ByteBuffer>of().iterator();

    private ByteBuffer current;

    @Override
    public void onSubscribe(Flow.Subscription s) {
        Objects.requireNonNull(s, "subscription");
        lock.lock();
        try {
            if (subscription != null || closed) {
                s.cancel();
                return;
            }
            subscription = s;
        } finally {
            lock.unlock();
        }
        s.request(AHEAD);
    }

    @Override
    public void onNext(List<ByteBuffer> item) {
        lock.lock();
        try {
            if (!closed) {
                chunks.add(item);
                arrived.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void onError(Throwable throwable) {
        lock.lock();
        try {
            failure = Objects.requireNonNull(throwable, "throwable");
            arrived.signalAll();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void onComplete() {
        lock.lock();
        try {
            complete = true;
            arrived.signalAll();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public CompletionStage<InputStream> getBody() {
        return CompletableFuture.completedStage(this);
    }

    @Override
    public int read() throws IOException {
        ByteBuffer b = current(true);
        return b == null ? -1 : b.get() & 0xFF;
    }

    @Override
    public int read(byte[] into, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, into.length);
        if (len == 0) {
            return 0;
        }
        int n = 0;
        // Blocks only for the first byte; then copies whatever has already arrived.
        for (ByteBuffer b = current(true); b != null && n < len; b = current(false)) {
            int step = Math.min(len - n, b.remaining());
            b.get(into, off + n, step);
            n += step;
        }
        return n == 0 ? -1 : n;
    }

    @Override
    public int available() throws IOException {
        ByteBuffer b = current(false);
        return b == null ? 0 : b.remaining();
    }

    /**
     * The buffer to read from, with bytes remaining; null at the end of the body, or, when {@code block} is false,
     * when nothing more has arrived yet (or the end or a failure has, which the next blocking read reports).
     */
    private ByteBuffer current(boolean block) throws IOException {
        if (closed) {
            throw new IOException("the response body was closed");
        }
        while (current == null || !current.hasRemaining()) {
            if (chunk.hasNext()) {
                current = chunk.next();
                continue;
            }
            List<ByteBuffer> next = take(block);
            if (next == null) {
                return null;
            }
            chunk = next.iterator();
        }
        return current;
    }

    /** The next chunk (asking the connection for one more in its place); null at the end, or if none is there and
     * {@code block} is false. */
    private List<ByteBuffer> take(boolean block) throws IOException {
        List<ByteBuffer> next;
        Flow.Subscription s;
        lock.lock();
        try {
            if (chunks.isEmpty() && !block) {
                return null; // the end or a failure is for the next blocking read to report
            }
            while (chunks.isEmpty() && failure == null && !complete && !closed) {
                try {
                    arrived.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("interrupted while reading the response body");
                }
            }
            if (closed) {
                throw new IOException("the response body was closed");
            }
            next = chunks.poll();
            if (next == null) {
                if (failure != null) {
                    throw failure instanceof IOException io
                            ? new IOException(io.getMessage(), io)
                            : new IOException(failure);
                }
                return null; // complete
            }
            s = subscription;
        } finally {
            lock.unlock();
        }
        s.request(1);
        return next;
    }

    @Override
    public void close() {
        Flow.Subscription s;
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            chunks.clear();
            s = subscription;
            arrived.signalAll();
        } finally {
            lock.unlock();
        }
        if (s != null) {
            s.cancel();
        }
    }
}
