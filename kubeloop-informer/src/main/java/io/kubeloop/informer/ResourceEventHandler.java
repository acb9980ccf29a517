package io.kubeloop.informer;

/**
 * Receives an informer's notifications, on the handler's own dispatcher thread, one at a time and in order. The
 * cache already holds the new state when a notification arrives. Objects are shared with the cache and every
 * other handler: never mutate them.
 *
 * @param <T> the object type
 */
public interface ResourceEventHandler<T> {

    /**
     * An object appeared.
     *
     * @param isInInitialList it was part of the cache's content when this handler started receiving (the
     *     initial list, or the cache replayed to a handler added late)
     */
    default void onAdd(T object, boolean isInInitialList) {}

    /** An object changed, or a resync re-delivered it ({@code oldObject == newObject} then, or equal versions). */
    default void onUpdate(T oldObject, T newObject) {}

    /**
     * An object was deleted. {@code object} is its last state, or a
     * {@link io.kubeloop.informer.cache.DeletedFinalStateUnknown} when the deletion was inferred from a relist.
     */
    default void onDelete(Object object) {}
}
