package io.kubeloop.workqueue;

import java.util.Objects;

/**
 * A {@link DelayingQueue} whose delays come from a {@link RateLimiter}: the controller's retry queue.
 *
 * <p>A worker that fails on an item calls {@link #addRateLimited}, which asks the limiter how long the
 * item should wait (and records the failure); a worker that succeeds calls {@link #forget} so that the
 * item's next failure starts from the base delay again. Both are in addition to {@link #done}.
 *
 * <p>{@link #runWorker} is that whole worker loop (client-go's {@code runWorker} and
 * {@code processNextWorkItem}); it throws nothing checked, so it fits a thread's lambda:
 * <pre>{@code
 * for (int i = 0; i < 2; i++) {
 *     Thread.ofVirtual().name("pods-worker-" + i).start(() -> queue.runWorker(key -> reconcile(key)));
 * }
 * }</pre>
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

    /**
     * What a worker does with one item (client-go's {@code syncHandler}): bring the world in line with it.
     * Returning means success; throwing means "retry this item later".
     *
     * @param <T> the item type
     */
    @FunctionalInterface
    interface SyncHandler<T> {
        void sync(T item) throws Exception;
    }

    /**
     * client-go's {@code processNextWorkItem}: takes the next item (waiting for one), calls {@code handler}
     * with it, then {@link #forget}s it on success or, when the handler throws, logs the failure (at WARNING,
     * through {@link System.Logger}, logger {@code io.kubeloop.workqueue.RateLimitingQueue}) and
     * {@link #addRateLimited re-adds it after the limiter's delay}; {@link #done} in every case.
     *
     * <p>A handler that throws {@link InterruptedException} is treated as a failure (the item is re-added,
     * not lost) and the thread's interrupt flag is set again. A {@link VirtualMachineError} is not caught: the
     * item is marked done and the error propagates.
     *
     * @return {@code false} once the queue is shut down and empty (nothing was taken), else {@code true}
     * @throws InterruptedException interrupted while waiting for an item (nothing was taken)
     * @throws NullPointerException {@code handler} is null
     */
    default boolean processNextWorkItem(SyncHandler<? super T> handler) throws InterruptedException {
        Objects.requireNonNull(handler, "handler");
        T item = get();
        if (item == null) {
            return false;
        }
        try {
            handler.sync(item);
            forget(item);
        } catch (VirtualMachineError fatal) {
            throw fatal;
        } catch (Throwable failure) {
            if (failure instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            System.getLogger(RateLimitingQueue.class.getName())
                    .log(
                            System.Logger.Level.WARNING,
                            () -> this + ": handling " + item + " failed; retrying it after the rate limiter's delay",
                            failure);
            addRateLimited(item);
        } finally {
            done(item);
        }
        return true;
    }

    /**
     * A worker: {@link #processNextWorkItem} until the queue is shut down and empty, or the thread is
     * interrupted (it then returns with the interrupt flag set). Throws nothing checked, so it can be a
     * thread's whole body; run it on as many threads as the controller has workers.
     *
     * @throws NullPointerException {@code handler} is null
     */
    default void runWorker(SyncHandler<? super T> handler) {
        Objects.requireNonNull(handler, "handler");
        try {
            while (!Thread.currentThread().isInterrupted() && processNextWorkItem(handler)) {
                // one item per round
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
