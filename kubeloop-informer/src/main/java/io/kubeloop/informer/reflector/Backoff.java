package io.kubeloop.informer.reflector;

import java.time.Duration;
import java.util.Objects;

/**
 * How long a {@link Reflector} waits after a failure before it lists or watches again: client-go's reflector
 * backoff. Each delay is the current step plus a random jitter in {@code [0, jitter × step)}; the step then grows
 * by {@code factor} up to {@code cap}, where it stays. When more than {@code resetAfter} has passed since the
 * backoff last started from {@code initial}, the next delay starts from {@code initial} again.
 *
 * <p>{@link #DEFAULT} is client-go's: 800 ms, ×2, jitter 1.0, cap 30 s, reset after 2 minutes, giving delays in
 * [0.8, 1.6) s, [1.6, 3.2), [3.2, 6.4), [6.4, 12.8), [12.8, 25.6), [25.6, 51.2), then [30, 60) s. A reflector's
 * relist loop and its in-place watch retries (refused connection, 429) share one backoff.
 *
 * <pre>{@code
 * Backoff fast = Backoff.DEFAULT.withInitial(Duration.ofMillis(100)).withCap(Duration.ofSeconds(5));
 * }</pre>
 *
 * @param initial the first delay (before jitter); positive
 * @param factor how much each delay grows; at least 1.0
 * @param jitter the random extra, as a fraction of the step; 0 for none, at most 10
 * @param cap the largest step (before jitter); at least {@code initial}
 * @param resetAfter after this long since the backoff last started over, it starts over; positive
 */
public record Backoff(Duration initial, double factor, double jitter, Duration cap, Duration resetAfter) {

    /** client-go's: 800 ms, ×2.0, jitter 1.0, cap 30 s, reset after 2 minutes. */
    public static final Backoff DEFAULT =
            new Backoff(Duration.ofMillis(800), 2.0, 1.0, Duration.ofSeconds(30), Duration.ofMinutes(2));

    public Backoff {
        Objects.requireNonNull(initial, "initial");
        Objects.requireNonNull(cap, "cap");
        Objects.requireNonNull(resetAfter, "resetAfter");
        if (initial.isNegative() || initial.isZero()) {
            throw new IllegalArgumentException("backoff initial must be positive, was " + initial);
        }
        if (!(factor >= 1.0) || Double.isInfinite(factor)) {
            throw new IllegalArgumentException("backoff factor must be a finite number ≥ 1.0, was " + factor);
        }
        if (!(jitter >= 0.0 && jitter <= 10.0)) {
            throw new IllegalArgumentException("backoff jitter must be in [0, 10], was " + jitter);
        }
        if (cap.compareTo(initial) < 0) {
            throw new IllegalArgumentException("backoff cap " + cap + " is below its initial " + initial);
        }
        if (resetAfter.isNegative() || resetAfter.isZero()) {
            throw new IllegalArgumentException("backoff resetAfter must be positive, was " + resetAfter);
        }
    }

    public Backoff withInitial(Duration initial) {
        return new Backoff(initial, factor, jitter, cap, resetAfter);
    }

    public Backoff withFactor(double factor) {
        return new Backoff(initial, factor, jitter, cap, resetAfter);
    }

    public Backoff withJitter(double jitter) {
        return new Backoff(initial, factor, jitter, cap, resetAfter);
    }

    public Backoff withCap(Duration cap) {
        return new Backoff(initial, factor, jitter, cap, resetAfter);
    }

    public Backoff withResetAfter(Duration resetAfter) {
        return new Backoff(initial, factor, jitter, cap, resetAfter);
    }
}
