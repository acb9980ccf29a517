package io.kubeloop.workqueue;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Per-item exponential backoff: {@code base × 2^failures}, capped at {@code max}.
 *
 * <p>Invariant: {@code failures} holds an entry only for items that failed since they were last forgotten,
 * so a controller that forgets on success keeps this map as small as its set of failing items.
 */
final class ItemExponentialFailureRateLimiter<T> implements RateLimiter<T> {

    private final long baseNanos;
    private final long maxNanos;
    private final Duration max;
    private final ConcurrentHashMap<T, Integer> failures = new ConcurrentHashMap<>();

    ItemExponentialFailureRateLimiter(Duration base, Duration max) {
        RateLimiters.requirePositive(base, "base delay");
        RateLimiters.requireNonNegative(max, "max delay");
        if (max.compareTo(base) < 0) {
            throw new IllegalArgumentException("max delay " + max + " is shorter than base delay " + base);
        }
        this.baseNanos = saturatedNanos(base);
        this.maxNanos = saturatedNanos(max);
        this.max = max;
    }

    @Override
    public Duration when(T item) {
        Objects.requireNonNull(item, "item");
        // merge is atomic per key: concurrent failures of one item each see a distinct count.
        int exponent = failures.merge(item, 1, ItemExponentialFailureRateLimiter::saturatingAdd) - 1;
        double backoff = baseNanos * Math.pow(2, exponent);
        if (backoff >= 0x1p63) {
            return max; // beyond the longest duration in nanoseconds
        }
        // Compare as integers, as client-go does: above 2^53 a double cannot tell max from max - 1.
        long nanos = (long) backoff;
        return nanos >= maxNanos ? max : Duration.ofNanos(nanos);
    }

    @Override
    public void forget(T item) {
        failures.remove(item);
    }

    @Override
    public int numRequeues(T item) {
        return failures.getOrDefault(item, 0);
    }

    private static Integer saturatingAdd(Integer a, Integer b) {
        int sum = a + b;
        return sum < 0 ? Integer.MAX_VALUE : sum;
    }

    static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE;
        }
    }
}
