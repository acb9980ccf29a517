package io.kubeloop.informer;

import io.kubeloop.informer.cache.DeletedFinalStateUnknown;

/**
 * Receives an informer's notifications, on the handler's own dispatcher thread, one at a time and in order. The
 * cache already holds the new state when a notification arrives. Objects are shared with the cache and every
 * other handler: never mutate them.
 *
 * <p>Deletions come in two forms; override one of them. The informer calls {@link #onDelete(Object)}, client-go's
 * form, whose object may be a {@link DeletedFinalStateUnknown} tombstone. Its default implementation unwraps a
 * tombstone and calls the typed form {@link #onDelete(Object, boolean)} — so a handler that overrides only the
 * typed form gets every deletion there, typed, and one that overrides {@code onDelete(Object)} gets every deletion
 * there (the typed form is then not called, unless it calls it itself). Either way one method is called per
 * deletion.
 *
 * <pre>{@code
 * pods.addEventHandler(new ResourceEventHandler<Pod>() {
 *     public void onAdd(Pod pod, boolean isInInitialList) { queue.add(Keys.META_NAMESPACE.keyOf(pod)); }
 *     public void onUpdate(Pod oldPod, Pod pod) { queue.add(Keys.META_NAMESPACE.keyOf(pod)); }
 *     public void onDelete(Pod pod, boolean finalStateUnknown) { queue.add(Keys.META_NAMESPACE.keyOf(pod)); }
 * });
 * }</pre>
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
     * An object was deleted (client-go's form). {@code object} is its last state, or a
     * {@link DeletedFinalStateUnknown} when the deletion was inferred from a relist.
     *
     * <p>The default unwraps a tombstone and calls {@link #onDelete(Object, boolean)}: {@code (its last known
     * state, true)} for a tombstone, {@code (object, false)} otherwise. Override this method or that one.
     */
    @SuppressWarnings("unchecked")
    default void onDelete(Object object) {
        if (object instanceof DeletedFinalStateUnknown<?> tombstone) {
            onDelete((T) tombstone.object(), true);
        } else {
            onDelete((T) object, false);
        }
    }

    /**
     * An object was deleted (the typed form; called by the default {@link #onDelete(Object)}).
     *
     * @param object the last state of the object this informer saw. With {@code finalStateUnknown} it may be
     *     stale; it is null only if not even that was known, which a {@link SharedIndexInformer} never delivers
     *     (its tombstones carry the object from its own cache)
     * @param finalStateUnknown the deletion was inferred from a relist (the watch missed it): client-go's
     *     {@code DeletedFinalStateUnknown}
     */
    default void onDelete(T object, boolean finalStateUnknown) {}
}
