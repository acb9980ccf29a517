package io.kubeloop.workqueue;

import java.time.Duration;
import java.util.Objects;

/** Another limiter's delays, capped at {@code maxDelay}. */
final class WithMaxWaitRateLimiter<T> implements RateLimiter<T> {

    private final RateLimiter<T> limiter;
    private final Duration maxDelay;

    WithMaxWaitRateLimiter(RateLimiter<T> limiter, Duration maxDelay) {
        this.limiter = Objects.requireNonNull(limiter, "rate limiter");
        this.maxDelay = RateLimiters.requireNonNegative(maxDelay, "max delay");
    }

    @Override
    public Duration when(T item) {
        Duration d = limiter.when(item);
        return d.compareTo(maxDelay) > 0 ? maxDelay : d;
    }

    @Override
    public void forget(T item) {
        limiter.forget(item);
    }

    @Override
    public int numRequeues(T item) {
        return limiter.numRequeues(item);
    }
}
