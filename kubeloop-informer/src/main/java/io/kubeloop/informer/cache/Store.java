package io.kubeloop.informer.cache;

import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * A thread-safe, keyed collection of objects: client-go's {@code cache.Store}. Objects handed out by a store are
 * shared with every other reader and must never be mutated.
 *
 * @param <T> the object type
 */
public interface Store<T> extends KnownObjects<T> {

    /** Adds or replaces the object under its key. */
    void add(T object);

    /** Adds or replaces the object under its key. */
    void update(T object);

    /** Removes the object's key; nothing happens when the key is absent. */
    void delete(T object);

    /** Every object, in no particular order. */
    List<T> list();

    /**
     * The number of stored objects, without copying anything: O(1) and lock-free, like {@code list().size()} at
     * some instant during the call (a concurrent write may or may not be counted).
     */
    int size();

    /** Every key, in no particular order. */
    @Override
    List<String> listKeys();

    /** The stored object with the same key as {@code object}. */
    Optional<T> get(T object);

    /** The object stored under {@code key}. */
    @Override
    Optional<T> getByKey(String key);

    /** Replaces the whole content with {@code objects} at once; {@code resourceVersion} is informational. */
    void replace(Collection<? extends T> objects, String resourceVersion);

    /** Meaningless for a plain store (client-go keeps it for the interface); does nothing. */
    default void resync() {}
}
