package io.kubeloop.workqueue;

/**
 * A {@link DelayingQueue} whose delays come from a {@link RateLimiter}: the controller's retry queue.
 *
 * <p>A worker that fails on an item calls {@link #addRateLimited}, which asks the limiter how long the
 * item should wait (and records the failure); a worker that succeeds calls {@link #forget} so that the
 * item's next failure starts from the base delay again. Both are in addition to {@link #done}.
 */
public interface RateLimitingQueue<T> extends DelayingQueue<T> {

    /** Adds {@code item} after the delay the rate limiter chooses for it, recording one more failure. */
    void addRateLimited(T item);

    /** Clears the rate limiter's failure history for {@code item}; the item must still be {@link #done}. */
    void forget(T item);

    /**
     * How many failures the rate limiter has recorded for {@code item} since it was last forgotten: one per
     * {@link #addRateLimited} call (even after shutdown, when the item itself is no longer queued), as in
     * client-go.
     */
    int numRequeues(T item);
}
