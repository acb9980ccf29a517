package io.kubeloop.clock;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A token bucket of {@code qps} tokens a second holding at most {@code burst}, full at start, with
 * golang.org/x/time/rate's reservation semantics (client-go's {@code flowcontrol} and the work queue's
 * {@code BucketRateLimiter} both use it). kubeloop's one copy of the algorithm: the client's request rate limit
 * and the work queue's overall rate limit are both this class.
 *
 * <ul>
 *   <li>{@link #reserve()} takes a token and says how long until it exists; it never refuses, so the n-th call
 *       beyond the burst waits {@code n / qps};</li>
 *   <li>{@link #tryTake()} takes a token only if one is there now;</li>
 *   <li>{@link #take()} reserves and then waits on the clock; an interrupted wait gives its token back.</li>
 * </ul>
 *
 * <p>Kept as one number, the theoretical arrival time {@code tat} of the next token (the generic cell rate
 * algorithm): the bucket holds {@code burst - (tat - now) / interval} tokens; taking one moves {@code tat} to
 * {@code max(tat, now) + interval}, and the taker may go at {@code tat - burst × interval}. That is the token
 * bucket's arithmetic exactly, but one compare-and-set replaces the lock, so concurrent callers never queue
 * behind one another here, only behind the clock. Waits are truncated to whole nanoseconds, as x/time/rate
 * does: the token is the caller's from the moment it reserved, so waking a fraction of a nanosecond early
 * takes no one else's.
 *
 * <p>Invariant: {@code tat} (nanoseconds since {@code origin}, a double's bits in {@code state}) only grows,
 * except that an interrupted {@link #take()} gives its interval back, and never below the time of that
 * give-back.
 *
 * <p>Thread-safe.
 */
public final class TokenBucket {

    private final Clock clock;
    private final long origin;
    /** Nanoseconds per token. */
    private final double interval;
    /** How far ahead of now {@code tat} may run before callers must wait: {@code burst × interval}. */
    private final double burstNanos;

    private final double qps;
    private final int burst;
    private final AtomicLong state = new AtomicLong(Double.doubleToRawLongBits(0.0));

    /**
     * A full bucket of {@code burst} tokens, refilled at {@code qps} tokens a second on {@code clock}.
     *
     * @throws IllegalArgumentException if {@code qps} is not a positive finite number or {@code burst < 1}
     */
    public TokenBucket(double qps, int burst, Clock clock) {
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
        this.qps = qps;
        this.burst = burst;
    }

    /**
     * Takes a token, whether or not it exists yet, and returns how long until it does: zero while the bucket
     * holds one. Callers are served in the order they reserved, each at its own time.
     */
    public Duration reserve() {
        double wait = reserveNanos(clock.nanoTime() - origin);
        return wait <= 0 ? Duration.ZERO : Duration.ofNanos((long) wait);
    }

    /** Takes a token if the bucket holds one now, without waiting; false (and nothing taken) otherwise. */
    public boolean tryTake() {
        double now = clock.nanoTime() - origin;
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
     * Takes a token, waiting on the clock ({@link Clock#sleep}) until it exists.
     *
     * @return how long the caller waited on the clock (zero when a token was there)
     * @throws InterruptedException if interrupted while waiting; the token is given back, so that the next
     *     caller gets the freed slot while later reservations keep their times
     */
    public Duration take() throws InterruptedException {
        long start = clock.nanoTime();
        double wait = reserveNanos(start - origin);
        if (wait <= 0) {
            return Duration.ZERO;
        }
        try {
            clock.sleep(Duration.ofNanos((long) wait));
        } catch (InterruptedException e) {
            giveBack();
            throw e;
        }
        return Duration.ofNanos(Math.max(0, clock.nanoTime() - start));
    }

    /** Tokens a second. */
    public double qps() {
        return qps;
    }

    /** The most tokens the bucket holds. */
    public int burst() {
        return burst;
    }

    @Override
    public String toString() {
        return "TokenBucket[qps=" + qps + ", burst=" + burst + "]";
    }

    /** Moves {@code tat} by one interval; the wait in nanoseconds, zero or negative when a token is there. */
    private double reserveNanos(double now) {
        while (true) {
            long bits = state.get();
            double tat = Math.max(Double.longBitsToDouble(bits), now) + interval;
            if (state.compareAndSet(bits, Double.doubleToRawLongBits(tat))) {
                return tat - now - burstNanos;
            }
        }
    }

    /**
     * Returns an interrupted caller's interval, as x/time/rate cancels a reservation: later reservations keep
     * their times, and the next new caller gets the freed slot. Never moves {@code tat} below now.
     */
    private void giveBack() {
        double now = clock.nanoTime() - origin;
        while (true) {
            long bits = state.get();
            double tat = Double.longBitsToDouble(bits);
            double back = Math.max(tat - interval, now);
            if (back >= tat || state.compareAndSet(bits, Double.doubleToRawLongBits(back))) {
                return;
            }
        }
    }
}
