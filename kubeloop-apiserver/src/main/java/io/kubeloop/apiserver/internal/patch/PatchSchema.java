package io.kubeloop.apiserver.internal.patch;

import java.util.Objects;

/**
 * How the fields of one kind are patched: for strategic merge patch, which lists merge by which key
 * ({@code patchStrategy}/{@code patchMergeKey} struct tags), which lists of primitives merge as sets, which maps
 * are replaced, which carry {@code retainKeys}; for server-side apply, the list types ({@code atomic},
 * {@code set}, {@code map} with its keys) and atomic structs.
 *
 * <p>{@link #forKind} knows the built-in kinds the embedded server serves, with the tags of k8s.io/api:
 * core/v1 Pod, Node, Service, Endpoints, ConfigMap, Secret, ServiceAccount, Namespace, Event; apps/v1
 * Deployment, ReplicaSet, StatefulSet, DaemonSet; coordination.k8s.io/v1 Lease; events.k8s.io/v1 Event
 * (pod templates inside workloads included); rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding,
 * ClusterRoleBinding and apiextensions.k8s.io/v1 CustomResourceDefinition (no tags: lists replaced). Any other kind gets {@link #none()}: as in kube-apiserver,
 * strategic merge patch is then refused (415; custom resources only accept JSON patch, merge patch and
 * apply), while server-side apply still works with every map merged key by key and every list atomic.
 *
 * <p>Instances are immutable and shared.
 */
public final class PatchSchema {

    private static final PatchSchema NONE = new PatchSchema("none", SchemaType.DEDUCED, false);

    private final String name;
    private final SchemaType root;
    private final boolean strategic;

    private PatchSchema(String name, SchemaType root, boolean strategic) {
        this.name = name;
        this.root = root;
        this.strategic = strategic;
    }

    /**
     * The schema of a built-in kind, or {@link #none()} for a kind without one.
     *
     * @param group the API group, {@code ""} (or {@code null}) for the core group
     * @param version the version, e.g. {@code v1}
     * @param kind the kind, e.g. {@code Deployment}
     */
    public static PatchSchema forKind(String group, String version, String kind) {
        String key = (group == null ? "" : group) + "/" + Objects.requireNonNull(version) + "/"
                + Objects.requireNonNull(kind);
        SchemaType root = BuiltinSchemas.BY_GVK.get(key);
        return root == null ? NONE : new PatchSchema(key, root, true);
    }

    /** The schema of a kind without patch metadata (custom resources): no strategic merge patch. */
    public static PatchSchema none() {
        return NONE;
    }

    /** A schema over a hand-built root type (tests and future kinds). */
    static PatchSchema of(String name, SchemaType root) {
        return new PatchSchema(name, root, true);
    }

    /** Whether {@link StrategicMergePatch} accepts this kind; false for {@link #none()}. */
    public boolean supportsStrategicMergePatch() {
        return strategic;
    }

    SchemaType root() {
        return root;
    }

    @Override
    public String toString() {
        return "PatchSchema[" + name + "]";
    }
}
