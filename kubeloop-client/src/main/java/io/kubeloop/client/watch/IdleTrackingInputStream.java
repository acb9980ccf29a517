package io.kubeloop.client.watch;

import io.kubeloop.clock.Clock;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Knows how long its reader has been waiting for bytes. Jackson calls {@code read} only when it has consumed
 * everything read so far, so a read in progress is a reader that needs bytes, and the time since the read began
 * is the time since the last byte arrived. A reader that is not reading (because its consumer is slow and the
 * event queue is full) is not idle: that is back-pressure, not a dead connection.
 */
final class IdleTrackingInputStream extends FilterInputStream {

    private static final long NOT_READING = Long.MIN_VALUE;

    private final Clock clock;
    /**
     * The clock's nanoTime when the read in progress began; {@link #NOT_READING} between reads. Written only by
     * the reading thread, read by the idle rule's task.
     */
    private volatile long readingSince = NOT_READING;

    IdleTrackingInputStream(InputStream in, Clock clock) {
        super(in);
        this.clock = clock;
    }

    @Override
    public int read() throws IOException {
        readingSince = clock.nanoTime();
        try {
            return super.read();
        } finally {
            readingSince = NOT_READING;
        }
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        readingSince = clock.nanoTime();
        try {
            return in.read(b, off, len);
        } finally {
            readingSince = NOT_READING;
        }
    }

    /** How long, in the clock's nanoseconds, the read in progress has waited at {@code nowNanos}; -1 between reads. */
    long waitingNanos(long nowNanos) {
        long since = readingSince;
        return since == NOT_READING ? -1 : Math.max(0, nowNanos - since);
    }
}
