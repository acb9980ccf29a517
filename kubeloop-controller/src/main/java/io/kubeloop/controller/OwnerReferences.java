package io.kubeloop.controller;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Owner references, as controller-runtime's {@code controllerutil} sets them: the garbage collector deletes an
 * object when its owners are gone, and a controller that {@code owns(...)} a type is told when an object it
 * controls changes.
 *
 * <pre>{@code
 * ConfigMap child = new ConfigMapBuilder().withNewMetadata().withName("web-config").withNamespace("shop")
 *         .endMetadata().build();
 * OwnerReferences.setControllerReference(deployment, child);   // deployment: read from the server or the cache
 * client.create(child);
 * }</pre>
 *
 * <p>Two references are to the same owner when the group of their apiVersion, their kind and their name are equal
 * (the version may differ), as in controller-runtime; setting a reference replaces one to the same owner. The
 * methods change {@code object} in place (give them a copy, never a cached object) and leave {@code owner} alone.
 *
 * <p>Scope rules (controller-runtime's, which the API server's garbage collector relies on): a cluster-scoped owner
 * may own anything; a namespaced owner may own only objects of its own namespace, never a cluster-scoped object.
 * A namespace is read from {@code metadata.namespace}: set it on the object before calling.
 */
public final class OwnerReferences {

    private OwnerReferences() {}

    /**
     * Makes {@code owner} the controller of {@code object}: a reference with {@code controller: true} and
     * {@code blockOwnerDeletion: true} (a foreground deletion of the owner waits for the object).
     *
     * @throws IllegalStateException another object already controls {@code object} (at most one controller)
     * @throws IllegalArgumentException the owner has no name, uid, apiVersion or kind, or the scope rules forbid it
     */
    public static void setControllerReference(HasMetadata owner, HasMetadata object) {
        OwnerReference reference = referenceTo(owner, true);
        validateScope(owner, object);
        Optional<OwnerReference> existing = controllerOf(object);
        if (existing.isPresent() && !sameOwner(existing.get(), reference)) {
            OwnerReference other = existing.get();
            throw new IllegalStateException("Object " + describe(object) + " is already owned by another "
                    + other.getKind() + " controller " + other.getName()
                    + "; an object has at most one controller (remove that reference first)");
        }
        upsert(object, reference);
    }

    /**
     * Adds a reference to {@code owner} that does not make it the controller (controller-runtime's
     * {@code SetOwnerReference}); replaces an existing reference to the same owner.
     *
     * @throws IllegalArgumentException the owner has no name, uid, apiVersion or kind, or the scope rules forbid it
     */
    public static void setOwnerReference(HasMetadata owner, HasMetadata object) {
        OwnerReference reference = referenceTo(owner, false);
        validateScope(owner, object);
        upsert(object, reference);
    }

    /**
     * Removes every reference to {@code owner} from {@code object}.
     *
     * @return whether {@code object} changed
     */
    public static boolean removeOwnerReference(HasMetadata owner, HasMetadata object) {
        OwnerReference reference = referenceTo(owner, false);
        ObjectMeta meta = metadata(object);
        List<OwnerReference> refs = meta.getOwnerReferences();
        if (refs == null || refs.isEmpty()) {
            return false;
        }
        List<OwnerReference> kept = new ArrayList<>(refs.size());
        for (OwnerReference r : refs) {
            if (!sameOwner(r, reference)) {
                kept.add(r);
            }
        }
        if (kept.size() == refs.size()) {
            return false;
        }
        meta.setOwnerReferences(kept);
        return true;
    }

    /** Whether {@code object} has a reference to {@code owner} (controller or not). */
    public static boolean hasOwnerReference(HasMetadata owner, HasMetadata object) {
        OwnerReference reference = referenceTo(owner, false);
        List<OwnerReference> refs = metadata(object).getOwnerReferences();
        return refs != null && refs.stream().anyMatch(r -> sameOwner(r, reference));
    }

    /** Whether any object controls {@code object} (a reference with {@code controller: true}). */
    public static boolean hasControllerReference(HasMetadata object) {
        return controllerOf(object).isPresent();
    }

