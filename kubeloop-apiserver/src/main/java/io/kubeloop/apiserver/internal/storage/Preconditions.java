package io.kubeloop.apiserver.internal.storage;

import tools.jackson.databind.node.ObjectNode;

/**
 * Conditions a delete (or a {@link Store#guaranteedUpdate guaranteed update}) checks against the stored object
 * before it writes, as kube-apiserver's {@code DeleteOptions.preconditions}: the object's
 * {@code metadata.uid} and {@code metadata.resourceVersion} must equal the given values. A null field is not
 * checked. Values are compared as strings, exactly as kube-apiserver does.
 *
 * <p>A failed precondition is a {@link ConflictException} with kube-apiserver's message, e.g.
 * {@code Operation cannot be fulfilled on pods "x": Precondition failed: UID in precondition: a, UID in object
 * meta: b}. The UID is checked first.
 */
public record Preconditions(String uid, String resourceVersion) {

    /** No precondition. */
    public static final Preconditions NONE = new Preconditions(null, null);

    /** Only the UID must match. */
    public static Preconditions uid(String uid) {
        return new Preconditions(uid, null);
    }

    /** Only the resourceVersion must match. */
    public static Preconditions resourceVersion(String resourceVersion) {
        return new Preconditions(null, resourceVersion);
    }

    /** Throws {@link ConflictException} unless {@code current}, stored under {@code key}, satisfies these. */
    void check(StorageKey key, ObjectNode current) {
        if (uid != null) {
            String actual = ObjectTrees.metadataString(current, "uid");
            if (!uid.equals(actual)) {
                throw new ConflictException(
                        key,
                        "Precondition failed: UID in precondition: " + uid + ", UID in object meta: "
                                + (actual == null ? "" : actual));
            }
        }
        if (resourceVersion != null) {
            String actual = ObjectTrees.metadataString(current, "resourceVersion");
            if (!resourceVersion.equals(actual)) {
                throw new ConflictException(
                        key,
                        "Precondition failed: ResourceVersion in precondition: " + resourceVersion
                                + ", ResourceVersion in object meta: " + (actual == null ? "" : actual));
            }
        }
    }
}
