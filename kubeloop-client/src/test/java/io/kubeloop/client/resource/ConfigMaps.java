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

    /** The ConfigMap every namespace of a cluster has (the embedded server adds it in the background). */
    static final String SEEDED = "kube-root-ca.crt";

    /**
     * ConfigMaps in {@code namespace}, which is created first if the server does not have it; returns once the
     * namespace has its {@link #SEEDED} ConfigMap, so every test starts from the same state.
     */
    static ResourceClient<ConfigMap> in(KubernetesClient client, String namespace) {
        ResourceClient<Namespace> namespaces = client.resources(Namespace.class);
        if (namespaces.get(namespace).isEmpty()) {
            namespaces.create(new NamespaceBuilder()
                    .withNewMetadata()
                    .withName(namespace)
                    .endMetadata()
                    .build());
        }
        ResourceClient<ConfigMap> configMaps = client.resources(ConfigMap.class).inNamespace(namespace);
        org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(10))
                .pollInterval(java.time.Duration.ofMillis(10))
                .until(() -> configMaps.get(SEEDED).isPresent());
        return configMaps;
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
