package io.kubeloop.workqueue;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An overall token bucket (golang.org/x/time/rate semantics, as client-go uses it): {@code when} reserves a
 * token and returns how long until it exists. Tokens may go negative — a reservation of a future token —
 * so that the n-th call beyond the burst waits {@code n / qps}.
 *
 * <p>Invariant: {@code tokens ≤ burst}; {@code tokens} is the balance as of {@code lastNanos}.
 */
final class BucketRateLimiter<T> implements RateLimiter<T> {

    private final double qps;
    private final int burst;
    private final Clock clock;
    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by {@code lock}. */
    private double tokens;
    /** Guarded by {@code lock}. */
    private long lastNanos;

    BucketRateLimiter(double qps, int burst, Clock clock) {
        if (!(qps > 0) || Double.isInfinite(qps)) {
            throw new IllegalArgumentException("qps must be a positive finite number, was " + qps);
        }
        if (burst < 1) {
            throw new IllegalArgumentException("burst must be at least 1, was " + burst);
        }
        this.qps = qps;
        this.burst = burst;
        this.clock = Objects.requireNonNull(clock, "clock");
        this.tokens = burst;
        this.lastNanos = clock.nanoTime();
    }

    @Override
    public Duration when(T item) {
        lock.lock();
        try {
            long now = clock.nanoTime();
            long elapsed = now - lastNanos;
            if (elapsed > 0) {
                tokens = Math.min(burst, tokens + elapsed * qps / 1e9);
                lastNanos = now;
            }
            tokens -= 1;
            if (tokens >= 0) {
                return Duration.ZERO;
            }
            return Duration.ofNanos((long) (-tokens * 1e9 / qps));
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void forget(T item) {}

    @Override
    public int numRequeues(T item) {
        return 0;
    }
}
