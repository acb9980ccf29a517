package io.kubeloop.informer.fifo;

import java.util.Objects;

/**
 * One change of one object: its type and the object's state after it. For {@link DeltaType#DELETED} the object
 * may be a {@link io.kubeloop.informer.cache.DeletedFinalStateUnknown} tombstone.
 *
 * @param <T> the object type
 */
public record Delta<T>(DeltaType type, Object object) {
    public Delta {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(object, "object");
    }
}
