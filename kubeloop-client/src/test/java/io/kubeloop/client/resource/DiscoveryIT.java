package io.kubeloop.client.resource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.codec.Decoding;
import io.kubeloop.client.config.ClientConfig;
import org.junit.jupiter.api.Test;

/** Kinds resolved through discovery: cached per group version, fetched again when a kind is missing. */
class DiscoveryIT {

    private static String crd(String kind, String plural) {
        return """
                {"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
                 "metadata":{"name":"%2$s.example.com"},
                 "spec":{"group":"example.com","scope":"Namespaced",
                  "names":{"kind":"%1$s","plural":"%2$s","singular":"%3$s","listKind":"%1$sList"},
                  "versions":[{"name":"v1","served":true,"storage":true,
                   "subresources":{"status":{}},
                   "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}
                """.formatted(kind, plural, kind.toLowerCase());
    }

    @Test
    void aKindAddedLaterIsFoundByFetchingItsGroupVersionAgain() {
        try (EmbeddedApiServer server = EmbeddedApiServer.builder().start();
                KubernetesClient client = KubernetesClient.create(
                        ClientConfig.builder().server(server.url()).build())) {
            ResourceClient<GenericKubernetesResource> crds =
                    client.genericResources("apiextensions.k8s.io/v1", "CustomResourceDefinition");
            assertThat(crds.type().namespaced()).isFalse();
            crds.create(
                    Decoding.standard().mapper().readValue(crd("Widget", "widgets"), GenericKubernetesResource.class));

            ResourceClient<GenericKubernetesResource> widgets = client.genericResources("example.com/v1", "Widget");
            assertThat(widgets.type().plural()).isEqualTo("widgets");
            assertThat(widgets.type().namespaced()).isTrue();
            assertThat(widgets.type().hasStatus()).isTrue();
            assertThatThrownBy(() -> client.genericResources("example.com/v1", "Gadget"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("the API server serves no kind Gadget in example.com/v1 (it serves [Widget])");

            crds.create(
                    Decoding.standard().mapper().readValue(crd("Gadget", "gadgets"), GenericKubernetesResource.class));
            ResourceClient<GenericKubernetesResource> gadgets = client.genericResources("example.com/v1", "Gadget");
            GenericKubernetesResource g = new GenericKubernetesResource();
            g.setApiVersion("example.com/v1");
            g.setKind("Gadget");
            g.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
                    .withName("g1")
                    .build());
            g.setAdditionalProperty("spec", java.util.Map.of("size", 3));
            gadgets.create(g);
            GenericKubernetesResource read = gadgets.get("g1").orElseThrow();
            assertThat(read.<Integer>get("spec", "size")).isEqualTo(3);
            assertThat(gadgets.list().items()).singleElement().satisfies(x -> assertThat(x.getKind())
                    .isEqualTo("Gadget"));
        }
    }
}
