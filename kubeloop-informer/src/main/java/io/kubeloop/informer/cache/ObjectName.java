package io.kubeloop.informer.cache;

import java.util.Objects;

/**
 * A namespace and name, the parts of a cache key (client-go's {@code cache.ObjectName}). The namespace is
 * {@code ""} for cluster-scoped objects; {@link #toString()} is the key itself, so
 * {@code Keys.split(name.toString()).equals(name)} for every name whose parts contain no {@code '/'}.
 *
 * @param namespace the namespace, {@code ""} when cluster-scoped
 * @param name the name
 */
public record ObjectName(String namespace, String name) {

    public ObjectName {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(name, "name");
    }

    /** The key: {@code namespace/name}, or {@code name} when the namespace is empty. */
    @Override
    public String toString() {
        return namespace.isEmpty() ? name : namespace + "/" + name;
    }
}
