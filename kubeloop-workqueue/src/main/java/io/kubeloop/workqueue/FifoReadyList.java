package io.kubeloop.workqueue;

/**
 * client-go's order: one FIFO list, linked through {@link QueueNode#next}. Priorities are not used (the plain
 * queue adds everything at priority 0); {@link #raise} only records the priority.
 *
 * <p>Invariant: {@code head} … {@code tail} holds exactly {@code size} nodes.
 */
final class FifoReadyList<T> implements ReadyList<T> {

    private QueueNode<T> head;
    private QueueNode<T> tail;
    private int size;

    @Override
    public QueueNode<T> newNode(T item) {
        return new QueueNode<>(item);
    }

    @Override
    public void add(QueueNode<T> node) {
        if (tail == null) {
            head = node;
        } else {
            tail.next = node;
        }
        tail = node;
        size++;
    }

    @Override
    public void raise(QueueNode<T> node, int priority) {
        node.priority = priority;
    }

    @Override
    public QueueNode<T> poll() {
        QueueNode<T> node = head;
        if (node == null) {
            return null;
        }
        head = node.next;
        if (head == null) {
            tail = null;
        }
        node.next = null;
        size--;
        return node;
    }

    @Override
    public boolean isEmpty() {
        return head == null;
    }

    @Override
    public int size() {
        return size;
    }
}
