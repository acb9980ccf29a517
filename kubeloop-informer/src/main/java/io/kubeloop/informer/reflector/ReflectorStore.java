package io.kubeloop.informer.reflector;

import java.util.Collection;

/**
 * Where a Reflector writes what it lists and watches: the informer's DeltaFIFO, or a plain store. Calls never overlap
 * (the Reflector serialises its watch thread and its resync thread) and arrive in the order of the server's events.
 *
 * @param <T> the object type
 */
public interface ReflectorStore<T> {

    /** A watch ADDED event. */
    void add(T object);

    /** A watch MODIFIED event. */
    void update(T object);

    /** A watch DELETED event (the object's last state). */
    void delete(T object);

    /**
     * The object {@code namespace}/{@code name} ({@code namespace} empty when cluster-scoped) was changed or
     * deleted into a state that does not decode to the Java type (a watch ADDED, MODIFIED or DELETED whose object
     * the reflector could not decode): whatever version of it this store holds is no longer the server's, so drop
     * it, as a deletion whose final state is unknown. Does nothing when the store holds no version of it. The
     * default does nothing: a store that cannot find an object by namespace and name keeps the old version until
     * the next list leaves it out.
     */
    default void removeUndecodable(String namespace, String name) {}

    /** A complete list (initial or relist) at {@code resourceVersion}: everything not in it is gone. */
    void replace(Collection<? extends T> objects, String resourceVersion);

    /** The resync period elapsed (and the reflector's should-resync check said yes). */
    void resync();
}
