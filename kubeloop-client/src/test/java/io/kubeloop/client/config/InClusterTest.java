package io.kubeloop.client.config;

import static io.kubeloop.client.config.ClientCertificateAndTlsTest.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.clock.Clock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pod's service account from KUBERNETES_SERVICE_HOST/PORT and the service-account folder. */
class InClusterTest {

    @TempDir
    Path dir;

    private Path serviceAccount(boolean ca, boolean token, String namespace) throws Exception {
        Path sa = Files.createDirectories(dir.resolve("sa"));
        if (ca) {
            KeyPair pair = TestPki.ec("secp256r1");
            Files.writeString(sa.resolve("ca.crt"), TestPki.pem(TestPki.selfSigned(pair, "ca", List.of(), List.of())));
        }
        if (token) {
            Files.writeString(sa.resolve("token"), "sa-token-secret");
        }
        if (namespace != null) {
            Files.writeString(sa.resolve("namespace"), namespace);
        }
        return sa;
    }

    private ConfigLoader loader(Map<String, String> env, Path sa) {
        return ConfigLoader.of(env, dir.resolve("home"), sa, Clock.system());
    }

    private static final Map<String, String> POD =
            Map.of("KUBERNETES_SERVICE_HOST", "10.96.0.1", "KUBERNETES_SERVICE_PORT", "443");

    @Test
    void serverNamespaceAndToken() throws Exception {
        ClientConfig c = loader(POD, serviceAccount(true, true, "payments\n")).inCluster();
        assertThat(c.server()).hasToString("https://10.96.0.1:443");
        assertThat(c.namespace()).isEqualTo("payments");
        assertThat(c.credentials().authorization()).contains("Bearer sa-token-secret");
        assertThat(c.toString()).doesNotContain("sa-token-secret");
    }

    @Test
    void namespaceDefaultsAndIpv6Hosts() throws Exception {
        ClientConfig c = loader(
                        Map.of("KUBERNETES_SERVICE_HOST", "fd00::1", "KUBERNETES_SERVICE_PORT", "6443"),
                        serviceAccount(true, true, null))
                .inCluster();
        assertThat(c.server()).hasToString("https://[fd00::1]:6443");
        assertThat(c.namespace()).isEqualTo("default");
    }

    @Test
    void aKubeconfigComesBeforeInCluster() throws Exception {
        Path home = Files.createDirectories(dir.resolve("home/.kube"));
        Files.writeString(home.resolve("config"), Kubeconfigs.single("https://from-kubeconfig", "", ""));
        assertThat(loader(POD, serviceAccount(true, true, null)).autodetect().server())
                .hasToString("https://from-kubeconfig");
    }

    @Test
    void errorsNameTheVariableOrFile() throws Exception {
        Path sa = serviceAccount(true, true, null);
        assertError(() -> loader(Map.of(), sa).inCluster(), "KUBERNETES_SERVICE_HOST", "not in a cluster", "\u0000");
        assertError(
                () -> loader(Map.of("KUBERNETES_SERVICE_HOST", "10.0.0.1"), sa).inCluster(),
                "KUBERNETES_SERVICE_PORT is not",
                "not in a cluster",
                "\u0000");
        assertError(
                () -> loader(Map.of("KUBERNETES_SERVICE_HOST", "10.0.0.1", "KUBERNETES_SERVICE_PORT", "https"), sa)
                        .inCluster(),
                "KUBERNETES_SERVICE_PORT",
                "not a port: https",
                "\u0000");
        Files.delete(sa.resolve("token"));
        assertError(() -> loader(POD, sa).inCluster(), sa.resolve("token").toString(), "no such file", "\u0000");
        Files.delete(sa.resolve("ca.crt"));
        assertError(() -> loader(POD, sa).inCluster(), sa.resolve("ca.crt").toString(), "no such file", "\u0000");
        Files.writeString(sa.resolve("ca.crt"), "not pem");
        Files.writeString(sa.resolve("token"), "t");
        assertError(() -> loader(POD, sa).inCluster(), "in-cluster CA " + sa.resolve("ca.crt"), "not PEM", "\u0000");
    }
}
