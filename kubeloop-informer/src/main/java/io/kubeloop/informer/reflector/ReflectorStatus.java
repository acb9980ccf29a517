package io.kubeloop.informer.reflector;

import java.time.Instant;
import java.util.Objects;

/**
 * What a {@link Reflector} is doing now, for health checks and dashboards.
 *
 * @param phase what it is doing
 * @param lastError a one-line summary of the failure behind the current trouble (type and message, never
 *     credentials); null once a list succeeds or a watch opens again
 * @param since when the current phase began ({@code clock.now()})
 * @param consecutiveFailures failures since the last successful list or watch open
 */
public record ReflectorStatus(Phase phase, String lastError, Instant since, int consecutiveFailures) {

    public ReflectorStatus {
        Objects.requireNonNull(phase, "phase");
        Objects.requireNonNull(since, "since");
    }

    /** The phases of a reflector's life. */
    public enum Phase {
        /** {@code run()} has not been called. */
        NOT_STARTED,
        /** Listing (initially, or relisting after a failure or an expired resourceVersion). */
        LISTING,
        /** A watch is open, or being opened again right after a clean end. */
        WATCHING,
        /** Waiting after a failure before listing or watching again. */
        BACKING_OFF,
        /** {@code stop()} was called; {@code run()} has returned or is returning. */
        STOPPED
    }
}
