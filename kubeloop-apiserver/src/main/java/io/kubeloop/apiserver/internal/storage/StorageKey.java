package io.kubeloop.apiserver.internal.storage;

import java.util.Objects;

/**
 * The identity of one stored object: API group ({@code ""} for the core group), resource (the plural, e.g.
 * {@code "pods"}), namespace ({@code ""} for cluster-scoped objects) and name.
 *
 * <p>Keys sort by (group, resource, namespace, name), comparing each part as a Java string. So all objects of
 * one resource, and all objects of one resource in one namespace, are contiguous ranges of keys, and a list
 * returns items in exactly this order.
 *
 * <p>The store does not validate names: the REST layer decides what a legal name is. No part may be null.
 */
public record StorageKey(String group, String resource, String namespace, String name)
        implements Comparable<StorageKey> {

    public StorageKey {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(resource, "resource");
        Objects.requireNonNull(namespace, "namespace (use \"\" for cluster-scoped objects)");
        Objects.requireNonNull(name, "name");
    }

    /** A key of a cluster-scoped object. */
    public static StorageKey clusterScoped(String group, String resource, String name) {
        return new StorageKey(group, resource, "", name);
    }

    /**
     * The resource as kube-apiserver names it in messages: {@code pods} for the core group,
     * {@code deployments.apps} otherwise.
     */
    public String qualifiedResource() {
        return qualifiedResource(group, resource);
    }

    static String qualifiedResource(String group, String resource) {
        return group.isEmpty() ? resource : resource + "." + group;
    }

    @Override
    public int compareTo(StorageKey o) {
        int c = group.compareTo(o.group);
        if (c != 0) {
            return c;
        }
        c = resource.compareTo(o.resource);
        if (c != 0) {
            return c;
        }
        c = namespace.compareTo(o.namespace);
        return c != 0 ? c : name.compareTo(o.name);
    }

    @Override
    public String toString() {
        return qualifiedResource() + "/" + (namespace.isEmpty() ? "" : namespace + "/") + name;
    }
}
