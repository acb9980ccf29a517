package io.kubeloop.controller.internal.client;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.resource.ListOptions;
import io.kubeloop.client.resource.ResourceClient;
import io.kubeloop.controller.ObjectReader;
import io.kubeloop.model.selector.FieldSelector;
import io.kubeloop.model.selector.LabelSelector;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Reads the API server itself (controller-runtime's {@code APIReader}): a GET or a paged LIST per call, through the
 * client's rate limit and retries. Objects are fresh and the caller's own.
 */
final class ApiServerReader implements ObjectReader {

    /** Items per page when listing. */
    static final int PAGE_SIZE = 500;

    private final KubernetesClient client;

    ApiServerReader(KubernetesClient client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    @Override
    public <T extends HasMetadata> Optional<T> get(Class<T> type, String namespace, String name) {
        Objects.requireNonNull(namespace, "namespace (\"\" for a cluster-scoped object)");
        Objects.requireNonNull(name, "name");
        return scoped(type, namespace).get(name);
    }

    @Override
    public <T extends HasMetadata> List<T> list(
            Class<T> type, String namespace, LabelSelector labels, FieldSelector fields) {
        Objects.requireNonNull(namespace, "namespace (\"\" for all namespaces)");
        Objects.requireNonNull(labels, "labels");
        Objects.requireNonNull(fields, "fields");
        ListOptions.Builder options = ListOptions.builder();
        if (!labels.isEverything()) {
            options.labelSelector(labels.toString());
        }
        if (!fields.isEverything()) {
            options.fieldSelector(fields.toString());
        }
        return scoped(type, namespace).listAll(PAGE_SIZE, options.build()).items();
    }

    private <T extends HasMetadata> ResourceClient<T> scoped(Class<T> type, String namespace) {
        ResourceClient<T> resources = client.resources(Objects.requireNonNull(type, "type"));
        return namespace.isEmpty() ? resources.inAnyNamespace() : resources.inNamespace(namespace);
    }

    @Override
    public String toString() {
        return "ApiServerReader{" + client + "}";
    }
}
