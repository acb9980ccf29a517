package io.kubeloop.apiserver.internal.storage;

import java.time.Duration;
import java.util.OptionalLong;

/**
 * The consumer side of a watch opened with {@link Store#watch} or {@link Store#listAndWatch}.
 *
 * <p>Invariants: the watcher receives every event of its range after its start revision exactly once, in
 * strictly increasing revision order, and nothing else; a BOOKMARK or {@link #bookmarkRevision()} never
 * carries a revision older than an event already taken. A writer never waits for a watcher.
 *
 * <p>A watch buffers at most {@code bufferSize} events that the consumer has not taken yet. One more event
 * terminates the watch ({@link EndReason#OVERFLOWED}): its buffered events are dropped, the consumer sees the
 * end of the stream, and, like a client of kube-apiserver, re-watches from the last revision it received.
 * The initial objects of {@link Store#listAndWatch} and the history replayed by {@link Store#watch} do not
 * count against the buffer.
 *
 * <p>One consumer thread at a time; {@link #close()} and {@link #bookmarkRevision()} may be called from any
 * thread.
 */
public interface StoreWatch extends AutoCloseable {

    /** Why a watch ended. */
    enum EndReason {
        /** {@link #close()} was called. */
        CLOSED,
        /** The store was closed. */
        STORE_CLOSED,
        /** The consumer fell more than {@code bufferSize} events behind. */
        OVERFLOWED,
        /** The start revision was compacted; the last event was an ERROR with a 410 Expired Status. */
        EXPIRED,
        /** The filter threw; the last event was an ERROR with a 500 Status. */
        FILTER_FAILED
    }

    /**
     * Takes the next event, waiting on the store's clock for at most {@code timeout}.
     *
     * @return the event, or null if none arrived in time or the watch has ended ({@link #isDone()} tells which)
     */
    StoreEvent next(Duration timeout) throws InterruptedException;

    /** True once the watch has ended and every event it will ever deliver has been taken. */
    boolean isDone();

    /** Why the watch ended, or null while it is running. */
    EndReason endReason();

    /**
     * A revision the REST layer may send as a BOOKMARK now: every event of this watch up to it has been taken,
     * and it is not older than any event taken. Non-decreasing from call to call. Empty while the initial
     * objects of a {@link Store#listAndWatch} are still being taken, or once the watch has ended.
     */
    OptionalLong bookmarkRevision();

    /** Ends the watch (idempotent); pending events are dropped. */
    @Override
    void close();
}
