package io.kubeloop.controller;

import java.time.Duration;
import java.util.Objects;

/**
 * What a successful reconcile asks of its controller (controller-runtime's {@code reconcile.Result}):
 * <ul>
 *   <li>{@link #done()} — nothing more; the key's retry back-off is reset ({@code forget});</li>
 *   <li>{@link #requeueAfter(Duration)} — reconcile again after exactly this long (polling); the back-off is reset
 *       first, so the delay is the one given, not an exponential one;</li>
 *   <li>{@link #requeue()} — reconcile again after the rate limiter's delay; the back-off keeps growing.</li>
 * </ul>
 * A reconcile that throws is retried with the rate limiter's back-off whatever it would have returned.
 *
 * @param rateLimitedRequeue re-add the key after the rate limiter's delay ({@link #requeue()})
 * @param requeueDelay re-add the key after exactly this long ({@link #requeueAfter}); {@link Duration#ZERO}: not
 */
public record Result(boolean rateLimitedRequeue, Duration requeueDelay) {

    private static final Result DONE = new Result(false, Duration.ZERO);
    private static final Result REQUEUE = new Result(true, Duration.ZERO);

    public Result {
        Objects.requireNonNull(requeueDelay, "requeueDelay");
        if (requeueDelay.isNegative()) {
            throw new IllegalArgumentException("a requeue delay must not be negative: " + requeueDelay);
        }
        if (rateLimitedRequeue && !requeueDelay.isZero()) {
            throw new IllegalArgumentException("requeue() and requeueAfter(" + requeueDelay + ") are exclusive");
        }
    }

    /** Done: forget the key's back-off, do not requeue. */
    public static Result done() {
        return DONE;
    }

    /** Requeue after the rate limiter's (growing) delay. */
    public static Result requeue() {
        return REQUEUE;
    }

    /** Requeue after exactly {@code delay}, with the back-off reset; a zero delay is {@link #done()}. */
    public static Result requeueAfter(Duration delay) {
        Objects.requireNonNull(delay, "delay");
        return delay.isZero() ? DONE : new Result(false, delay);
    }
}
