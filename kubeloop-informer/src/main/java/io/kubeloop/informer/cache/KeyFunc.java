package io.kubeloop.informer.cache;

/**
 * Computes the key under which an object is stored and queued. Takes {@code Object} because tombstones
 * ({@link DeletedFinalStateUnknown}) travel the same paths as objects. Must be deterministic and total for
 * Kubernetes objects.
 */
@FunctionalInterface
public interface KeyFunc {
    /**
     * The object's key.
     *
     * @throws KeyException the object has no key (for example, it has no name)
     */
    String keyOf(Object object);
}
