package io.kubeloop.model;

import java.util.Objects;

/**
 * A kind in a group and version: {@code apps/v1 Deployment}. The core group is the empty string, so core
 * kinds have an {@link #apiVersion()} without a slash ({@code v1}).
 */
public record GroupVersionKind(String group, String version, String kind) {

    public GroupVersionKind {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(kind, "kind");
    }

    /** The {@code apiVersion} field of objects of this kind: {@code v1} or {@code apps/v1}. */
    public String apiVersion() {
        return group.isEmpty() ? version : group + "/" + version;
    }

    /** Parses an {@code apiVersion} ({@code v1}, {@code apps/v1}) and a kind. */
    public static GroupVersionKind of(String apiVersion, String kind) {
        Objects.requireNonNull(apiVersion, "apiVersion");
        int slash = apiVersion.indexOf('/');
        if (slash < 0) {
            return new GroupVersionKind("", apiVersion, kind);
        }
        if (apiVersion.indexOf('/', slash + 1) >= 0 || slash == 0 || slash == apiVersion.length() - 1) {
            throw new IllegalArgumentException("unexpected GroupVersion string: " + apiVersion);
        }
        return new GroupVersionKind(apiVersion.substring(0, slash), apiVersion.substring(slash + 1), kind);
    }

    @Override
    public String toString() {
        return apiVersion() + ", Kind=" + kind;
    }
}
