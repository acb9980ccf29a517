package io.kubeloop.apiserver.fault;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * A watch's response body that holds every write, and the end of the stream, while a partition or stall applies
 * to the watch. Flushes pass, so what was written before the hold still reaches the client.
 */
final class HeldWatchBody extends FilterOutputStream {

    private final Faults faults;
    private final Faults.OpenWatch watch;

    HeldWatchBody(OutputStream body, Faults faults, Faults.OpenWatch watch) {
        super(body);
        this.faults = faults;
        this.watch = watch;
    }

    @Override
    public void write(int b) throws IOException {
        faults.holdWatchWrite(watch);
        out.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        faults.holdWatchWrite(watch);
        out.write(b, off, len);
    }

    @Override
    public void close() throws IOException {
        try {
            faults.holdWatchWrite(watch);
        } finally {
            out.close();
        }
    }
}
