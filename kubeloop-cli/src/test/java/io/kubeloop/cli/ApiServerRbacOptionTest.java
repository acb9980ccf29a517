package io.kubeloop.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kubeloop apiserver --rbac}: the kubeconfig's user is the admin, impersonated users meet RBAC. */
class ApiServerRbacOptionTest {

    @TempDir
    Path dir;

    @Test
    void rbacRefusesAnImpersonatedUserWithoutBindings() throws Exception {
        RunningApiServer server = RunningApiServer.start(
                Duration.ofSeconds(30),
                "--port",
                "0",
                "--rbac",
                "--kubeconfig-out",
                dir.resolve("kubeconfig").toString());
        try {
            URI url = server.url();
            assertThat(url.getScheme()).isEqualTo("http");
            HttpClient http = HttpClient.newHttpClient();
            URI pods = URI.create(url + "/api/v1/namespaces/default/pods");
            assertThat(http.send(HttpRequest.newBuilder(pods).build(), HttpResponse.BodyHandlers.ofString())
                            .statusCode())
                    .isEqualTo(200);
            HttpResponse<String> alice = http.send(
                    HttpRequest.newBuilder(pods)
                            .header("Impersonate-User", "alice")
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(alice.statusCode()).isEqualTo(403);
            assertThat(alice.body())
                    .contains("pods is forbidden: User \\\"alice\\\" cannot list resource \\\"pods\\\"");
        } finally {
            server.stop();
        }
        assertThat(server.isAlive()).isFalse();
    }
}
