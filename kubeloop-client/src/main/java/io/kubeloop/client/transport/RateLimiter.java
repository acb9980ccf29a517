package io.kubeloop.client.transport;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

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
 * <p>Implementation: golang.org/x/time/rate's reservation arithmetic kept as one number, the theoretical
 * arrival time {@code tat} of the next token (the generic cell rate algorithm): the bucket holds
 * {@code burst - (tat - now) / interval} tokens; taking one moves {@code tat} to {@code max(tat, now) + interval}
 * and the taker may go at {@code tat - burst × interval}. A compare-and-set replaces a lock, so concurrent
 * callers never queue behind one another here, only behind the clock.
 *
 * <p>Invariant: {@code tat} (nanoseconds since {@code origin}, a double's bits in {@code state}) only grows,
 * except that an interrupted {@link #acquire()} gives its interval back.
 */
public final class RateLimiter {

    /** The default sustained rate: see the class comment. */
    public static final double DEFAULT_QPS = 50;
    /** The default burst: see the class comment. */
    public static final int DEFAULT_BURST = 100;

    private static final RateLimiter UNLIMITED = new RateLimiter();

    private final Ticker ticker;
    private final long origin;
    /** Nanoseconds per token; 0 when unlimited. */
    private final double interval;
    /** How far ahead of now {@code tat} may run before callers must wait: {@code burst × interval}. */
    private final double burstNanos;
    private final double qps;
    private final int burst;
    private final AtomicLong state = new AtomicLong(Double.doubleToRawLongBits(0.0));

    private RateLimiter() {
        this.ticker = Ticker.system();
        this.origin = 0;
        this.interval = 0;
        this.burstNanos = 0;
        this.qps = Double.POSITIVE_INFINITY;
        this.burst = Integer.MAX_VALUE;
    }

    private RateLimiter(double qps, int burst, Ticker ticker) {
        if (!(qps > 0) || Double.isInfinite(qps)) {
            throw new IllegalArgumentException("qps must be a positive finite number, was " + qps
                    + " (use RateLimiter.unlimited() for no limit)");
        }
        if (burst < 1) {
            throw new IllegalArgumentException("burst must be at least 1, was " + burst);
        }
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.origin = ticker.nanoTime();
        this.interval = 1e9 / qps;
        this.burstNanos = burst * interval;
        this.qps = qps;
        this.burst = burst;
    }

    /** {@value #DEFAULT_QPS} QPS with a burst of {@value #DEFAULT_BURST}, on the system clock. */
    public static RateLimiter defaults() {
        return tokenBucket(DEFAULT_QPS, DEFAULT_BURST);
    }

    /** A token bucket on the system clock. */
    public static RateLimiter tokenBucket(double qps, int burst) {
        return tokenBucket(qps, burst, Ticker.system());
    }

    /**
     * A token bucket of {@code qps} tokens a second, full at start, holding at most {@code burst}.
     *
     * @throws IllegalArgumentException if {@code qps} is not a positive finite number or {@code burst < 1}
     */
    public static RateLimiter tokenBucket(double qps, int burst, Ticker ticker) {
        return new RateLimiter(qps, burst, ticker);
    }

    /** No client-side limit: {@link #acquire()} and {@link #tryAcquire()} always pass at once. */
    public static RateLimiter unlimited() {
        return UNLIMITED;
    }

    /**
     * Takes a token, waiting until one exists. Callers are served in the order they reserved, each at its own
     * time, so a burst of callers is spread at {@code 1/qps} intervals.
     *
     * @return how long the caller waited (zero when a token was there), for
     *     {@code rest_client_rate_limiter_duration_seconds}
     * @throws InterruptedException if interrupted while waiting; the token is given back
     */
    public Duration acquire() throws InterruptedException {
        if (interval == 0) {
            return Duration.ZERO;
        }
        long start = ticker.nanoTime();
        double now = start - origin;
        double wait;
        while (true) {
            long bits = state.get();
            double tat = Math.max(Double.longBitsToDouble(bits), now) + interval;
            if (state.compareAndSet(bits, Double.doubleToRawLongBits(tat))) {
                wait = tat - now - burstNanos;
                break;
            }
        }
        if (wait <= 0) {
            return Duration.ZERO;
        }
        try {
            ticker.sleep((long) Math.ceil(wait));
        } catch (InterruptedException e) {
            giveBack();
            throw e;
        }
        return Duration.ofNanos(Math.max(0, ticker.nanoTime() - start));
    }

    /** Takes a token if one is there now, without waiting. */
    public boolean tryAcquire() {
        if (interval == 0) {
            return true;
        }
        double now = ticker.nanoTime() - origin;
        while (true) {
            long bits = state.get();
            double tat = Math.max(Double.longBitsToDouble(bits), now) + interval;
            if (tat - now - burstNanos > 0) {
                return false;
            }
            if (state.compareAndSet(bits, Double.doubleToRawLongBits(tat))) {
                return true;
            }
        }
    }

    /**
     * Returns an interrupted caller's interval, as x/time/rate cancels a reservation: later reservations keep
     * their times, and the next new caller gets the freed slot. Never moves {@code tat} below now.
     */
    private void giveBack() {
        double now = ticker.nanoTime() - origin;
        while (true) {
            long bits = state.get();
            double tat = Double.longBitsToDouble(bits);
            double back = Math.max(tat - interval, now);
            if (back >= tat || state.compareAndSet(bits, Double.doubleToRawLongBits(back))) {
                return;
            }
        }
    }

    /** Tokens a second; infinite when unlimited. */
    public double qps() {
        return qps;
    }

    /** The most tokens the bucket holds. */
    public int burst() {
        return burst;
    }

    @Override
    public String toString() {
        return interval == 0 ? "RateLimiter[unlimited]" : "RateLimiter[qps=" + qps + ", burst=" + burst + "]";
    }
}
