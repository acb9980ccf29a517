package io.kubeloop.workqueue;

/**
 * A doubly linked list of {@link QueueNode}s through {@link QueueNode#older} and {@link QueueNode#newer}, in
 * the order they were appended: the queue's in-flight list (items being processed, by start time) and the
 * priority queue's age list (ready items, by the time they became ready). A node is in at most one chain at a
 * time — it is either being processed or ready — which is why the two can share the links. Guarded by the
 * queue's lock.
 */
final class NodeChain<T> {

    /** The first appended node still linked, null if empty. */
    QueueNode<T> oldest;

    private QueueNode<T> newest;

    void append(QueueNode<T> node) {
        node.older = newest;
        if (newest == null) {
            oldest = node;
        } else {
            newest.newer = node;
        }
        newest = node;
    }

    /** Unlinks {@code node}, which must be in this chain. */
    void unlink(QueueNode<T> node) {
        QueueNode<T> older = node.older;
        QueueNode<T> newer = node.newer;
        if (older == null) {
            oldest = newer;
        } else {
            older.newer = newer;
        }
        if (newer == null) {
            newest = older;
        } else {
            newer.older = older;
        }
        node.older = null;
        node.newer = null;
    }
}
