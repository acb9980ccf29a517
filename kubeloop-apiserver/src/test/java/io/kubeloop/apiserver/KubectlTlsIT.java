package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real kubectl against the HTTPS server: it verifies the server with the kubeconfig's CA (never
 * insecure-skip-tls-verify) and logs in with a client certificate or a bearer token.
 */
class KubectlTlsIT {

    private EmbeddedApiServer server;

    @TempDir
    Path dir;

    @BeforeEach
    void start() {
        Kubectl.assumeInstalled();
        server = EmbeddedApiServer.builder()
                .tls()
                .token("alice", "alice-secret-token", "devs")
                .start();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    /** A kubectl whose kubeconfig is {@code kubeconfig} (the helper writes the admin one first; it is replaced). */
    private Kubectl kubectl(String name, String kubeconfig) throws Exception {
        Path home = dir.resolve(name);
        Kubectl kubectl = new Kubectl(server, home);
        if (kubeconfig != null) {
            Files.writeString(home.resolve("kubeconfig"), kubeconfig);
        }
        return kubectl;
    }

    @Test
    void theServersKubeconfigVerifiesTheServerAndIsAdmin() throws Exception {
        Kubectl admin = kubectl("admin", null);
        assertThat(Files.readString(dir.resolve("admin/kubeconfig")))
                .startsWith("apiVersion: v1")
                .contains("server: https://")
                .doesNotContain("insecure");
        assertThat(admin.run("get", "namespaces").ok().out()).contains("kube-system");
        assertThat(admin.runWithInput(
                                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {k: v}\n",
                                "apply",
                                "-f",
                                "-")
                        .ok()
                        .out())
                .contains("configmap/c created");
        assertThat(admin.run("version").ok().out()).contains("Server Version: v1.32");
    }

    @Test
    void aTokenKubeconfigLogsIn() throws Exception {
        Kubectl alice = kubectl("alice", server.kubeconfigForToken("alice-secret-token"));
        assertThat(alice.run("get", "secrets").ok().err()).contains("No resources found in default namespace");
    }

    @Test
    void aMintedClientCertificateKubeconfigLogsIn() throws Exception {
        Kubectl bob = kubectl("bob", server.kubeconfigFor("bob", "devs"));
        assertThat(bob.run("get", "namespaces", "default", "-o", "name").ok().out())
                .isEqualTo("namespace/default\n");
    }

    @Test
    void aBadTokenIsToldToLogIn() throws Exception {
        Kubectl mallory = kubectl(
                "mallory",
                server.kubeconfigForToken("alice-secret-token").replace("alice-secret-token", "wrong-token"));
        Kubectl.Result r = mallory.run("get", "pods"); // kubectl retries discovery a few times first
        assertThat(r.exit()).isNotZero();
        assertThat(r.err()).contains("You must be logged in to the server").doesNotContain("wrong-token");
    }

    @Test
    void aServerCertificateFromAnotherCaIsRejected() throws Exception {
        try (EmbeddedApiServer other = EmbeddedApiServer.builder().tls().start()) {
            // this server's admin credentials, but the other server's CA: kubectl must refuse the server
            String kubeconfig = server.kubeconfig()
                    .replaceFirst(
                            "certificate-authority-data: \\S+",
                            other.kubeconfig()
                                    .lines()
                                    .filter(l -> l.contains("certificate-authority-data"))
                                    .findFirst()
                                    .orElseThrow()
                                    .strip());
            Kubectl.Result r = kubectl("wrong-ca", kubeconfig).run("get", "namespaces");
            assertThat(r.exit()).isNotZero();
            assertThat(r.err()).contains("certificate signed by unknown authority");
        }
    }
}
