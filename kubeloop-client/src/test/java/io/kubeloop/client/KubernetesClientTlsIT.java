package io.kubeloop.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.errors.ForbiddenException;
import io.kubeloop.client.errors.UnauthorizedException;
import io.kubeloop.client.resource.ListOptions;
import io.kubeloop.client.resource.PatchOptions;
import io.kubeloop.client.resource.PatchType;
import io.kubeloop.client.resource.ResourceClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The core calls over HTTPS with verification on: a bearer token (builder and kubeconfig) and a client
 * certificate; 401 and 403 mapped without secrets in their messages; a rotated token picked up after a 401.
 *
 * <p>HTTP/2: the client asks for it over TLS, but the JDK's {@code HttpsServer} under the embedded API server
 * offers only HTTP/1.1 through ALPN, so these tests prove the fallback, not HTTP/2 itself.
 */
class KubernetesClientTlsIT {

    private static final String ALICE_TOKEN = "t0k3n-long-enough";
    private static EmbeddedApiServer server;

    @TempDir
    static Path dir;

    @BeforeAll
    static void start() {
        server = EmbeddedApiServer.builder()
                .tls()
                .token("alice", ALICE_TOKEN, "devs")
                .start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static String caPem() throws Exception {
        return "-----BEGIN CERTIFICATE-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes())
                        .encodeToString(server.certificateAuthority().getEncoded())
                + "\n-----END CERTIFICATE-----\n";
    }

    /** create, get, list, patch and delete of one ConfigMap: the core calls. */
    private static void coreCalls(ClientConfig config, String name) {
        try (KubernetesClient client = KubernetesClient.create(config)) {
            ResourceClient<ConfigMap> cms = client.resources(ConfigMap.class);
            cms.create(new ConfigMapBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .addToLabels("t", name)
                    .endMetadata()
                    .build());
            assertThat(cms.get(name)).isPresent();
            assertThat(cms.list(ListOptions.builder().labelSelector("t=" + name).build())
                            .items())
                    .hasSize(1);
            assertThat(cms.patch(name, PatchType.MERGE, "{\"data\":{\"k\":\"v\"}}", PatchOptions.none())
                            .getData())
                    .isEqualTo(Map.of("k", "v"));
            assertThat(cms.delete(name)).isPresent();
            assertThat(cms.get(name)).isEmpty();
        }
    }

    @Test
    void aTokenFromTheBuilderAndFromAKubeconfig() throws Exception {
        assertThat(server.url().getScheme()).isEqualTo("https");
        coreCalls(
                ClientConfig.builder()
                        .server(server.url())
                        .certificateAuthorityPem(caPem())
                        .token(ALICE_TOKEN)
                        .build(),
                "by-builder");
        Path kc = Files.writeString(dir.resolve("alice.yaml"), server.kubeconfigForToken(ALICE_TOKEN));
        coreCalls(ClientConfig.fromKubeconfig(kc), "by-token-kubeconfig");
    }

    @Test
    void aClientCertificate() {
        coreCalls(
                ClientConfig.fromKubeconfig(server.writeKubeconfigFor(dir.resolve("bob.yaml"), "bob")),
                "by-certificate");
    }

    @Test
    void aWrongTokenIsUnauthorizedAndTheTokenIsNowhere() throws Exception {
        String secret = "wrong-but-secret-token-value";
        ClientConfig config = ClientConfig.builder()
                .server(server.url())
                .certificateAuthorityPem(caPem())
                .token(secret)
                .build();
        try (KubernetesClient client = KubernetesClient.create(config)) {
            ResourceClient<ConfigMap> cms = client.resources(ConfigMap.class);
            assertThatThrownBy(() -> cms.get("x"))
                    .isInstanceOf(UnauthorizedException.class)
                    .satisfies(e -> {
                        assertThat(e.getMessage()).contains("401").doesNotContain(secret);
                        assertThat(e.toString()).doesNotContain(secret);
                    });
            assertThat(client.toString()).doesNotContain(secret);
            assertThat(cms.toString()).doesNotContain(secret);
        }
    }

    @Test
    void withoutCredentialsA401IsNotSentAgain() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (KubernetesClient client = KubernetesClient.builder(ClientConfig.builder()
                        .server(server.url())
                        .certificateAuthorityPem(caPem())
                        .build())
                .meterRegistry(registry)
                .build()) {
            assertThatThrownBy(() -> client.resources(ConfigMap.class).list())
                    .isInstanceOf(UnauthorizedException.class);
        }
        assertThat(registry.find("rest.client.requests")
                        .tags("code", "401")
                        .counter()
                        .count())
                .isEqualTo(1);
    }

    @Test
    void aTokenRotatedUnderTheSameModificationTimeIsReadAgainAfterA401() throws Exception {
        Path token = dir.resolve("token");
        Files.writeString(token, "stale-token-value");
        FileTime mtime = Files.getLastModifiedTime(token);
        ClientConfig config = ClientConfig.builder()
                .server(server.url())
                .certificateAuthorityPem(caPem())
                .tokenFile(token)
                .build();
        // rotate without changing the mtime: only the 401 → invalidate → re-read path can see the new token
        Files.writeString(token, ALICE_TOKEN);
        Files.setLastModifiedTime(token, mtime);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (KubernetesClient client =
                KubernetesClient.builder(config).meterRegistry(registry).build()) {
            assertThat(client.resources(ConfigMap.class).get("nothing")).isEmpty();
        }
        assertThat(registry.find("rest.client.requests")
                        .tags("code", "401")
                        .counter()
                        .count())
                .isEqualTo(1);
        assertThat(registry.find("rest.client.requests")
                        .tags("code", "404")
                        .counter()
                        .count())
                .isEqualTo(1);
    }

    @Test
    void aUserWithoutBindingsIsForbidden() {
        try (EmbeddedApiServer rbac =
                        EmbeddedApiServer.builder().tls().rbac(true).start();
                KubernetesClient client = KubernetesClient.create(
                        ClientConfig.fromKubeconfig(rbac.writeKubeconfigFor(dir.resolve("nobody.yaml"), "nobody")))) {
            assertThatThrownBy(() -> client.resources(ConfigMap.class).list())
                    .isInstanceOf(ForbiddenException.class)
                    .hasMessageContaining("GET /api/v1/namespaces/default/configmaps: 403 Forbidden")
                    .hasMessageContaining("\"nobody\"");
        }
    }
}
