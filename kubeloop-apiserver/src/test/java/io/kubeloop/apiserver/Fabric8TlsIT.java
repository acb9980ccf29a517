package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** fabric8 reads the server's kubeconfigs as they are: CA data, an EC client certificate and key, or a token. */
@Timeout(120)
class Fabric8TlsIT {

    private EmbeddedApiServer server;

    @BeforeEach
    void start() {
        server = EmbeddedApiServer.builder()
                .tls()
                .token("alice", "alice-token-123")
                .start();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private static KubernetesClient client(String kubeconfig) {
        return new KubernetesClientBuilder()
                .withConfig(Config.fromKubeconfig(kubeconfig))
                .build();
    }

    @Test
    void clientCertificateAndTokenKubeconfigsWork() {
        try (KubernetesClient admin = client(server.kubeconfig())) {
            admin.configMaps()
                    .inNamespace("default")
                    .resource(new ConfigMapBuilder()
                            .withNewMetadata()
                            .withName("c")
                            .endMetadata()
                            .addToData("k", "v")
                            .build())
                    .create();
        }
        try (KubernetesClient bob = client(server.kubeconfigFor("bob", "devs"))) {
            assertThat(bob.configMaps()
                            .inNamespace("default")
                            .withName("c")
                            .get()
                            .getData())
                    .containsEntry("k", "v");
        }
        try (KubernetesClient alice = client(server.kubeconfigForToken("alice-token-123"))) {
            assertThat(alice.namespaces().list().getItems())
                    .extracting(n -> n.getMetadata().getName())
                    .contains("default");
        }
        try (KubernetesClient mallory =
                client(server.kubeconfigForToken("alice-token-123").replace("alice-token-123", "wrong-token"))) {
            assertThatThrownBy(() -> mallory.namespaces().list())
                    .isInstanceOf(KubernetesClientException.class)
                    .satisfies(e -> assertThat(((KubernetesClientException) e).getCode())
                            .isEqualTo(401));
        }
    }
}
