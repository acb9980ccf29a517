package io.kubeloop.apiserver.internal.crd;

import java.util.Objects;

/**
 * Where a custom resource keeps what its {@code /scale} subresource shows: simple JSON paths such as
 * {@code .spec.replicas}, {@code .status.replicas} and (optional, "" when unset) {@code .status.selector},
 * whose value is a label selector in its string form.
 */
public record ScaleSubresource(String specReplicasPath, String statusReplicasPath, String labelSelectorPath) {

    /** The paths of the built-in workloads (their selector is an object at {@code .spec.selector}). */
    public static final ScaleSubresource BUILT_IN = new ScaleSubresource(".spec.replicas", ".status.replicas", "");

    public ScaleSubresource {
        Objects.requireNonNull(specReplicasPath, "specReplicasPath");
        Objects.requireNonNull(statusReplicasPath, "statusReplicasPath");
        labelSelectorPath = labelSelectorPath == null ? "" : labelSelectorPath;
    }

    /** The field names of a simple path: {@code .spec.replicas} → [spec, replicas]. */
    public static String[] fields(String path) {
        return path.startsWith(".") ? path.substring(1).split("\\.") : path.split("\\.");
    }
}
