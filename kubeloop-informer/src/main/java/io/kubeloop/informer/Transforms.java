package io.kubeloop.informer;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.function.UnaryOperator;

/**
 * Ready-made transforms for {@link SharedIndexInformer.Builder#transform} and
 * {@link SharedInformerFactory.Builder#transform}. A transform runs on every object the reflector receives (list
 * items and watch events), before the object is queued, cached or delivered: it is the first to see the object and
 * may change it in place. It never sees tombstones or resync re-deliveries, and should be idempotent.
 */
public final class Transforms {

    private static final UnaryOperator<HasMetadata> STRIP_MANAGED_FIELDS = object -> {
        if (object.getMetadata() != null) {
            object.getMetadata().setManagedFields(null);
        }
        return object;
    };

    private Transforms() {}

    /**
     * Sets {@code metadata.managedFields} to null: server-side apply's bookkeeping, often a third of an object's
     * size, which controllers reading from a cache almost never need. Always the same instance, so informers
     * asked for with it are shared by a {@link SharedInformerFactory}.
     */
    @SuppressWarnings("unchecked")
    public static <T extends HasMetadata> UnaryOperator<T> stripManagedFields() {
        return (UnaryOperator<T>) STRIP_MANAGED_FIELDS;
    }
}
