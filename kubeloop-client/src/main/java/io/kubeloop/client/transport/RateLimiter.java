package io.kubeloop.client.transport;

import io.kubeloop.clock.Clock;
import io.kubeloop.clock.TokenBucket;
import java.time.Duration;

/**
 * The client-side rate limit every request passes before it is sent: a token bucket of {@code qps} tokens a
 * second holding at most {@code burst}, as client-go's {@code flowcontrol.NewTokenBucketRateLimiter}. One
 * limiter is shared by every request of a client (not one per resource type, which multiplied controller-runtime's
 * budget per GVK), watches included when they are opened, not while they stream.
 *
 * <p>Defaults ({@link #defaults()}): <b>50 QPS, burst 100</b>. client-go's 5 QPS / burst 10 is a kubectl-sized
 * budget: a controller that lists a few types at start and then writes a status per reconcile stalls behind it
 * (kueue#8564: "5 QPS per GVK"), which is why controller-runtime turns client-side limiting off and kube-controller-manager
 * raises it to 20/30. kubeloop keeps a limit, ten times client-go's, so that a reconcile loop gone wrong cannot
 * flood the API server, while the server's own API Priority and Fairness remains the real protection. Use
 * {@link #unlimited()} to rely on it alone, as controller-runtime does.
 *
 * <p>The bucket is kubeloop-clock's {@link TokenBucket} (golang.org/x/time/rate's reservations), and it waits
 * on its {@link Clock}: a limiter made by {@code KubernetesClient.builder().rateLimit(qps, burst)} runs on the
 * client's clock, so that a test with a {@code FakeClock} steps through rate limits instead of waiting for them.
 */
public final class RateLimiter {

    /** The default sustained rate: see the class comment. */
    public static final double DEFAULT_QPS = 50;
    /** The default burst: see the class comment. */
    public static final int DEFAULT_BURST = 100;

    private static final RateLimiter UNLIMITED = new RateLimiter(null);

    /** Null when unlimited. */
    private final TokenBucket bucket;

    private RateLimiter(TokenBucket bucket) {
        this.bucket = bucket;
    }

    /** {@value #DEFAULT_QPS} QPS with a burst of {@value #DEFAULT_BURST}, on the system clock. */
    public static RateLimiter defaults() {
        return tokenBucket(DEFAULT_QPS, DEFAULT_BURST);
    }

    /** A token bucket on the system clock. */
    public static RateLimiter tokenBucket(double qps, int burst) {
        return tokenBucket(qps, burst, Clock.system());
    }

    /**
     * A token bucket of {@code qps} tokens a second, full at start, holding at most {@code burst}, that waits on
     * {@code clock}.
     *
     * @throws IllegalArgumentException if {@code qps} is not a positive finite number or {@code burst < 1}
     */
    public static RateLimiter tokenBucket(double qps, int burst, Clock clock) {
        if (!(qps > 0) || Double.isInfinite(qps)) {
            throw new IllegalArgumentException(
                    "qps must be a positive finite number, was " + qps + " (use RateLimiter.unlimited() for no limit)");
        }
        return new RateLimiter(new TokenBucket(qps, burst, clock));
    }

    /** No client-side limit: {@link #acquire()} and {@link #tryAcquire()} always pass at once. */
    public static RateLimiter unlimited() {
        return UNLIMITED;
    }

    /**
     * Takes a token, waiting on the clock until one exists. Callers are served in the order they reserved, each at
     * its own time, so a burst of callers is spread at {@code 1/qps} intervals.
     *
     * @return how long the caller waited (zero when a token was there), for
     *     {@code rest_client_rate_limiter_duration_seconds}
     * @throws InterruptedException if interrupted while waiting; the token is given back
     */
    public Duration acquire() throws InterruptedException {
        return bucket == null ? Duration.ZERO : bucket.take();
    }

    /** Takes a token if one is there now, without waiting. */
    public boolean tryAcquire() {
        return bucket == null || bucket.tryTake();
    }

    /** Tokens a second; infinite when unlimited. */
    public double qps() {
        return bucket == null ? Double.POSITIVE_INFINITY : bucket.qps();
    }

    /** The most tokens the bucket holds. */
    public int burst() {
        return bucket == null ? Integer.MAX_VALUE : bucket.burst();
    }

    @Override
    public String toString() {
        return bucket == null ? "RateLimiter[unlimited]" : "RateLimiter[qps=" + qps() + ", burst=" + burst() + "]";
    }
}
