package io.kubeloop.workqueue;

/**
 * An item that needs processing or is being processed, as the work queue tracks it: its state and its link
 * in the ready list. Every field is guarded by the queue's lock.
 */
final class QueueNode<T> {

    static final int NEW = -1;
    static final int QUEUED = 0;
    static final int PROCESSING = 1;
    static final int PROCESSING_DIRTY = 2;

    final T item;
    int state = NEW;
    /** Next in the ready list. */
    QueueNode<T> next;
    /** Metrics only: when the item last became dirty. */
    long dirtySince;
    /** Metrics only: when the current worker took it, and its neighbours in the in-flight list. */
    long startedAt;

    QueueNode<T> olderInFlight;
    QueueNode<T> newerInFlight;

    QueueNode(T item) {
        this.item = item;
    }
}
