package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The real kubectl against the embedded server: version and discovery. */
class KubectlDiscoveryIT {

    private static EmbeddedApiServer server;
    @TempDir
    static Path dir;

    @BeforeAll
    static void start() {
        server = EmbeddedApiServer.builder().start();
        server.writeKubeconfig(dir.resolve("kubeconfig"));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    record Result(int exit, String out, String err) {}

    static Result kubectl(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("kubectl", "--kubeconfig", dir.resolve("kubeconfig").toString(),
                "--cache-dir", dir.resolve("cache").toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectOutput(dir.resolve("out").toFile())
                .redirectError(dir.resolve("err").toFile()).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("kubectl %s finished", String.join(" ", args)).isTrue();
        return new Result(p.exitValue(), Files.readString(dir.resolve("out"), StandardCharsets.UTF_8),
                Files.readString(dir.resolve("err"), StandardCharsets.UTF_8));
    }

    static boolean kubectlInstalled() {
        try {
            return new ProcessBuilder("kubectl", "version", "--client").start().waitFor(30, TimeUnit.SECONDS);
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    @Test
    void kubectlVersionSeesA132Server() throws Exception {
        assumeTrue(System.getenv("CI") != null || kubectlInstalled(), "kubectl is not installed");
        Result r = kubectl("version");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("Server Version: v1.32.4");
    }

    @Test
    void kubectlApiResourcesListsTheBuiltInResources() throws Exception {
        assumeTrue(System.getenv("CI") != null || kubectlInstalled(), "kubectl is not installed");
        Result r = kubectl("api-resources");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).containsPattern("pods\\s+po\\s+v1\\s+true\\s+Pod")
                .containsPattern("deployments\\s+deploy\\s+apps/v1\\s+true\\s+Deployment")
                .containsPattern("leases\\s+coordination.k8s.io/v1\\s+true\\s+Lease")
                .containsPattern("nodes\\s+no\\s+v1\\s+false\\s+Node");
    }
}
