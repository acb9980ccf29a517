package io.kubeloop.cli;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ApiServerCommandTest {

    @TempDir
    Path dir;

    @Test
    void servesUntilInterruptedAndWritesAKubeconfig() throws Exception {
        Path kubeconfig = dir.resolve("sub/kubeconfig");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream originalOut = System.out;
        AtomicInteger exit = new AtomicInteger(-1);
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        Thread server;
        try {
            server = Thread.ofPlatform().start(() -> exit.set(Main.run("apiserver", "--port", "0",
                    "--kubeconfig-out", kubeconfig.toString())));
            Awaitility.await().atMost(Duration.ofSeconds(30))
                    .until(() -> out.toString(StandardCharsets.UTF_8).contains("stop with Ctrl-C"));
        } finally {
            System.setOut(originalOut);
        }
        String printed = out.toString(StandardCharsets.UTF_8);
        Matcher url = Pattern.compile("listening on (http://127\\.0\\.0\\.1:\\d+)").matcher(printed);
        assertThat(url.find()).as(printed).isTrue();
        assertThat(printed).contains("kubeconfig: " + kubeconfig.toAbsolutePath());
        assertThat(Files.readString(kubeconfig)).contains("server: " + url.group(1)).contains("current-context: kubeloop");

        HttpResponse<String> version = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create(url.group(1) + "/version")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(version.body()).contains("\"minor\":\"32\"");

        server.interrupt();
        server.join(Duration.ofSeconds(30));
        assertThat(server.isAlive()).isFalse();
        assertThat(exit.get()).isZero();
    }

    @Test
    void aPortInUseIsReportedPlainly() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream originalErr = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            int code = Main.run("apiserver", "--port", Integer.toString(taken.getLocalPort()),
                    "--kubeconfig-out", dir.resolve("k").toString());
            assertThat(code).isEqualTo(1);
        } finally {
            System.setErr(originalErr);
        }
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("kubeloop: cannot start the API server on 127.0.0.1:")
                .doesNotContain("\tat ");
    }
}