    /** The reference to the object that controls {@code object}, if any (client-go's {@code GetControllerOf}). */
    public static Optional<OwnerReference> controllerOf(HasMetadata object) {
        ObjectMeta meta = Objects.requireNonNull(object, "object").getMetadata();
        if (meta == null || meta.getOwnerReferences() == null) {
            return Optional.empty();
        }
        return meta.getOwnerReferences().stream()
                .filter(r -> Boolean.TRUE.equals(r.getController()))
                .findFirst();
    }

    private static OwnerReference referenceTo(HasMetadata owner, boolean controller) {
        Objects.requireNonNull(owner, "owner");
        ObjectMeta meta = owner.getMetadata();
        String kind = owner.getKind() != null ? owner.getKind() : HasMetadata.getKind(owner.getClass());
        String apiVersion =
                owner.getApiVersion() != null ? owner.getApiVersion() : HasMetadata.getApiVersion(owner.getClass());
        if (meta == null || meta.getName() == null || meta.getName().isEmpty()) {
            throw new IllegalArgumentException("the owner " + kind + " has no metadata.name");
        }
        if (meta.getUid() == null || meta.getUid().isEmpty()) {
            throw new IllegalArgumentException("the owner " + kind + " " + meta.getName()
                    + " has no metadata.uid: use the owner as read from the server or the cache");
        }
        if (apiVersion == null || apiVersion.isEmpty() || kind == null || kind.isEmpty()) {
            throw new IllegalArgumentException("the owner " + meta.getName() + " has no apiVersion or kind");
        }
        OwnerReferenceBuilder b = new OwnerReferenceBuilder()
                .withApiVersion(apiVersion)
                .withKind(kind)
                .withName(meta.getName())
                .withUid(meta.getUid());
        if (controller) {
            b.withController(true).withBlockOwnerDeletion(true);
        }
        return b.build();
    }

    private static void validateScope(HasMetadata owner, HasMetadata object) {
        String ownerNamespace = namespaceOf(owner);
        if (ownerNamespace.isEmpty()) {
            return; // a cluster-scoped owner may own anything
        }
        String objectNamespace = namespaceOf(object);
        if (objectNamespace.isEmpty()) {
            throw new IllegalArgumentException(
                    "cluster-scoped resource must not have a namespace-scoped owner, owner's " + "namespace "
                            + ownerNamespace + " (or set metadata.namespace on the object first)");
        }
        if (!objectNamespace.equals(ownerNamespace)) {
            throw new IllegalArgumentException("cross-namespace owner references are disallowed, owner's namespace "
                    + ownerNamespace + ", obj's namespace " + objectNamespace);
        }
    }

    private static void upsert(HasMetadata object, OwnerReference reference) {
        ObjectMeta meta = metadata(object);
        List<OwnerReference> refs =
                meta.getOwnerReferences() == null ? new ArrayList<>() : new ArrayList<>(meta.getOwnerReferences());
        for (int i = 0; i < refs.size(); i++) {
            if (sameOwner(refs.get(i), reference)) {
                refs.set(i, reference);
                meta.setOwnerReferences(refs);
                return;
            }
        }
        refs.add(reference);
        meta.setOwnerReferences(refs);
    }

    /** controller-runtime's {@code referSameObject}: same group (not version), kind and name. */
    private static boolean sameOwner(OwnerReference a, OwnerReference b) {
        return group(a.getApiVersion()).equals(group(b.getApiVersion()))
                && Objects.equals(a.getKind(), b.getKind())
                && Objects.equals(a.getName(), b.getName());
    }

    private static String group(String apiVersion) {
        if (apiVersion == null) {
            return "";
        }
        int slash = apiVersion.indexOf('/');
        return slash < 0 ? "" : apiVersion.substring(0, slash);
    }

    private static ObjectMeta metadata(HasMetadata object) {
        Objects.requireNonNull(object, "object");
        ObjectMeta meta = object.getMetadata();
        if (meta == null) {
            meta = new ObjectMeta();
            object.setMetadata(meta);
        }
        return meta;
    }

    private static String namespaceOf(HasMetadata object) {
        ObjectMeta meta = object.getMetadata();
        return meta == null || meta.getNamespace() == null ? "" : meta.getNamespace();
    }

    private static String describe(HasMetadata object) {
        ObjectMeta meta = object.getMetadata();
        String name = meta == null ? null : meta.getName();
        String namespace = namespaceOf(object);
        return namespace.isEmpty() ? String.valueOf(name) : namespace + "/" + name;
    }
}
