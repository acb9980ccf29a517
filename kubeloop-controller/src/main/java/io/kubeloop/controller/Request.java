package io.kubeloop.controller;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.Objects;

/**
 * What a {@link Reconciler} is asked to reconcile: the key of one object (controller-runtime's
 * {@code reconcile.Request}). It carries no event and no object: reconcilers are level-based, they read the current
 * state and bring the world in line with it, whatever happened in between.
 *
 * @param namespace the object's namespace; {@code ""} for a cluster-scoped object (never null)
 * @param name the object's name (never null or empty)
 */
public record Request(String namespace, String name) {

    public Request {
        Objects.requireNonNull(namespace, "namespace (\"\" for a cluster-scoped object)");
        Objects.requireNonNull(name, "name");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("a request needs a name");
        }
    }

    /** The request for a namespaced object. */
    public static Request of(String namespace, String name) {
        return new Request(namespace, name);
    }

    /** The request for a cluster-scoped object. */
    public static Request clusterScoped(String name) {
        return new Request("", name);
    }

    /** The request for {@code object}'s namespace and name. */
    public static Request of(HasMetadata object) {
        Objects.requireNonNull(object, "object");
        var metadata = Objects.requireNonNull(object.getMetadata(), "object has no metadata");
        String namespace = metadata.getNamespace();
        return new Request(namespace == null ? "" : namespace, metadata.getName());
    }

    /** True for a cluster-scoped object. */
    public boolean isClusterScoped() {
        return namespace.isEmpty();
    }

    /** client-go's key: {@code namespace/name}, or {@code name} for a cluster-scoped object. */
    @Override
    public String toString() {
        return namespace.isEmpty() ? name : namespace + "/" + name;
    }
}
