package io.kubeloop.informer;

import io.kubeloop.client.codec.UndecodableObject;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A snapshot of an informer's condition, for readiness and liveness probes and dashboards: its state, the last
 * failure, whether it synced, and the objects it could not decode (left out of its cache, every other one served).
 *
 * @param name the informer's name
 * @param state what the informer is doing now
 * @param since when it entered {@code state} (the informer's clock)
 * @param lastError a one-line summary of the latest list or watch failure (no secrets); null when none since the
 *     last success
 * @param consecutiveFailures list or watch failures in a row; 0 after a success
 * @param synced whether the initial list has been fully processed (never goes back to false)
 * @param syncedAt when the informer was first seen synced; null while it is not
 * @param undecodableCount how many objects of the server the informer could not decode to its Java type and
 *     therefore does not cache (see {@code undecodableObjects} on the informer's builder); 0 when healthy
 * @param undecodableObjects the first {@value #UNDECODABLE_SHOWN} of them by namespace/name: each with its
 *     resourceVersion and the decoding error, never its content
 */
public record InformerHealth(
        String name,
        State state,
        Instant since,
        String lastError,
        int consecutiveFailures,
        boolean synced,
        Instant syncedAt,
        int undecodableCount,
        List<UndecodableObject> undecodableObjects) {

    /** At most this many undecodable objects are listed in a health snapshot (all are counted). */
    public static final int UNDECODABLE_SHOWN = 10;

    public InformerHealth {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(state, "state");
        undecodableObjects = List.copyOf(Objects.requireNonNull(undecodableObjects, "undecodableObjects"));
    }

    /** A snapshot with no undecodable objects. */
    public InformerHealth(
            String name,
            State state,
            Instant since,
            String lastError,
            int consecutiveFailures,
            boolean synced,
            Instant syncedAt) {
        this(name, state, since, lastError, consecutiveFailures, synced, syncedAt, 0, List.of());
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

    /**
     * Whether every object of the server decoded (and is cached): false while some do not, which a readiness
     * probe may ignore (the others are served) but a dashboard should show.
     */
    public boolean allDecoded() {
        return undecodableCount == 0;
    }
}
