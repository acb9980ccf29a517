package io.kubeloop.workqueue;

/**
 * The order in which a work queue hands out its ready ({@code QUEUED}) items: FIFO for client-go's queue
 * ({@link FifoReadyList}), priority bands with aging for {@link PriorityWorkQueue} ({@link PriorityReadyList}).
 *
 * <p>The queue owns the nodes and their states; a ready list only links and unlinks them. Every method is
 * called with the queue's lock held, so implementations need no synchronisation of their own. A node is
 * linked in the list if and only if its state is {@code QUEUED}.
 */
interface ReadyList<T> {

    /** A fresh node for {@code item}, of the type this list links. */
    QueueNode<T> newNode(T item);

    /** Links {@code node} (not linked yet) behind every item of its {@link QueueNode#priority}. */
    void add(QueueNode<T> node);

    /** Raises a linked node to {@code priority} (higher than its own): it moves to the back of that priority. */
    void raise(QueueNode<T> node, int priority);

    /** Unlinks and returns the node to hand out next, or null if the list is empty. */
    QueueNode<T> poll();

    boolean isEmpty();

    int size();
}
