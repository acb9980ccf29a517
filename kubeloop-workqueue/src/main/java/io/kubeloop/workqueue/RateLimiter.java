package io.kubeloop.workqueue;

import java.time.Duration;

/**
 * Decides how long an item waits before it is retried. Implementations are thread-safe.
 *
 * <p>Ready-made limiters, with client-go's exact behaviour and defaults, come from {@link RateLimiters}.
 */
public interface RateLimiter<T> {

    /** Records one more failure of {@code item} and returns how long it should wait; never negative. */
    Duration when(T item);

    /** Forgets {@code item}'s failures; its next {@link #when} starts again from the beginning. */
    void forget(T item);

    /** How many failures of {@code item} are recorded (0 for limiters that do not track items). */
    int numRequeues(T item);
}
