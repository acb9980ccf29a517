package io.kubeloop.client.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.clock.Clock;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Real HTTPS connections to the embedded API server with an HttpClient built from {@link ClientConfig}, TLS
 * verification on: the server's SelfSubjectReview says who the configuration logs in as.
 */
class EmbeddedApiServerConnectionTest {

    static final String BOB_TOKEN = "bob-token-0123456789";
    static final String CAROL_TOKEN = "carol-token-0123456789";
    static EmbeddedApiServer server;
    static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path dir;

    @BeforeAll
    static void start() {
        server = EmbeddedApiServer.builder()
                .tls()
                .token("bob", BOB_TOKEN, "qa")
                .token("carol", CAROL_TOKEN)
                .start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    /** POSTs a SelfSubjectReview; returns [status code, username, groups...]. */
    static List<String> whoami(ClientConfig config) throws Exception {
        try (HttpClient http = config.httpClientBuilder()
                .connectTimeout(Duration.ofSeconds(10))
                .build()) {
            HttpRequest.Builder req = HttpRequest.newBuilder(
                            config.server().resolve("/apis/authentication.k8s.io/v1/selfsubjectreviews"))
                    .timeout(Duration.ofSeconds(10))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(
                            "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"SelfSubjectReview\"}"));
            config.credentials().authorization().ifPresent(a -> req.header("Authorization", a));
            HttpResponse<String> res = http.send(req.build(), HttpResponse.BodyHandlers.ofString());
            if (res.statusCode() != 201 && res.statusCode() != 200) {
                return List.of(String.valueOf(res.statusCode()));
            }
            JsonNode user = JSON.readTree(res.body()).path("status").path("userInfo");
            List<String> out = new java.util.ArrayList<>(List.of(
                    String.valueOf(res.statusCode()), user.path("username").asString()));
            user.path("groups").forEach(g -> out.add(g.asString()));
            return out;
        }
    }

    private String caPem() {
        return TestPki.pem(server.certificateAuthority());
    }

    @Test
    void clientCertificateKubeconfig() throws Exception {
        Path kc = server.writeKubeconfigFor(dir.resolve("alice.yaml"), "alice", "devs");
        ClientConfig config = ClientConfig.fromKubeconfig(kc);
        assertThat(config.insecureSkipTlsVerify()).isFalse();
        assertThat(whoami(config)).containsExactly("201", "alice", "devs", "system:authenticated");
        assertThat(config.toString()).contains("client certificate CN=alice");
    }

    @Test
    void tokenKubeconfig() throws Exception {
        Path kc = Files.writeString(dir.resolve("bob.yaml"), server.kubeconfigForToken(BOB_TOKEN));
        ClientConfig config = ClientConfig.fromKubeconfig(kc);
        assertThat(whoami(config)).containsExactly("201", "bob", "qa", "system:authenticated");
        assertThat(config.toString()).doesNotContain(BOB_TOKEN);
    }

    @Test
    void builderWithTokenTlsServerNameAndAWrongToken() throws Exception {
        ClientConfig bob = ClientConfig.builder()
                .server(server.url())
                .certificateAuthorityPem(caPem())
                .token(BOB_TOKEN)
                .tlsServerName("localhost")
                .build();
        assertThat(whoami(bob).get(1)).isEqualTo("bob");
        ClientConfig wrong = ClientConfig.builder()
                .server(server.url())
                .certificateAuthorityPem(caPem())
                .token("not-a-known-token")
                .build();
        assertThat(whoami(wrong)).containsExactly("401");
        ClientConfig wrongName = ClientConfig.builder()
                .server(server.url())
                .certificateAuthorityPem(caPem())
                .token(BOB_TOKEN)
                .tlsServerName("kubernetes.default.svc")
                .build();
        assertThatThrownBy(() -> whoami(wrongName)).isInstanceOf(SSLHandshakeException.class);
        ClientConfig untrusted =
                ClientConfig.builder().server(server.url()).token(BOB_TOKEN).build();
        assertThatThrownBy(() -> whoami(untrusted)).isInstanceOf(SSLHandshakeException.class);
    }

    @Test
    void inClusterWithARotatingServiceAccountToken() throws Exception {
        Path sa = Files.createDirectories(dir.resolve("serviceaccount"));
        Files.writeString(sa.resolve("ca.crt"), caPem());
        Files.writeString(sa.resolve("namespace"), "kube-system\n");
        Path token = Files.writeString(sa.resolve("token"), BOB_TOKEN);
        Files.setLastModifiedTime(token, FileTime.from(Instant.parse("2026-01-01T00:00:00Z")));
        ConfigLoader loader = ConfigLoader.of(
                Map.of(
                        "KUBERNETES_SERVICE_HOST",
                        server.url().getHost(),
                        "KUBERNETES_SERVICE_PORT",
                        String.valueOf(server.port())),
                dir.resolve("home"),
                sa,
                Clock.system());
        ClientConfig config = loader.autodetect(); // no kubeconfig anywhere: in-cluster
        assertThat(config.namespace()).isEqualTo("kube-system");
        assertThat(whoami(config).get(1)).isEqualTo("bob");
        Files.writeString(token, CAROL_TOKEN); // the kubelet rotates the projected token
        Files.setLastModifiedTime(token, FileTime.from(Instant.parse("2026-01-01T01:00:00Z")));
        assertThat(whoami(config).get(1)).isEqualTo("carol");
        assertThat(config.toString()).contains("in-cluster").doesNotContain(CAROL_TOKEN);
    }

    @Test
    @DisabledOnOs(OS.WINDOWS)
    void execPluginWithTheServersCertificate() throws Exception {
        // the plugin prints the client certificate and key of a kubeconfig the server minted for dave
        JsonNode kc = tools.jackson.dataformat.yaml.YAMLMapper.builder()
                .build()
                .readTree(server.kubeconfigFor("dave", "ops"))
                .path("users")
                .get(0)
                .path("user");
        var cred = JSON.createObjectNode();
        cred.put("apiVersion", ExecConfig.V1BETA1)
                .put("kind", "ExecCredential")
                .putObject("status")
                .put(
                        "clientCertificateData",
                        decode(kc.path("client-certificate-data").asString()))
                .put("clientKeyData", decode(kc.path("client-key-data").asString()));
        Path json = Files.writeString(dir.resolve("cred.json"), cred.toString());
        Path plugin = dir.resolve("plugin.sh");
        Files.writeString(plugin, "#!/bin/sh\ncat '" + json + "'\n");
        Files.setPosixFilePermissions(plugin, PosixFilePermissions.fromString("rwx------"));
        ClientConfig config = ClientConfig.builder()
                .server(server.url())
                .certificateAuthorityPem(caPem())
                .exec(ExecConfig.of(ExecConfig.V1BETA1, plugin.toString()))
                .build();
        assertThat(whoami(config)).containsExactly("201", "dave", "ops", "system:authenticated");
    }

    private static String decode(String b64) {
        return new String(Base64.getDecoder().decode(b64), java.nio.charset.StandardCharsets.US_ASCII);
    }
}
