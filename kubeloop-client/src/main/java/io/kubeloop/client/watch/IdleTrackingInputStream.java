package io.kubeloop.client.watch;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.InstantSource;

/**
 * Knows how long its reader has been waiting for bytes. Jackson calls {@code read} only when it has consumed
 * everything read so far, so a read in progress is a reader that needs bytes, and the time since the read began
 * is the time since the last byte arrived. A reader that is not reading (because its consumer is slow and the
 * event queue is full) is not idle: that is back-pressure, not a dead connection.
 */
final class IdleTrackingInputStream extends FilterInputStream {

    private static final long NOT_READING = Long.MIN_VALUE;

    private final InstantSource clock;
    /**
     * The clock's millis when the read in progress began; {@link #NOT_READING} between reads. Written only by
     * the reading thread, read by the watchdog.
     */
    private volatile long readingSince = NOT_READING;

    IdleTrackingInputStream(InputStream in, InstantSource clock) {
        super(in);
        this.clock = clock;
    }

    @Override
    public int read() throws IOException {
        readingSince = clock.millis();
        try {
            return super.read();
        } finally {
            readingSince = NOT_READING;
        }
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        readingSince = clock.millis();
        try {
            return in.read(b, off, len);
        } finally {
            readingSince = NOT_READING;
        }
    }

    /** How long, in the clock's millis, the read in progress has waited at {@code nowMillis}; 0 between reads. */
    long waitingMillis(long nowMillis) {
        long since = readingSince;
        return since == NOT_READING ? 0 : Math.max(0, nowMillis - since);
    }
}
