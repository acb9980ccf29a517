package io.kubeloop.informer;

/**
 * What the process loop hands to a handler's buffer: one call of {@link ResourceEventHandler}. Objects are the
 * cache's own (shared, never copied).
 *
 * @param <T> the object type
 */
sealed interface Notification<T> {

    /** The label of this notification in logs and the {@code informer_notifications_total} metric. */
    String type();

    /** {@code onAdd(object, initial)}. */
    record Add<T>(T object, boolean initial) implements Notification<T> {
        @Override
        public String type() {
            return "add";
        }
    }

    /** {@code onUpdate(oldObject, newObject)}. */
    record Update<T>(T oldObject, T newObject) implements Notification<T> {
        @Override
        public String type() {
            return "update";
        }
    }

    /** {@code onDelete(object)}; the object may be a {@code DeletedFinalStateUnknown}. */
    record Delete<T>(Object object) implements Notification<T> {
        @Override
        public String type() {
            return "delete";
        }
    }
}
