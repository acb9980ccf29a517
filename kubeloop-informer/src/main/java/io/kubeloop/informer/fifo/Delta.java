package io.kubeloop.informer.fifo;

import io.kubeloop.informer.cache.DeletedFinalStateUnknown;
import java.util.Objects;

/**
 * One change of one object: its {@link DeltaType type} and the object's state after it (client-go's
 * {@code cache.Delta}).
 *
 * <p>A {@link DeltaType#DELETED} delta inferred from a relist carries a {@link DeletedFinalStateUnknown} tombstone
 * instead of the object: {@link #isTombstone()} says so, {@link #tombstone()} returns it typed, and
 * {@link #object()} is then the tombstone's last known state. {@link #objectOrTombstone()} is client-go's untyped
 * {@code Delta.Object}: the object, or the tombstone itself (what {@code Keys.DELETION_HANDLING} keys and what
 * {@code ResourceEventHandler.onDelete(Object)} receives).
 *
 * <pre>{@code
 * for (Delta<Pod> d : deltas) {
 *     String key = Keys.DELETION_HANDLING.keyOf(d.objectOrTombstone());
 *     if (d.type() == DeltaType.DELETED) {
 *         cache.remove(key);                 // d.isTombstone(): deleted while the watch was down
 *     } else {
 *         cache.put(key, d.object());        // typed: a Pod
 *     }
 * }
 * }</pre>
 *
 * <p>Immutable; equal when type and object (or tombstone) are equal.
 *
 * @param <T> the object type
 */
public final class Delta<T> {

    private final DeltaType type;
    /** The object, or a {@link DeletedFinalStateUnknown} (then {@link #type} is DELETED). Never null. */
    private final Object value;

    private Delta(DeltaType type, Object value) {
        this.type = type;
        this.value = value;
    }

    /**
     * A delta of a live object.
     *
     * @throws NullPointerException {@code type} or {@code object} is null
     * @throws IllegalArgumentException {@code object} is a tombstone (use {@link #tombstone(DeletedFinalStateUnknown)})
     */
    public static <T> Delta<T> of(DeltaType type, T object) {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(object, "object");
        if (object instanceof DeletedFinalStateUnknown<?>) {
            throw new IllegalArgumentException("a DeletedFinalStateUnknown is not an object: use Delta.tombstone(...)");
        }
        return new Delta<>(type, object);
    }

    /** A {@link DeltaType#DELETED} delta carrying a tombstone. */
    public static <T> Delta<T> tombstone(DeletedFinalStateUnknown<T> tombstone) {
        return new Delta<>(DeltaType.DELETED, Objects.requireNonNull(tombstone, "tombstone"));
    }

    /** What the DeltaFIFO queues: an object of type T or a tombstone, as its callers hand them in. */
    static <T> Delta<T> ofQueued(DeltaType type, Object objectOrTombstone) {
        Objects.requireNonNull(objectOrTombstone, "object");
        if (objectOrTombstone instanceof DeletedFinalStateUnknown<?> && type != DeltaType.DELETED) {
            throw new IllegalArgumentException("a tombstone can only be DELETED, not " + type);
        }
        return new Delta<>(type, objectOrTombstone);
    }

    public DeltaType type() {
        return type;
    }

    /** True when this is a {@link DeltaType#DELETED} delta with a tombstone: the final state is unknown. */
    public boolean isTombstone() {
        return value instanceof DeletedFinalStateUnknown<?>;
    }

    /**
     * The object's state after this change. For a {@linkplain #isTombstone() tombstone}, the last state this client
     * saw (possibly stale; {@code null} only when even that was unknown, e.g. a known-objects lookup that failed).
     */
    @SuppressWarnings("unchecked")
    public T object() {
        if (value instanceof DeletedFinalStateUnknown<?> tombstone) {
            return (T) tombstone.object();
        }
        return (T) value;
    }

    /**
     * The tombstone of a deletion inferred from a relist.
     *
     * @throws IllegalStateException this delta is not a tombstone (see {@link #isTombstone()})
     */
    @SuppressWarnings("unchecked")
    public DeletedFinalStateUnknown<T> tombstone() {
        if (value instanceof DeletedFinalStateUnknown<?> tombstone) {
            return (DeletedFinalStateUnknown<T>) tombstone;
        }
        throw new IllegalStateException("this " + type + " delta carries an object, not a tombstone");
    }

    /**
     * client-go's {@code Delta.Object}: the object, or the {@link DeletedFinalStateUnknown} itself for a tombstone.
     * Never null.
     */
    public Object objectOrTombstone() {
        return value;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Delta<?> d && type == d.type && value.equals(d.value);
    }

    @Override
    public int hashCode() {
        return 31 * type.hashCode() + value.hashCode();
    }

    @Override
    public String toString() {
        return "Delta[" + type + ", " + value + "]";
    }
}
