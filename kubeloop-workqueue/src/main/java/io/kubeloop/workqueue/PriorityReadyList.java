package io.kubeloop.workqueue;

import io.kubeloop.clock.Clock;
import java.util.TreeMap;

/**
 * The priority queue's order: one FIFO band per priority, highest band first, with aging so that no ready
 * item waits for ever behind a steady stream of higher-priority work (the bound is stated on
 * {@link PriorityWorkQueue}).
 *
 * <p>Every ready node is in two intrusive doubly linked lists:
 * <ul>
 *   <li>its <b>band</b> ({@link Band#head} … {@link Band#tail}, through {@link QueueNode#next} and
 *       {@link Node#prev}): the ready items of one priority in the order they entered the band — a raise
 *       moves a node to the back of its new band;</li>
 *   <li>the <b>age list</b> ({@code ageChain}, a {@link NodeChain}): every ready item in the order it became
 *       ready ({@link Node#readySince}); a raise does not move a node here, so its age survives any number
 *       of raises.</li>
 * </ul>
 *
 * <p><b>Rule.</b> {@link #poll()} hands out the head of the highest band, except that when the oldest ready
 * item has been ready for at least the aging period and the previous poll did not serve the age list, it
 * hands out that oldest item. So while an aged item waits, at least every second poll serves the age list in
 * age order, and the other polls still serve the highest priority first: a flood of aged low-priority items
 * takes at most half of the workers from fresh high-priority work.
 *
 * <p><b>Invariants</b> (under the queue's lock): {@code bands} holds exactly the non-empty bands, keyed by
 * priority; a node is in the band of its {@code priority} and in the age list if and only if it is linked at
 * all; the age list is ordered by {@code readySince}; {@code size} is the number of linked nodes.
 */
final class PriorityReadyList<T> implements ReadyList<T> {

    /** A node with the two lists' links. */
    private static final class Node<T> extends QueueNode<T> {
        /** Previous in the band ({@link QueueNode#next} is the next). */
        Node<T> prev;
        /** The band it is linked in, null if not linked. */
        Band<T> band;
        /** Clock time at which it last became ready (was linked); a raise keeps it. */
        long readySince;

        Node(T item) {
            super(item);
        }
    }

    /** The ready items of one priority, FIFO. */
    private static final class Band<T> {
        final int priority;
        Node<T> head;
        Node<T> tail;

        Band(int priority) {
            this.priority = priority;
        }
    }

    private final Clock clock;
    private final long agingNanos;
    /** The non-empty bands; the last entry is the highest priority. */
    private final TreeMap<Integer, Band<T>> bands = new TreeMap<>();

    private final NodeChain<T> ageChain = new NodeChain<>();
    private int size;
    /** Whether the last poll served the age list because its head had aged: the next poll serves a band. */
    private boolean lastPollAged;

    /** @param agingNanos the aging period, positive */
    PriorityReadyList(Clock clock, long agingNanos) {
        this.clock = clock;
        this.agingNanos = agingNanos;
    }

    @Override
    public QueueNode<T> newNode(T item) {
        return new Node<>(item);
    }

    @Override
    public void add(QueueNode<T> queueNode) {
        Node<T> node = (Node<T>) queueNode;
        node.readySince = clock.nanoTime();
        ageChain.append(node);
        appendToBand(node);
        size++;
    }

    @Override
    public void raise(QueueNode<T> queueNode, int priority) {
        Node<T> node = (Node<T>) queueNode;
        unlinkFromBand(node);
        node.priority = priority;
        appendToBand(node);
    }

    @Override
    public QueueNode<T> poll() {
        Node<T> node = (Node<T>) ageChain.oldest;
        if (node == null) {
            return null;
        }
        if (!lastPollAged && clock.nanoTime() - node.readySince >= agingNanos) {
            lastPollAged = true;
        } else {
            lastPollAged = false;
            node = bands.lastEntry().getValue().head;
        }
        unlinkFromBand(node);
        ageChain.unlink(node);
        size--;
        return node;
    }

    @Override
    public boolean isEmpty() {
        return size == 0;
    }

    @Override
    public int size() {
        return size;
    }

    private void appendToBand(Node<T> node) {
        Band<T> band = bands.get(node.priority);
        if (band == null) {
            band = new Band<>(node.priority);
            bands.put(node.priority, band);
        }
        node.band = band;
        node.prev = band.tail;
        if (band.tail == null) {
            band.head = node;
        } else {
            band.tail.next = node;
        }
        band.tail = node;
    }

    private void unlinkFromBand(Node<T> node) {
        Band<T> band = node.band;
        Node<T> prev = node.prev;
        Node<T> next = (Node<T>) node.next;
        if (prev == null) {
            band.head = next;
        } else {
            prev.next = next;
        }
        if (next == null) {
            band.tail = prev;
        } else {
            next.prev = prev;
        }
        if (band.head == null) {
            bands.remove(band.priority);
        }
        node.prev = null;
        node.next = null;
        node.band = null;
    }
}
