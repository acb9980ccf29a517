package io.kubeloop.workqueue;

import io.kubeloop.clock.Clock;
import io.kubeloop.clock.TokenBucket;
import java.time.Duration;

/**
 * An overall token bucket, as client-go's {@code BucketRateLimiter}: {@code when} reserves a token of the one
 * {@link TokenBucket} and returns how long until it exists; it never refuses, so the n-th call beyond the burst
 * waits {@code n / qps}. Items do not matter: {@code forget} gives nothing back and nothing is counted.
 */
final class BucketRateLimiter<T> implements RateLimiter<T> {

    private final TokenBucket bucket;

    BucketRateLimiter(double qps, int burst, Clock clock) {
        this.bucket = new TokenBucket(qps, burst, clock);
    }

    @Override
    public Duration when(T item) {
        return bucket.reserve();
    }

    @Override
    public void forget(T item) {}

    @Override
    public int numRequeues(T item) {
        return 0;
    }
}
