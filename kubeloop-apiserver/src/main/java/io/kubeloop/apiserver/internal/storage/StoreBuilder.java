package io.kubeloop.apiserver.internal.storage;

import io.kubeloop.clock.Clock;
import java.util.Objects;

/** Configures an in-memory {@link Store}. Start at {@link Store#builder()}. */
public final class StoreBuilder {

    /** The default {@link #historyLimit(int)}. */
    public static final int DEFAULT_HISTORY_LIMIT = 10_000;

    private Clock clock = Clock.system();
    private int historyLimit = DEFAULT_HISTORY_LIMIT;

    StoreBuilder() {}

    /** The clock watch timeouts run on ({@link StoreWatch#next}); the system clock by default. */
    public StoreBuilder clock(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        return this;
    }

    /**
     * How many events (revisions) of history the store keeps: after each write, if more than this many
     * revisions follow the compacted revision, the store compacts to {@code currentRevision - historyLimit}.
     * So a watch can resume from any of the last {@code historyLimit} revisions. Default
     * {@value #DEFAULT_HISTORY_LIMIT}; at least 1.
     */
    public StoreBuilder historyLimit(int historyLimit) {
        if (historyLimit < 1) {
            throw new IllegalArgumentException("historyLimit must be at least 1, not " + historyLimit);
        }
        this.historyLimit = historyLimit;
        return this;
    }

    public Store build() {
        return new MvccStore(clock, historyLimit);
    }
}
