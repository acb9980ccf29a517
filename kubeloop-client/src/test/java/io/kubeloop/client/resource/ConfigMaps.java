package io.kubeloop.client.resource;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.kubeloop.client.KubernetesClient;
import java.util.Map;

/** The ConfigMaps the resource-client integration tests work with. */
final class ConfigMaps {

    private ConfigMaps() {}

    /** ConfigMaps in {@code namespace}, which is created first if the server does not have it. */
    static ResourceClient<ConfigMap> in(KubernetesClient client, String namespace) {
        ResourceClient<Namespace> namespaces = client.resources(Namespace.class);
        if (namespaces.get(namespace).isEmpty()) {
            namespaces.create(new NamespaceBuilder()
                    .withNewMetadata()
                    .withName(namespace)
                    .endMetadata()
                    .build());
        }
        return client.resources(ConfigMap.class).inNamespace(namespace);
    }

    static ConfigMap of(String name, Map<String, String> labels, Map<String, String> data) {
        return new ConfigMapBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(labels)
                .endMetadata()
                .withData(data)
                .build();
    }
}
