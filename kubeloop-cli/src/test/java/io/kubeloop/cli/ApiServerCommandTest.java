package io.kubeloop.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.apiserver.internal.protobuf.ProtobufSupport;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

class ApiServerCommandTest {

    @TempDir
    Path dir;

    @Test
    void servesUntilInterruptedAndWritesAKubeconfig() throws Exception {
        Path kubeconfig = dir.resolve("sub/kubeconfig");
        RunningApiServer server = RunningApiServer.start(
                Duration.ofSeconds(30), "--port", "0", "--kubeconfig-out", kubeconfig.toString());
        URI url = server.url();
        assertThat(url.getScheme()).isEqualTo("http");
        assertThat(server.printed()).contains("kubeconfig: " + kubeconfig.toAbsolutePath());
        assertThat(Files.readString(kubeconfig)).contains("server: " + url).contains("current-context: kubeloop");

        HttpResponse<String> version = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(url + "/version")).build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(version.body()).contains("\"minor\":\"32\"");

        server.stop();
        assertThat(server.isAlive()).isFalse();
        assertThat(server.exit()).isZero();
    }

    /** kubectl's imperative commands send protobuf: the command's class path has the optional codec. */
    @Test
    void readsProtobufBodiesAsKubectlsImperativeCommandsSendThem() throws Exception {
        RunningApiServer server = RunningApiServer.start(
                Duration.ofSeconds(30),
                "--port",
                "0",
                "--kubeconfig-out",
                dir.resolve("kubeconfig").toString());
        try {
            JsonMapper json = JsonMapper.builder().build();
            byte[] body = ProtobufSupport.codec(json)
                    .orElseThrow()
                    .encode(json.readTree(
                            "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"dev\"}}"));
            HttpResponse<String> created = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create(server.url() + "/api/v1/namespaces"))
                                    .header("Content-Type", "application/vnd.kubernetes.protobuf")
                                    .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
            assertThat(created.body()).contains("\"name\":\"dev\"");
        } finally {
            server.stop();
        }
    }

    @Test
    void aPortInUseIsReportedPlainly() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream originalErr = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            int code = Main.run(
                    "apiserver",
                    "--port",
                    Integer.toString(taken.getLocalPort()),
                    "--kubeconfig-out",
                    dir.resolve("k").toString());
            assertThat(code).isEqualTo(1);
        } finally {
            System.setErr(originalErr);
        }
        assertThat(err.toString(StandardCharsets.UTF_8))
                .startsWith("kubeloop: cannot start the API server on 127.0.0.1:")
                .doesNotContain("\tat ");
    }
}
