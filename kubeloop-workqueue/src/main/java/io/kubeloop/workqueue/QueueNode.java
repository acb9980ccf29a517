package io.kubeloop.workqueue;

/**
 * An item that needs processing or is being processed, as the work queue tracks it: its state, its priority
 * and its link in the ready list. Every field is guarded by the queue's lock. A {@link ReadyList} may extend
 * it with links of its own.
 */
class QueueNode<T> {

    static final int NEW = -1;
    static final int QUEUED = 0;
    static final int PROCESSING = 1;
    static final int PROCESSING_DIRTY = 2;

    final T item;
    int state = NEW;
    /**
     * While {@code QUEUED}: the priority it waits at; while {@code PROCESSING}: the one it was handed out at;
     * while {@code PROCESSING_DIRTY}: the highest priority it was added with since it was handed out, the one
     * {@code done} queues it at. Always 0 in a plain (non-priority) queue.
     */
    int priority;
    /** Next in the ready list. */
    QueueNode<T> next;
    /** Metrics only: when the item last became dirty. */
    long dirtySince;
    /** Metrics only: when the current worker took it. */
    long startedAt;

    /**
     * Neighbours in the {@link NodeChain} the node is in: the in-flight list while it is being processed (with
     * metrics on), the priority queue's age list while it is ready.
     */
    QueueNode<T> older;

    QueueNode<T> newer;

    QueueNode(T item) {
        this.item = item;
    }
}
