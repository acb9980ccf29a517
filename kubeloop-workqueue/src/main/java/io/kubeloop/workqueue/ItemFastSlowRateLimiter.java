package io.kubeloop.workqueue;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/** Per-item: {@code fast} for the first {@code maxFastAttempts} failures, {@code slow} after. */
final class ItemFastSlowRateLimiter<T> implements RateLimiter<T> {

    private final Duration fast;
    private final Duration slow;
    private final int maxFastAttempts;
    private final ConcurrentHashMap<T, Integer> failures = new ConcurrentHashMap<>();

    ItemFastSlowRateLimiter(Duration fast, Duration slow, int maxFastAttempts) {
        this.fast = RateLimiters.requireNonNegative(fast, "fast delay");
        this.slow = RateLimiters.requireNonNegative(slow, "slow delay");
        if (maxFastAttempts < 0) {
            throw new IllegalArgumentException("maxFastAttempts must not be negative, was " + maxFastAttempts);
        }
        this.maxFastAttempts = maxFastAttempts;
    }

    @Override
    public Duration when(T item) {
        Objects.requireNonNull(item, "item");
        int attempts = failures.merge(item, 1, (a, b) -> a == Integer.MAX_VALUE ? a : a + b);
        return attempts <= maxFastAttempts ? fast : slow;
    }

    @Override
    public void forget(T item) {
        failures.remove(item);
    }

    @Override
    public int numRequeues(T item) {
        return failures.getOrDefault(item, 0);
    }
}
