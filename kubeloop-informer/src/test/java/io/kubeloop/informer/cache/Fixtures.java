package io.kubeloop.informer.cache;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Objects for cache tests. */
final class Fixtures {

    private Fixtures() {}

    static Pod pod(String namespace, String name) {
        return pod(namespace, name, null, Map.of());
    }

    static Pod pod(String namespace, String name, String node) {
        return pod(namespace, name, node, Map.of());
    }

    static Pod pod(String namespace, String name, String node, Map<String, String> labels) {
        return new PodBuilder()
                .withNewMetadata()
                .withNamespace(namespace)
                .withName(name)
                .withResourceVersion("1")
                .withLabels(new LinkedHashMap<>(labels))
                .endMetadata()
                .withNewSpec()
                .withNodeName(node)
                .endSpec()
                .build();
    }

    static Node node(String name) {
        return new NodeBuilder().withNewMetadata().withName(name).endMetadata().build();
    }

    static GenericKubernetesResource generic(String kind, String namespace, String name) {
        GenericKubernetesResource r = new GenericKubernetesResource();
        r.setApiVersion("example.com/v1");
        r.setKind(kind);
        r.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
                .withNamespace(namespace)
                .withName(name)
                .build());
        return r;
    }

    /** Index by the node a pod runs on; none when unscheduled. */
    static List<String> byNode(Pod pod) {
        String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
        return node == null ? List.of() : List.of(node);
    }

    /** Index by every label value ("key=value"), a multi-valued index. */
    static List<String> byLabel(Pod pod) {
        Map<String, String> labels = pod.getMetadata().getLabels();
        return labels == null
                ? List.of()
                : labels.entrySet().stream()
                        .map(e -> e.getKey() + "=" + e.getValue())
                        .toList();
    }

    static Indexer<Pod> podIndexer() {
        return Indexers.newIndexer(
                Keys.DELETION_HANDLING,
                Map.of(
                        Indexers.NAMESPACE_INDEX,
                        Indexers.namespaceIndex(),
                        "byNode",
                        Fixtures::byNode,
                        "byLabel",
                        Fixtures::byLabel));
    }

    static List<String> names(List<? extends io.fabric8.kubernetes.api.model.HasMetadata> objects) {
        return objects.stream().map(o -> o.getMetadata().getName()).sorted().toList();
    }
}
