package io.kubeloop.demo.internal.view;

import java.io.PrintStream;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * The demo's terminal output. On a terminal a block of status lines (one {@link Frame}) is redrawn in place with ANSI
 * escapes every refresh, and event lines ({@link #line}) scroll above it; otherwise (a pipe, a log, a test) event
 * lines are printed as they come and a one-line status every few seconds. Quiet: nothing at all. Thread-safe: event
 * lines may come from any thread; the refresh runs on its own virtual thread.
 */
public final class LiveView implements AutoCloseable {

    private LiveView() {}

    public static LiveView create(PrintStream out, boolean terminal, boolean quiet) {
        throw new UnsupportedOperationException("issue 19, work package 'view'");
    }

    /** Prints one event line (a step, a fault, a recovery) above the status block. */
    public void line(String text) {
        throw new UnsupportedOperationException();
    }

    /** Starts drawing {@code frames.get()} every {@code refresh} (real time). */
    public void start(Supplier<Frame> frames, Duration refresh) {
        throw new UnsupportedOperationException();
    }

    /** Draws a last frame, stops refreshing and leaves the cursor below the view. */
    @Override
    public void close() {
        throw new UnsupportedOperationException();
    }
}
