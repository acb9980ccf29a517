package io.kubeloop.workqueue;

import io.kubeloop.clock.Clock;
import java.time.Duration;

/**
 * A queue of work items with client-go's work-queue semantics: the place where event handlers put keys
 * and from which controller workers take them.
 *
 * <p>Guarantees, for items compared by {@code equals}/{@code hashCode}:
 * <ul>
 *   <li><b>Fair.</b> Items are handed out in the order they were added.</li>
 *   <li><b>Stingy.</b> An item added several times before a worker takes it is handed out once.</li>
 *   <li><b>Single-flight.</b> An item handed out by {@link #get()} is not handed out again until the worker
 *       calls {@link #done}. If it is added meanwhile, it is queued again when {@code done} is called, and
 *       so processed exactly once more.</li>
 *   <li><b>Shutdown.</b> After {@link #shutDown()} new adds are ignored, items already queued are still
 *       handed out, and {@code get} returns {@code null} once the queue is empty.</li>
 * </ul>
 *
 * <p>The worker loop, in a method that may throw {@code InterruptedException} ({@link #get()} waits); in a
 * thread's lambda use {@link RateLimitingQueue#runWorker}, which is this loop:
 * <pre>{@code
 * for (String key; (key = queue.get()) != null; ) {
 *     try {
 *         reconcile(key);
 *         queue.forget(key);            // on a RateLimitingQueue: success clears the backoff
 *     } catch (Exception e) {
 *         queue.addRateLimited(key);    // retry later, with per-item exponential backoff
 *     } finally {
 *         queue.done(key);
 *     }
 * }
 * }</pre>
 *
 * <p>Implementations are thread-safe and behave the same on platform and virtual threads (they use
 * {@code java.util.concurrent.locks}, never {@code synchronized}). Create one with {@link #builder()}.
 *
 * @param <T> the item type; usually a {@code String} key such as {@code "namespace/name"}
 */
public interface WorkQueue<T> {

    /**
     * Marks {@code item} as needing processing. Does nothing if it is already waiting, or if the queue is
     * shutting down; if the item is being processed, it is queued again when its worker calls {@link #done}.
     *
     * @throws NullPointerException if {@code item} is null
     */
    void add(T item);

    /**
     * Takes the next item, blocking until one is available. The caller must call {@link #done} with it
     * when finished, whatever the outcome.
     *
     * @return the next item, or {@code null} once the queue is shutting down and empty
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    T get() throws InterruptedException;

    /**
     * Marks {@code item} as processed. If it was added again while being processed, it goes back on the
     * queue now. Calling {@code done} for an item that is not being processed has no effect.
     *
     * @throws NullPointerException if {@code item} is null
     */
    void done(T item);

    /** The number of items waiting to be handed out (not those being processed). For information only. */
    int len();

    /**
     * Shuts the queue down at once: later adds are ignored and every blocked {@link #get()} wakes. Items
     * already queued are still handed out. Does not wait for workers; releases a blocked
     * {@link #shutDownWithDrain}.
     */
    void shutDown();

    /**
     * Shuts the queue down like {@link #shutDown()}, then waits until the queue is drained: every item being
     * processed is done <em>and</em> every item still queued has been handed out and is done (client-go
     * waits only for the items being processed). Workers must keep calling {@link #get()} and
     * {@link #done} for the drain to finish.
     *
     * <p>Items waiting for a delay ({@link DelayingQueue#addAfter}) that is not yet over are not waited
     * for; they are dropped, as in client-go.
     *
     * @param timeout how long to wait, on the queue's {@link Clock}
     * <p>Several threads may drain at once; each waits until the drain or its own timeout. A
     * {@link #shutDown()} releases all of them at once, as in client-go. The queue's gauges are removed
     * from the meter registry when the last drain returns.
     *
     * @return {@code true} if the queue drained, {@code false} if the timeout passed first or a
     *     {@link #shutDown()} released the wait; either way the queue stays shut down
     * @throws InterruptedException if the thread is interrupted while waiting (the queue stays shut down)
     */
    boolean shutDownWithDrain(Duration timeout) throws InterruptedException;

    /** True once {@link #shutDown()} or {@link #shutDownWithDrain} has been called. */
    boolean shuttingDown();

    /** A builder for a work queue, delaying queue or rate-limiting queue. */
    static <T> WorkQueueBuilder<T> builder() {
        return new WorkQueueBuilder<>();
    }
}
