package io.kubeloop.workqueue;

import io.kubeloop.clock.Clock;
import java.time.Duration;

/**
 * A {@link WorkQueue} that can also add an item after a delay.
 *
 * <p>Waiting items are kept in a min-heap ordered by ready time, served by at most one timer thread per
 * queue (started on the first positive delay) that sleeps on the queue's {@link Clock}. There is no
 * bounded hand-off: {@link #addAfter} never blocks on a full buffer and never drops an item, however many
 * are waiting.
 *
 * <p>An item that is already waiting keeps the <em>earlier</em> of its two ready times: a short delay
 * replaces a long one, a long one never postpones a short one. Waiting is independent of the queue
 * itself: an item can wait while it is also queued or being processed, and is added (and deduplicated as
 * usual) when its time comes. Items still waiting at shutdown are dropped.
 */
public interface DelayingQueue<T> extends WorkQueue<T> {

    /**
     * Adds {@code item} once {@code delay} has passed; a delay of zero or less adds it at once. Ignored
     * once the queue is shutting down. Every call counts in {@code workqueue_retries_total}.
     */
    void addAfter(T item, Duration delay);
}
