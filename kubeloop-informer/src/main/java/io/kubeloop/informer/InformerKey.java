package io.kubeloop.informer;

import io.kubeloop.model.GroupVersionResource;
import java.util.Objects;

/**
 * What makes two informers of a {@link SharedInformerFactory} the same one: the resource, the Java class its
 * objects are decoded as, the namespace, the label and field selectors (canonical form) and the transform (by
 * identity).
 *
 * @param resource group, version and plural
 * @param objectType the class of the cached objects ({@code GenericKubernetesResource} for generic informers)
 * @param namespace null for all namespaces or a cluster-scoped resource
 * @param labelSelector canonical; "" for none
 * @param fieldSelector canonical; "" for none
 * @param transform null for none
 */
public record InformerKey(
        GroupVersionResource resource,
        Class<?> objectType,
        String namespace,
        String labelSelector,
        String fieldSelector,
        Object transform) {

    public InformerKey {
        Objects.requireNonNull(resource, "resource");
        Objects.requireNonNull(objectType, "objectType");
        Objects.requireNonNull(labelSelector, "labelSelector");
        Objects.requireNonNull(fieldSelector, "fieldSelector");
    }

    /**
     * A readable name, e.g. {@code pods}, {@code deployments.apps in shop [app=web]}; the informer's name is this
     * (with a suffix when two keys read the same).
     */
    public String describe() {
        StringBuilder b = new StringBuilder(resource.resource());
        if (!resource.group().isEmpty()) {
            b.append('.').append(resource.group());
        }
        if (namespace != null) {
            b.append(" in ").append(namespace);
        }
        if (!labelSelector.isEmpty() || !fieldSelector.isEmpty()) {
            b.append(" [");
            b.append(labelSelector);
            if (!labelSelector.isEmpty() && !fieldSelector.isEmpty()) {
                b.append(';');
            }
            b.append(fieldSelector).append(']');
        }
        return b.toString();
    }

    @Override
    public String toString() {
        return describe() + " as " + objectType.getSimpleName() + (transform == null ? "" : " transformed");
    }
}
