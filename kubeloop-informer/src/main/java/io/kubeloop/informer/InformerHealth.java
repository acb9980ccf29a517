package io.kubeloop.informer;

import java.time.Instant;
import java.util.Objects;

/**
 * A snapshot of an informer's condition, for readiness and liveness probes and dashboards.
 *
 * @param name the informer's name
 * @param state what the informer is doing now
 * @param since when it entered {@code state} (the informer's clock)
 * @param lastError a one-line summary of the latest list or watch failure (no secrets); null when none since the
 *     last success
 * @param consecutiveFailures list or watch failures in a row; 0 after a success
 * @param synced whether the initial list has been fully processed (never goes back to false)
 * @param syncedAt when the informer was first seen synced; null while it is not
 */
public record InformerHealth(
        String name,
        State state,
        Instant since,
        String lastError,
        int consecutiveFailures,
        boolean synced,
        Instant syncedAt) {

    public InformerHealth {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(state, "state");
    }

    /** What an informer is doing. */
    public enum State {
        /** {@code start()} has not been called. */
        NOT_STARTED,
        /** Listing (the initial list or a relist). */
        LISTING,
        /** A watch is open and events flow. */
        WATCHING,
        /** A list or watch failed; waiting before the next attempt ({@code lastError} says why). */
        BACKING_OFF,
        /**
         * Stopped for good: by {@code stop()}, or because its reflector ended without being stopped (an
         * {@link Error} from a transform, say; {@code lastError} then starts with "reflector ended:").
         */
        STOPPED
    }

    /**
     * Ready to serve reads: synced and not stopped. An informer backing off after it synced stays ready (its cache
     * is stale, not empty); alert on {@code consecutiveFailures} or on how long it has been in BACKING_OFF.
     */
    public boolean isReady() {
        return synced && state != State.STOPPED;
    }
}
