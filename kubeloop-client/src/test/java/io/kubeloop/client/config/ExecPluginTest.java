package io.kubeloop.client.config;

import static io.kubeloop.client.config.ClientCertificateAndTlsTest.assertError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubeloop.clock.FakeClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** exec credential plugins as small shell scripts: v1 and v1beta1, caching, expiry, invalidate, failures. */
@DisabledOnOs(OS.WINDOWS)
class ExecPluginTest {

    @TempDir
    Path dir;

    private final FakeClock clock = new FakeClock(Instant.parse("2026-01-01T00:00:00Z"));

    /**
     * A plugin that counts its runs in $COUNTER, saves $KUBERNETES_EXEC_INFO to $INFO and prints an ExecCredential
     * of $API with token tok-$1-<run>, expiring at $EXP (none when empty).
     */
    private Path tokenPlugin() throws Exception {
        return script("plugin.sh", """
                #!/bin/sh
                n=$(cat "$COUNTER" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$COUNTER"
                printf '%s' "$KUBERNETES_EXEC_INFO" > "$INFO"
                if [ -n "$EXP" ]; then exp=",\\"expirationTimestamp\\":\\"$EXP\\""; else exp=""; fi
                printf '{"apiVersion":"%s","kind":"ExecCredential","status":{"token":"tok-%s-%s"%s}}' "$API" "$1" "$n" "$exp"
                """);
    }

    private Path script(String name, String body) throws Exception {
        Path p = dir.resolve(name);
        Files.writeString(p, body);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwx------"));
        return p;
    }

    private ClientConfig config(ExecConfig exec) {
        return ClientConfig.builder()
                .server("https://kube.example:6443")
                .exec(exec)
                .clock(clock)
                .build();
    }

    private Map<String, String> env(String api, String exp) {
        return Map.of(
                "COUNTER",
                dir.resolve("count").toString(),
                "INFO",
                dir.resolve("info").toString(),
                "API",
                api,
                "EXP",
                exp);
    }

    @ParameterizedTest
    @ValueSource(strings = {ExecConfig.V1, ExecConfig.V1BETA1})
    void cachedUntilExpiryAndRunAgainAfterInvalidate(String api) throws Exception {
        Instant expiry = clock.now().plus(Duration.ofMinutes(10));
        ClientConfig c =
                config(ExecConfig.of(api, tokenPlugin().toString(), "alice").withEnv(env(api, expiry.toString())));
        Credentials creds = c.credentials();
        assertThat(creds.authorization()).contains("Bearer tok-alice-1");
        assertThat(creds.authorization()).contains("Bearer tok-alice-1"); // cached: no second run
        clock.step(Duration.ofMinutes(9));
        assertThat(creds.authorization()).contains("Bearer tok-alice-1");
        clock.step(Duration.ofMinutes(1)); // at the expiry: run again
        assertThat(creds.authorization()).contains("Bearer tok-alice-2");
        creds.invalidate(); // the server said 401
        assertThat(creds.authorization()).contains("Bearer tok-alice-3");
        assertThat(Files.readString(dir.resolve("count")).strip()).isEqualTo("3");

        JsonNode info = JsonMapper.builder().build().readTree(Files.readString(dir.resolve("info")));
        assertThat(info.path("apiVersion").asString()).isEqualTo(api);
        assertThat(info.path("kind").asString()).isEqualTo("ExecCredential");
        assertThat(info.path("spec").path("interactive").asBoolean(true)).isFalse();
        assertThat(info.path("spec").has("cluster")).isFalse();
        assertThat(c.toString()).contains("exec " + dir.resolve("plugin.sh")).doesNotContain("tok-alice");
    }

