package io.kubeloop.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.apiserver.EmbeddedApiServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kubeloop fault ...} against an embedded server with fault injection on. */
class FaultCommandTest {

    @TempDir
    Path dir;

    private final PrintStream originalOut = System.out;
    private final PrintStream originalErr = System.err;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private EmbeddedApiServer server;

    @BeforeEach
    void start() {
        server = EmbeddedApiServer.builder().faultInjection(true).faultSeed(3).start();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void stop() {
        System.setOut(originalOut);
        System.setErr(originalErr);
        server.close();
    }

    private int fault(String... args) {
        out.reset();
        err.reset();
        String[] all = new String[args.length + 3];
        all[0] = "fault";
        all[1] = "--server";
        all[2] = server.url().toString();
        System.arraycopy(args, 0, all, 3, args.length);
        return Main.run(all);
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    private int listPods() throws Exception {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(server.url() + "/api/v1/namespaces/default/pods"))
                                .build(),
                        HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }

    @Test
    void failThenStatusThenClear() throws Exception {
        assertThat(fault(
                        "fail",
                        "--code",
                        "503",
                        "--count",
                        "2",
                        "--resource",
                        "pods",
                        "--verb",
                        "list",
                        "--retry-after",
                        "1"))
                .as(err())
                .isZero();
        assertThat(out()).contains("\"fault\" : \"fail\"").contains("\"code\" : 503");
        assertThat(listPods()).isEqualTo(503);

        assertThat(fault("status")).isZero();
        assertThat(out()).contains("\"seed\" : 3").contains("\"remainingCount\" : 1");

        assertThat(fault("clear")).isZero();
        assertThat(out()).contains("\"cleared\" : 1");
        assertThat(listPods()).isEqualTo(200);
    }

    @Test
    void everySubcommandStartsItsFault() {
        assertThat(fault("latency", "--millis", "0", "--jitter-millis", "1", "--resource", "pods"))
                .as(err())
                .isZero();
        assertThat(fault("partition", "--seconds", "600", "--user-agent", "nobody-here"))
                .as(err())
                .isZero();
        assertThat(fault("stall", "--seconds", "600", "--resource", "configmaps"))
                .as(err())
                .isZero();
        assertThat(fault("status")).isZero();
        assertThat(out())
                .contains("\"fault\" : \"latency\"")
                .contains("\"fault\" : \"partition\"")
                .contains("\"userAgent\" : \"nobody-here\"")
                .contains("\"fault\" : \"stall\"");
        assertThat(server.faults().active()).hasSize(3);
        assertThat(fault("close-watches", "--resource", "pods")).isZero();
        assertThat(out()).contains("\"closed\" : 0");
        assertThat(fault("compact")).isZero();
        assertThat(out()).contains("\"compactedRevision\"");
        assertThat(fault("clear")).isZero();
        assertThat(server.faults().active()).isEmpty();
    }

    @Test
    void theServerComesFromTheKubeconfigWhenNotGiven() {
        Path kubeconfig = server.writeKubeconfig(dir.resolve("kubeconfig"));
        out.reset();
        assertThat(Main.run("fault", "--kubeconfig", kubeconfig.toString(), "fail", "--code", "429"))
                .as(err())
                .isZero();
        assertThat(server.faults().active()).hasSize(1);
    }

    @Test
    void aBadValueIsReportedWithTheServersMessage() {
        assertThat(fault("fail", "--code", "404")).isEqualTo(1);
        assertThat(err())
                .startsWith("kubeloop: the server answered 400: code must be 429, 500 or 503, was 404")
                .doesNotContain("\tat ");
        assertThat(fault("fail", "--verb", "frob")).isEqualTo(1);
        assertThat(err()).contains("verb must be one of get, list");
        assertThat(server.faults().active()).isEmpty();
    }

    @Test
    void aServerWithoutFaultInjectionSaysHowToEnableIt() {
        try (EmbeddedApiServer plain = EmbeddedApiServer.builder().start()) {
            err.reset();
            assertThat(Main.run("fault", "--server", plain.url().toString(), "status"))
                    .isEqualTo(1);
            assertThat(err())
                    .contains("fault injection is not enabled on " + plain.url())
                    .contains("kubeloop apiserver --faults");
        }
    }

    @Test
    void apiserverWithFaultsServesTheAdminPathWithTheGivenSeed() throws Exception {
        Path kubeconfig = dir.resolve("served/kubeconfig");
        RunningApiServer apiserver = RunningApiServer.start(
                java.time.Duration.ofSeconds(30),
                "--port",
                "0",
                "--faults",
                "--fault-seed",
                "9",
                "--kubeconfig-out",
                kubeconfig.toString());
        try {
            assertThat(apiserver.printed()).contains("/kubeloop/faults (seed 9)");
            out.reset();
            assertThat(Main.run("fault", "--kubeconfig", kubeconfig.toString(), "status"))
                    .as(err())
                    .isZero();
            assertThat(out()).contains("\"seed\" : 9").contains("\"faults\" : [ ]");
        } finally {
            apiserver.stop();
        }
        assertThat(apiserver.exit()).isZero();
    }

    @Test
    void anUnreachableServerIsReportedPlainly() throws Exception {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        err.reset();
        assertThat(Main.run("fault", "--server", "http://127.0.0.1:" + port, "status"))
                .isEqualTo(1);
        assertThat(err()).startsWith("kubeloop: cannot reach http://127.0.0.1:" + port);
    }
}
