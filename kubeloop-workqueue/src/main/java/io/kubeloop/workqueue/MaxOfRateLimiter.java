package io.kubeloop.workqueue;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/** The longest delay of several limiters; every limiter records every failure. */
final class MaxOfRateLimiter<T> implements RateLimiter<T> {

    private final List<RateLimiter<T>> limiters;

    MaxOfRateLimiter(List<RateLimiter<T>> limiters) {
        if (limiters.isEmpty()) {
            throw new IllegalArgumentException("maxOf needs at least one rate limiter");
        }
        limiters.forEach(l -> Objects.requireNonNull(l, "rate limiter"));
        this.limiters = limiters;
    }

    @Override
    public Duration when(T item) {
        Duration longest = Duration.ZERO;
        for (RateLimiter<T> limiter : limiters) {
            Duration d = limiter.when(item);
            if (d.compareTo(longest) > 0) {
                longest = d;
            }
        }
        return longest;
    }

    @Override
    public void forget(T item) {
        for (RateLimiter<T> limiter : limiters) {
            limiter.forget(item);
        }
    }

    @Override
    public int numRequeues(T item) {
        int most = 0;
        for (RateLimiter<T> limiter : limiters) {
            most = Math.max(most, limiter.numRequeues(item));
        }
        return most;
    }
}
