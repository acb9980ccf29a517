package io.kubeloop.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kubeloop apiserver --rbac}: the kubeconfig's user is the admin, impersonated users meet RBAC. */
class ApiServerRbacOptionTest {

    @TempDir
    Path dir;

    @Test
    void rbacRefusesAnImpersonatedUserWithoutBindings() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream originalOut = System.out;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        Thread server;
        try {
            server = Thread.ofPlatform().start(() -> Main.run("apiserver", "--port", "0", "--rbac",
                    "--kubeconfig-out", dir.resolve("kubeconfig").toString()));
            Awaitility.await().atMost(Duration.ofSeconds(30))
                    .until(() -> out.toString(StandardCharsets.UTF_8).contains("stop with Ctrl-C"));
        } finally {
            System.setOut(originalOut);
        }
        try {
            Matcher url = Pattern.compile("listening on (http://127\\.0\\.0\\.1:\\d+)")
                    .matcher(out.toString(StandardCharsets.UTF_8));
            assertThat(url.find()).isTrue();
            HttpClient http = HttpClient.newHttpClient();
            URI pods = URI.create(url.group(1) + "/api/v1/namespaces/default/pods");
            assertThat(http.send(HttpRequest.newBuilder(pods).build(), HttpResponse.BodyHandlers.ofString())
                    .statusCode()).isEqualTo(200);
            HttpResponse<String> alice = http.send(HttpRequest.newBuilder(pods).header("Impersonate-User", "alice")
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(alice.statusCode()).isEqualTo(403);
            assertThat(alice.body()).contains("pods is forbidden: User \\\"alice\\\" cannot list resource \\\"pods\\\"");
        } finally {
            server.interrupt();
            server.join(Duration.ofSeconds(30));
        }
        assertThat(server.isAlive()).isFalse();
    }
}
