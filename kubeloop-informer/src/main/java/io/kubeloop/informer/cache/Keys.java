package io.kubeloop.informer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.Objects;

/**
 * The key functions of informer caches and queues (client-go's {@code MetaNamespaceKeyFunc},
 * {@code DeletionHandlingMetaNamespaceKeyFunc} and {@code SplitMetaNamespaceKey}).
 *
 * <p>A key is {@code namespace/name} for a namespaced object and {@code name} for a cluster-scoped one:
 * <pre>{@code
 * Keys.META_NAMESPACE.keyOf(pod);          // "default/web-0"
 * Keys.META_NAMESPACE.keyOf(node);         // "node-1"
 * Keys.split("default/web-0");             // ObjectName[namespace=default, name=web-0]
 * }</pre>
 */
public final class Keys {

    /**
     * {@code namespace/name}, or {@code name} when the namespace is empty, for any fabric8
     * {@link HasMetadata} (typed classes and {@code GenericKubernetesResource} alike).
     *
     * @throws KeyException naming the object's kind when it is not a Kubernetes object, has no metadata or
     *     has no name
     */
    public static final KeyFunc META_NAMESPACE = Keys::metaNamespaceKey;

    /**
     * The key function of informer caches: a {@link DeletedFinalStateUnknown} tombstone yields its recorded
     * key (its object may be stale or even absent), anything else is keyed by {@link #META_NAMESPACE}.
     */
    public static final KeyFunc DELETION_HANDLING = object ->
            object instanceof DeletedFinalStateUnknown<?> tombstone ? tombstone.key() : metaNamespaceKey(object);

    private Keys() {}

    /**
     * Splits a key into namespace and name: {@code "name"} gives namespace {@code ""}, {@code "ns/name"} gives
     * both, and {@code ""} gives two empty parts (as in client-go).
     *
     * @throws IllegalArgumentException {@code unexpected key format: "<key>"} when the key has more than one
     *     {@code '/'}
     */
    public static ObjectName split(String key) {
        Objects.requireNonNull(key, "key");
        int slash = key.indexOf('/');
        if (slash < 0) {
            return new ObjectName("", key);
        }
        if (key.indexOf('/', slash + 1) >= 0) {
            throw new IllegalArgumentException("unexpected key format: \"" + key + "\"");
        }
        return new ObjectName(key.substring(0, slash), key.substring(slash + 1));
    }

    private static String metaNamespaceKey(Object object) {
        if (object instanceof DeletedFinalStateUnknown<?> tombstone) {
            throw new KeyException(
                    "couldn't create key for the tombstone of " + tombstone.key()
                            + ": META_NAMESPACE does not unwrap tombstones (DeletedFinalStateUnknown); use Keys.DELETION_HANDLING");
        }
        if (!(object instanceof HasMetadata resource)) {
            throw new KeyException("couldn't create key for "
                    + (object == null
                            ? "null"
                            : "an object of class " + object.getClass().getName())
                    + ": object has no meta (it is not a Kubernetes object)");
        }
        ObjectMeta metadata = resource.getMetadata();
        if (metadata == null) {
            throw new KeyException("couldn't create key for " + kindOf(resource) + ": object has no metadata");
        }
        String name = metadata.getName();
        String namespace = metadata.getNamespace();
        if (name == null || name.isEmpty()) {
            throw new KeyException("couldn't create key for " + kindOf(resource)
                    + (namespace == null || namespace.isEmpty() ? "" : " in namespace " + namespace)
                    + (metadata.getGenerateName() == null ? "" : " (generateName " + metadata.getGenerateName() + ")")
                    + ": metadata.name is empty");
        }
        return namespace == null || namespace.isEmpty() ? name : namespace + "/" + name;
    }

    /** The object's kind, or its class when the kind is not set. */
    static String kindOf(HasMetadata resource) {
        String kind = resource.getKind();
        return kind == null || kind.isEmpty() ? resource.getClass().getSimpleName() : kind;
    }
}
