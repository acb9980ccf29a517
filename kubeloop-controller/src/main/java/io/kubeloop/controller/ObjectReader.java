package io.kubeloop.controller;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kubeloop.model.selector.FieldSelector;
import io.kubeloop.model.selector.LabelSelector;
import java.util.List;
import java.util.Optional;

/**
 * Reads objects by type, namespace and name, or lists them by namespace, label selector and field selector
 * (controller-runtime's {@code client.Reader}). Two readers implement it: the {@link ControllerClient} reads the
 * manager's informer cache, and {@link Manager#apiReader()} reads the API server itself.
 *
 * <p>Namespaces: {@code ""} means a cluster-scoped object for {@code get}, and every namespace for {@code list}.
 * Every object returned belongs to the caller: change it as you like.
 *
 * <pre>{@code
 * Optional<Pod> web = reader.get(Pod.class, "shop", "web-0");
 * List<Pod> frontends = reader.list(Pod.class, "shop", LabelSelector.parse("tier=frontend"));
 * List<Pod> onNode = reader.list(Pod.class, "", LabelSelector.everything(), FieldSelector.parse("spec.nodeName=n1"));
 * }</pre>
 */
public interface ObjectReader {

    /**
     * The object of {@code type} named {@code name} in {@code namespace} ({@code ""} for a cluster-scoped type), or
     * empty when there is none.
     */
    <T extends HasMetadata> Optional<T> get(Class<T> type, String namespace, String name);

    /** The object of {@code type} that {@code request} names. */
    default <T extends HasMetadata> Optional<T> get(Class<T> type, Request request) {
        return get(type, request.namespace(), request.name());
    }

    /** Every object of {@code type} in {@code namespace} ({@code ""}: all namespaces). */
    default <T extends HasMetadata> List<T> list(Class<T> type, String namespace) {
        return list(type, namespace, LabelSelector.everything(), FieldSelector.everything());
    }

    /** The objects of {@code type} in {@code namespace} ({@code ""}: all) whose labels {@code labels} matches. */
    default <T extends HasMetadata> List<T> list(Class<T> type, String namespace, LabelSelector labels) {
        return list(type, namespace, labels, FieldSelector.everything());
    }

    /**
     * The objects of {@code type} in {@code namespace} ({@code ""}: all) that both selectors match. Field selectors
     * accept the fields the API server accepts for the type (see the implementation for what its cache supports).
     *
     * @throws IllegalArgumentException the field selector names a field the type cannot be selected by
     */
    <T extends HasMetadata> List<T> list(Class<T> type, String namespace, LabelSelector labels, FieldSelector fields);
}
