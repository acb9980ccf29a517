package io.kubeloop.workqueue;

import io.kubeloop.clock.Clock;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An overall token bucket with golang.org/x/time/rate's reservation semantics, as client-go uses it:
 * {@code when} reserves a token and returns how long until it exists; it never refuses, so the n-th call
 * beyond the burst waits {@code n / qps}.
 *
 * <p>Kept as one number, the theoretical arrival time {@code tat} of the next token (the generic cell rate
 * algorithm): the bucket holds {@code burst - (tat - now) / interval} tokens, a call moves {@code tat} to
 * {@code max(tat, now) + interval}, and waits until {@code tat - burst × interval}. That is the token
 * bucket's arithmetic exactly, but a single compare-and-set replaces the lock, so concurrent workers
 * never queue behind one another here.
 *
 * <p>Invariant: {@code tat} (nanoseconds since {@code origin}, as a double, in {@code state}) only grows.
 */
final class BucketRateLimiter<T> implements RateLimiter<T> {

    private final Clock clock;
    private final long origin;
    /** Nanoseconds per token. */
    private final double interval;
    /** How far ahead of now {@code tat} may run before calls must wait: {@code burst × interval}. */
    private final double burstNanos;
    private final AtomicLong state = new AtomicLong(Double.doubleToRawLongBits(0.0));

    BucketRateLimiter(double qps, int burst, Clock clock) {
        if (!(qps > 0) || Double.isInfinite(qps)) {
            throw new IllegalArgumentException("qps must be a positive finite number, was " + qps);
        }
        if (burst < 1) {
            throw new IllegalArgumentException("burst must be at least 1, was " + burst);
        }
        this.clock = Objects.requireNonNull(clock, "clock");
        this.origin = clock.nanoTime();
        this.interval = 1e9 / qps;
        this.burstNanos = burst * interval;
    }

    @Override
    public Duration when(T item) {
        double now = clock.nanoTime() - origin;
        while (true) {
            long bits = state.get();
            double tat = Math.max(Double.longBitsToDouble(bits), now) + interval;
            if (state.compareAndSet(bits, Double.doubleToRawLongBits(tat))) {
                double wait = tat - now - burstNanos;
                return wait <= 0 ? Duration.ZERO : Duration.ofNanos((long) wait);
            }
        }
    }

    @Override
    public void forget(T item) {}

    @Override
    public int numRequeues(T item) {
        return 0;
    }
}
