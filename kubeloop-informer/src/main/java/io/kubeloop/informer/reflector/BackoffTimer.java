package io.kubeloop.informer.reflector;

import io.kubeloop.clock.Clock;
import java.util.random.RandomGenerator;

/**
 * The state of one reflector's {@link Backoff}: client-go's {@code backoffManager.Step}. Used from the
 * reflector's run thread only.
 *
 * <p>Invariant: {@code stepNanos} is {@code initial} right after a reset and never exceeds {@code cap};
 * {@code lastResetNanos} is the clock reading of the last reset (initially: construction).
 */
final class BackoffTimer {

    private final Backoff backoff;
    private final Clock clock;
    private final RandomGenerator random;
    private long stepNanos;
    private long lastResetNanos;

    BackoffTimer(Backoff backoff, Clock clock, RandomGenerator random) {
        this.backoff = backoff;
        this.clock = clock;
        this.random = random;
        this.stepNanos = backoff.initial().toNanos();
        this.lastResetNanos = clock.nanoTime();
    }

    /** The next delay in nanoseconds; advances the step. */
    long nextDelayNanos() {
        long now = clock.nanoTime();
        if (now - lastResetNanos > backoff.resetAfter().toNanos()) {
            stepNanos = backoff.initial().toNanos();
            lastResetNanos = now;
        }
        long step = stepNanos;
        double grown = step * backoff.factor();
        long cap = backoff.cap().toNanos();
        stepNanos = grown >= cap ? cap : (long) grown;
        long jitter = backoff.jitter() > 0 ? (long) (random.nextDouble() * backoff.jitter() * step) : 0;
        return step + jitter;
    }
}
