package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The real kubectl against the embedded server: version and discovery. */
class KubectlDiscoveryIT {

    private static EmbeddedApiServer server;
    private static Kubectl kubectl;

    @TempDir
    static Path dir;

    @BeforeAll
    static void start() {
        Kubectl.assumeInstalled();
        server = EmbeddedApiServer.builder().start();
        kubectl = new Kubectl(server, dir);
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void kubectlVersionSeesA132Server() throws Exception {
        assertThat(kubectl.run("version").ok().out()).contains("Server Version: v1.32.4");
    }

    @Test
    void kubectlApiResourcesListsTheBuiltInResources() throws Exception {
        assertThat(kubectl.run("api-resources").ok().out())
                .containsPattern("pods\\s+po\\s+v1\\s+true\\s+Pod")
                .containsPattern("deployments\\s+deploy\\s+apps/v1\\s+true\\s+Deployment")
                .containsPattern("leases\\s+coordination.k8s.io/v1\\s+true\\s+Lease")
                .containsPattern("nodes\\s+no\\s+v1\\s+false\\s+Node");
    }
}
