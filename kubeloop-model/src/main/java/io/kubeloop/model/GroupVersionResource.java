package io.kubeloop.model;

import java.util.Objects;

/** A resource (the plural in URLs) in a group and version: {@code apps/v1 deployments}. */
public record GroupVersionResource(String group, String version, String resource) {

    public GroupVersionResource {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(resource, "resource");
    }

    /** {@code v1} or {@code apps/v1}. */
    public String groupVersion() {
        return group.isEmpty() ? version : group + "/" + version;
    }

    /** kube-apiserver's spelling, as in its error messages: {@code /v1, Resource=pods}. */
    @Override
    public String toString() {
        return (group.isEmpty() ? "" : group) + "/" + version + ", Resource=" + resource;
    }
}