    @Test
    void concurrentRequestsRunThePluginOnce() throws Exception {
        Path slow = script("slow.sh", """
                #!/bin/sh
                echo run >> "$COUNTER"
                i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done
                printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"t"}}'
                """);
        Credentials creds = config(ExecConfig.of(ExecConfig.V1, slow.toString())
                        .withEnv(Map.of("COUNTER", dir.resolve("count").toString())))
                .credentials();
        int threads = 8;
        java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(threads);
        List<java.util.concurrent.Future<java.util.Optional<String>>> results = new java.util.ArrayList<>();
        try (var pool = java.util.concurrent.Executors.newFixedThreadPool(threads)) {
            for (int i = 0; i < threads; i++) {
                results.add(pool.submit(() -> {
                    start.await(10, java.util.concurrent.TimeUnit.SECONDS);
                    return creds.authorization();
                }));
            }
            for (var r : results) {
                assertThat(r.get(30, java.util.concurrent.TimeUnit.SECONDS)).contains("Bearer t");
            }
        }
        assertThat(Files.readAllLines(dir.resolve("count"))).hasSize(1);
    }

    @Test
    void withoutExpiryTheCredentialIsKeptUntilInvalidated() throws Exception {
        ClientConfig c = config(
                ExecConfig.of(ExecConfig.V1, tokenPlugin().toString(), "bob").withEnv(env(ExecConfig.V1, "")));
        assertThat(c.credentials().authorization()).contains("Bearer tok-bob-1");
        clock.step(Duration.ofDays(365));
        assertThat(c.credentials().authorization()).contains("Bearer tok-bob-1");
        c.credentials().invalidate();
        assertThat(c.credentials().authorization()).contains("Bearer tok-bob-2");
    }

    @Test
    void provideClusterInfoAndKubeconfigEnvAndArgs() throws Exception {
        Path plugin = tokenPlugin();
        Path kc = Files.writeString(
                dir.resolve("config"),
                Kubeconfigs.single("https://kube.example:6443", "    tls-server-name: api.internal\n", """
                    exec:
                      apiVersion: client.authentication.k8s.io/v1beta1
                      command: ./plugin.sh
                      args: [carol]
                      provideClusterInfo: true
                      env:
                      - {name: COUNTER, value: "%s"}
                      - {name: INFO, value: "%s"}
                      - {name: API, value: client.authentication.k8s.io/v1beta1}
                      - {name: EXP, value: ""}
                """.formatted(
                                dir.resolve("count"), dir.resolve("info"))));
        ClientConfig c = ClientConfig.fromKubeconfig(kc);
        assertThat(c.credentials().authorization()).contains("Bearer tok-carol-1");
        JsonNode cluster = JsonMapper.builder()
                .build()
                .readTree(Files.readString(dir.resolve("info")))
                .path("spec")
                .path("cluster");
        assertThat(cluster.path("server").asString()).isEqualTo("https://kube.example:6443");
        assertThat(cluster.path("tls-server-name").asString()).isEqualTo("api.internal");
        assertThat(plugin).exists();
    }

    @Test
    void aFailingPluginIsAnErrorWithItsStderr() throws Exception {
        Path p = script("fail.sh", "#!/bin/sh\necho 'boom: the login expired' >&2\nexit 3\n");
        ClientConfig c = config(ExecConfig.of(ExecConfig.V1, p.toString()));
        assertError(() -> c.credentials().authorization(), "exec plugin " + p, "exited with status 3", "\u0000");
        assertThatThrownBy(() -> c.credentials().authorization()).hasMessageContaining("boom: the login expired");
    }

    @Test
    void stderrIsBounded() throws Exception {
        Path p = script(
                "noisy.sh",
                "#!/bin/sh\ni=0; while [ $i -lt 2000 ]; do printf 'xxxxxxxxxx' >&2; i=$((i+1)); done\nexit 1\n");
        ClientConfig c = config(ExecConfig.of(ExecConfig.V1, p.toString()));
        assertThatThrownBy(() -> c.credentials().authorization())
                .isInstanceOf(ConfigException.class)
                .satisfies(e -> assertThat(e.getMessage().length())
                        .isBetween(ExecCredentials.STDERR_EXCERPT, ExecCredentials.STDERR_EXCERPT + 300))
                .hasMessageEndingWith("[...]");
    }

