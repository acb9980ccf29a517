package io.kubeloop.informer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kubeloop.model.selector.LabelSelector;
import java.util.List;
import java.util.Optional;

/**
 * Reads the objects of one namespace from an informer's cache; made by {@link Lister#namespace(String)}.
 *
 * @param <T> the object type
 */
public interface NamespaceLister<T extends HasMetadata> {

    /** The namespace, {@code ""} for all namespaces. */
    String namespace();

    /** Every object in the namespace. */
    List<T> list();

    /** The objects in the namespace whose labels {@code selector} matches. */
    List<T> list(LabelSelector selector);

    /**
     * The object named {@code name} in the namespace (key {@code namespace/name}).
     *
     * @throws IllegalStateException on the all-namespaces lister, where a name alone names no object
     */
    Optional<T> get(String name);
}
