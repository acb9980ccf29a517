package io.kubeloop.informer.cache;

import java.util.List;

/**
 * Computes the index values of an object, for example its namespace or the node it runs on. Must be pure and
 * must not throw for objects of its type: an exception is a programming error and fails the write.
 *
 * @param <T> the object type
 */
@FunctionalInterface
public interface IndexFunc<T> {
    /** The values under which {@code object} appears in the index; empty when it appears under none. */
    List<String> indexValues(T object);
}
