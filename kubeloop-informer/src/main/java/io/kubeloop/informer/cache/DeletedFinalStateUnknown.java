package io.kubeloop.informer.cache;

import java.util.Objects;

/**
 * A tombstone: the object under {@code key} was deleted while the watch was down, so its final state is unknown;
 * {@code object} is the last state this client saw (possibly stale). Delivered to {@code onDelete} in place of
 * the object, exactly as client-go's {@code cache.DeletedFinalStateUnknown}.
 *
 * @param <T> the object type
 */
public record DeletedFinalStateUnknown<T>(String key, T object) {
    public DeletedFinalStateUnknown {
        Objects.requireNonNull(key, "key");
    }
}
