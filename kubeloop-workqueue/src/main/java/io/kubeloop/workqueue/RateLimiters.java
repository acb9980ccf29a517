package io.kubeloop.workqueue;

import io.kubeloop.clock.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * The rate limiters of client-go's {@code workqueue} package, with the same behaviour and defaults.
 *
 * <p>Choosing the retry delays: the per-item exponential limiter's base delay should be short enough that a
 * transient failure is retried almost at once and long enough not to hammer a struggling API server —
 * 5–50 ms is the usual range; its cap bounds how stale a persistently failing object may become —
 * 5–15 minutes is the usual range. client-go's defaults (5 ms, 1000 s) sit at the edges of those ranges;
 * {@link #defaultControllerRateLimiter()} keeps them for compatibility, and every factory here takes the
 * values explicitly when you want others.
 */
public final class RateLimiters {

    /** Base delay of {@link #defaultControllerRateLimiter()}'s per-item exponential backoff: 5 ms. */
    public static final Duration DEFAULT_CONTROLLER_BASE_DELAY = Duration.ofMillis(5);
    /** Cap of {@link #defaultControllerRateLimiter()}'s per-item exponential backoff: 1000 s. */
    public static final Duration DEFAULT_CONTROLLER_MAX_DELAY = Duration.ofSeconds(1000);
    /** Overall rate of {@link #defaultControllerRateLimiter()}'s token bucket: 10 per second. */
    public static final double DEFAULT_CONTROLLER_QPS = 10;
    /** Burst of {@link #defaultControllerRateLimiter()}'s token bucket: 100. */
    public static final int DEFAULT_CONTROLLER_BURST = 100;
    /** Base delay of {@link #defaultItemBasedRateLimiter()}: 1 ms. */
    public static final Duration DEFAULT_ITEM_BASE_DELAY = Duration.ofMillis(1);
    /** Cap of {@link #defaultItemBasedRateLimiter()}: 1000 s. */
    public static final Duration DEFAULT_ITEM_MAX_DELAY = Duration.ofSeconds(1000);

    private RateLimiters() {}

    /**
     * Per-item exponential backoff: the n-th consecutive failure of an item waits {@code base × 2^(n-1)},
     * capped at {@code max} (computed in floating point, so very high failure counts give {@code max}
     * rather than overflowing). With (5 ms, 1000 s): 5, 10, 20, 40 ms, … 655.36 s, then 1000 s from the
     * 19th failure on.
     */
    public static <T> RateLimiter<T> exponentialFailure(Duration base, Duration max) {
        return new ItemExponentialFailureRateLimiter<>(base, max);
    }

    /** client-go's {@code DefaultItemBasedRateLimiter}: exponential from 1 ms to 1000 s. */
    public static <T> RateLimiter<T> defaultItemBasedRateLimiter() {
        return exponentialFailure(DEFAULT_ITEM_BASE_DELAY, DEFAULT_ITEM_MAX_DELAY);
    }

    /**
     * Per-item: the first {@code maxFastAttempts} failures of an item wait {@code fast}, later ones
     * {@code slow}.
     */
    public static <T> RateLimiter<T> fastSlow(Duration fast, Duration slow, int maxFastAttempts) {
        return new ItemFastSlowRateLimiter<>(fast, slow, maxFastAttempts);
    }

    /**
     * Overall token bucket, across all items: holds up to {@code burst} tokens and refills at {@code qps}
     * tokens per second. Each call reserves a token and returns the wait until it is available; it never
     * refuses, so calls beyond the burst get delays that grow by {@code 1/qps} each. Does not track items.
     */
    public static <T> RateLimiter<T> bucket(double qps, int burst) {
        return bucket(qps, burst, Clock.system());
    }

    /** {@link #bucket(double, int)} on the given clock. */
    public static <T> RateLimiter<T> bucket(double qps, int burst, Clock clock) {
        return new BucketRateLimiter<>(qps, burst, clock);
    }

    /**
     * Asks every limiter (each records the failure) and waits the longest of their answers;
     * {@code numRequeues} is the largest of theirs and {@code forget} forgets in all of them.
     */
    @SafeVarargs
    @SuppressWarnings("varargs") // List.of only reads and copies the array, so no heap pollution can escape
    public static <T> RateLimiter<T> maxOf(RateLimiter<T>... limiters) {
        Objects.requireNonNull(limiters, "limiters");
        return maxOf(Arrays.asList(limiters));
    }

    /**
     * {@link #maxOf(RateLimiter[])} of a collection built at run time, asked in its iteration order. The
     * collection is copied: later changes to it do not change the limiter.
     *
     * @throws IllegalArgumentException {@code limiters} is empty
     * @throws NullPointerException {@code limiters} or one of its elements is null (the message gives its
     *     position)
     */
    public static <T> RateLimiter<T> maxOf(Collection<? extends RateLimiter<T>> limiters) {
        Objects.requireNonNull(limiters, "limiters");
        List<RateLimiter<T>> copy = new ArrayList<>(limiters.size());
        for (RateLimiter<T> limiter : limiters) {
            copy.add(Objects.requireNonNull(limiter, () -> "maxOf: rate limiter " + copy.size() + " is null"));
        }
        return new MaxOfRateLimiter<>(List.copyOf(copy));
    }

    /** Caps every delay of {@code limiter} at {@code maxDelay}. */
    public static <T> RateLimiter<T> withMaxWait(RateLimiter<T> limiter, Duration maxDelay) {
        return new WithMaxWaitRateLimiter<>(limiter, maxDelay);
    }

    /**
     * client-go's {@code DefaultControllerRateLimiter}: the larger of a per-item exponential backoff
     * (5 ms to 1000 s) and an overall token bucket (10 per second, burst 100). Uses the system clock.
     */
    public static <T> RateLimiter<T> defaultControllerRateLimiter() {
        return defaultControllerRateLimiter(Clock.system());
    }

    /** {@link #defaultControllerRateLimiter()} with its token bucket on the given clock. */
    public static <T> RateLimiter<T> defaultControllerRateLimiter(Clock clock) {
        return maxOf(
                exponentialFailure(DEFAULT_CONTROLLER_BASE_DELAY, DEFAULT_CONTROLLER_MAX_DELAY),
                bucket(DEFAULT_CONTROLLER_QPS, DEFAULT_CONTROLLER_BURST, clock));
    }

    static Duration requirePositive(Duration d, String what) {
        Objects.requireNonNull(d, what);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(what + " must be positive, was " + d);
        }
        return d;
    }

    static Duration requireNonNegative(Duration d, String what) {
        Objects.requireNonNull(d, what);
        if (d.isNegative()) {
            throw new IllegalArgumentException(what + " must not be negative, was " + d);
        }
        return d;
    }
}