    @Test
    void badOutputIsAnErrorThatDoesNotQuoteIt() throws Exception {
        String secret = "tok-very-secret";
        Path notJson = script("notjson.sh", "#!/bin/sh\necho '" + secret + " {'\n");
        assertError(
                () -> config(ExecConfig.of(ExecConfig.V1, notJson.toString()))
                        .credentials()
                        .authorization(),
                notJson.toString(),
                "did not print an ExecCredential as JSON",
                secret);
        Path wrongVersion = script(
                "wrong.sh",
                "#!/bin/sh\necho '{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\","
                        + "\"kind\":\"ExecCredential\",\"status\":{\"token\":\"" + secret + "\"}}'\n");
        assertError(
                () -> config(ExecConfig.of(ExecConfig.V1, wrongVersion.toString()))
                        .credentials()
                        .authorization(),
                wrongVersion.toString(),
                "expected client.authentication.k8s.io/v1 as configured",
                secret);
        Path empty = script(
                "empty.sh",
                "#!/bin/sh\necho '{\"apiVersion\":\"client.authentication.k8s.io/v1\","
                        + "\"kind\":\"ExecCredential\",\"status\":{}}'\n");
        assertError(
                () -> config(ExecConfig.of(ExecConfig.V1, empty.toString()))
                        .credentials()
                        .authorization(),
                empty.toString(),
                "neither token nor clientCertificateData",
                "\u0000");
        Path badTime = script(
                "time.sh",
                "#!/bin/sh\necho '{\"apiVersion\":\"client.authentication.k8s.io/v1\","
                        + "\"kind\":\"ExecCredential\",\"status\":{\"token\":\"" + secret
                        + "\",\"expirationTimestamp\":\"soon\"}}'\n");
        assertError(
                () -> config(ExecConfig.of(ExecConfig.V1, badTime.toString()))
                        .credentials()
                        .authorization(),
                badTime.toString(),
                "expirationTimestamp is not an RFC 3339 time",
                secret);
        assertError(
                () -> config(ExecConfig.of(ExecConfig.V1, dir.resolve("absent").toString()))
                        .credentials()
                        .authorization(),
                dir.resolve("absent").toString(),
                "cannot start",
                "\u0000");
    }

    @Test
    void aClientCertificateFromThePluginIsUsedInTheHandshake() throws Exception {
        KeyPair pair = TestPki.ec("secp256r1");
        String cert = TestPki.pem(TestPki.selfSigned(pair, "exec-user", List.of(), List.of()));
        String key = TestPki.sec1(pair, "1.2.840.10045.3.1.7");
        var json = JsonMapper.builder().build().createObjectNode();
        json.put("apiVersion", ExecConfig.V1)
                .put("kind", "ExecCredential")
                .putObject("status")
                .put("clientCertificateData", cert)
                .put("clientKeyData", key);
        Path out = Files.writeString(dir.resolve("cred.json"), json.toString());
        Path p = script("cert.sh", "#!/bin/sh\necho run >> '" + dir.resolve("runs") + "'\ncat '" + out + "'\n");
        try (TlsTestServer server = new TlsTestServer()) {
            ClientConfig c = ClientConfig.builder()
                    .server(server.url("127.0.0.1"))
                    .certificateAuthorityPem(server.caPem())
                    .exec(ExecConfig.of(ExecConfig.V1, p.toString()))
                    .clock(clock)
                    .build();
            assertThat(c.credentials().authorization()).isEmpty();
            assertThat(TlsTestServer.call(c)).isEqualTo("client=CN=exec-user auth=none");
            assertThat(Files.readAllLines(dir.resolve("runs"))).hasSize(1); // cached across the handshake
        }
    }
}
