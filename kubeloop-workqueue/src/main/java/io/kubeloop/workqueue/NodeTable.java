package io.kubeloop.workqueue;

/**
 * The work queue's index from item to {@link QueueNode}: an open-addressing hash table with linear probing
 * whose slots hold the nodes themselves. Compared with a {@code HashMap<T, QueueNode<T>>} it allocates no
 * entry objects and removes a node it already holds without a second search, which is most of the cost of
 * an add–get–done cycle.
 *
 * <p>Invariants: {@code slots.length} is a power of two and at least {@link #MIN_CAPACITY}; at most half
 * the slots are used, so every probe ends at an empty slot; a node sits at or after (cyclically) its home
 * slot {@code hash & mask} with no empty slot in between. Removal shifts later nodes back (no tombstones),
 * and the table shrinks when it falls below an eighth full, so a queue that once held a million items
 * does not keep their slots. Not thread-safe: the queue's lock guards it.
 */
final class NodeTable<T> {

    static final int MIN_CAPACITY = 16;

    private QueueNode<T>[] slots = newSlots(MIN_CAPACITY);
    private int size;

    /** Spreads the high bits of a hash code down, as {@code HashMap} does, for power-of-two tables. */
    static int spread(int h) {
        return h ^ (h >>> 16);
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** The node of {@code item}, or null. */
    QueueNode<T> get(Object item) {
        int hash = spread(item.hashCode());
        QueueNode<T>[] s = slots;
        int mask = s.length - 1;
        for (int i = hash & mask; ; i = (i + 1) & mask) {
            QueueNode<T> n = s[i];
            if (n == null) {
                return null;
            }
            if (n.hash == hash && (n.item == item || n.item.equals(item))) {
                return n;
            }
        }
    }

    /** The node of {@code item}, created in state {@link QueueNode#NEW} if there was none. */
    QueueNode<T> getOrCreate(T item) {
        int hash = spread(item.hashCode());
        QueueNode<T>[] s = slots;
        int mask = s.length - 1;
        int i = hash & mask;
        for (QueueNode<T> n; (n = s[i]) != null; i = (i + 1) & mask) {
            if (n.hash == hash && (n.item == item || n.item.equals(item))) {
                return n;
            }
        }
        QueueNode<T> created = new QueueNode<>(item, hash);
        s[i] = created;
        if (++size > s.length >>> 1) {
            resize(s.length << 1);
        }
        return created;
    }

    /** Removes {@code node}, which must be in the table. */
    void remove(QueueNode<T> node) {
        QueueNode<T>[] s = slots;
        int mask = s.length - 1;
        int i = node.hash & mask;
        while (s[i] != node) {
            i = (i + 1) & mask;
        }
        // Backward-shift deletion: move up every later node of the run whose home slot allows it.
        int hole = i;
        for (int j = (i + 1) & mask; s[j] != null; j = (j + 1) & mask) {
            int home = s[j].hash & mask;
            // s[j] may fill the hole if its home is not cyclically within (hole, j].
            if (((j - home) & mask) >= ((j - hole) & mask)) {
                s[hole] = s[j];
                hole = j;
            }
        }
        s[hole] = null;
        size--;
        if (s.length > MIN_CAPACITY && size < s.length >>> 3) {
            resize(s.length >>> 1);
        }
    }

    private void resize(int capacity) {
        QueueNode<T>[] old = slots;
        QueueNode<T>[] s = newSlots(capacity);
        int mask = capacity - 1;
        for (QueueNode<T> n : old) {
            if (n != null) {
                int i = n.hash & mask;
                while (s[i] != null) {
                    i = (i + 1) & mask;
                }
                s[i] = n;
            }
        }
        slots = s;
    }

    @SuppressWarnings("unchecked")
    private static <T> QueueNode<T>[] newSlots(int capacity) {
        return (QueueNode<T>[]) new QueueNode<?>[capacity];
    }
}
