package io.kubeloop.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.transport.HttpTransport;
import io.kubeloop.testsupport.GitHead;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The client's User-Agent names kubeloop's version, the platform and the commit it was built from, in
 * client-go's form, and that is what the API server receives: a partition scoped to exactly that User-Agent holds
 * the client's request on the embedded API server, one scoped to another commit does not.
 */
class UserAgentIT {

    private EmbeddedApiServer server;
    private HttpTransport transport;
    private final ExecutorService async = Executors.newVirtualThreadPerTaskExecutor();

    @BeforeEach
    void start() {
        server = EmbeddedApiServer.builder().start();
        transport = HttpTransport.builder(
                        ClientConfig.builder().server(server.url().toString()).build())
                .build();
    }

    @AfterEach
    void stop() {
        async.shutdownNow();
        transport.close();
        server.close();
    }

    @Test
    void theUserAgentNamesTheVersionThePlatformAndTheCommitKubeloopWasBuiltFrom() throws Exception {
        String head = GitHead.of(Path.of("").toAbsolutePath().getParent());
        String commit = head == null ? "unknown" : head.substring(0, 7);
        assertThat(transport.userAgent())
                .matches("kubeloop/" + BuildInfo.version().replace(".", "\\.") + " \\([a-z0-9]+/[a-z0-9]+\\) kubeloop/"
                        + commit)
                .doesNotContain("${");
        assertThat(BuildInfo.version()).isNotEqualTo("unknown");
        assertThat(BuildInfo.commit()).isEqualTo(head == null ? "unknown" : head);
        if (System.getProperty("os.name").equals("Linux")
                && System.getProperty("os.arch").equals("amd64")) {
            assertThat(transport.userAgent()).contains(" (linux/amd64) ");
        }
    }

    @Test
    void theApiServerReceivesTheWholeUserAgentCommitIncluded() throws Exception {
        String agent = transport.userAgent();
        String otherCommit = agent.substring(0, agent.lastIndexOf('/') + 1) + "0000000";

        // Scoped to another commit: the request goes through.
        server.faults().partition(Duration.ofMinutes(10), otherCommit);
        assertThat(getDefaultNamespace()).contains("\"name\":\"default\"");
        assertThat(heldByPartition()).isZero();

        // Scoped to the User-Agent the client sends, commit and all: the server holds the request ...
        server.faults().partition(Duration.ofMinutes(10), agent);
        CompletableFuture<String> held = CompletableFuture.supplyAsync(this::getDefaultNamespace, async);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> heldByPartition() == 1);
        assertThat(held).isNotDone();
        // ... until the partition ends.
        server.faults().clear();
        assertThat(held.get(30, TimeUnit.SECONDS)).contains("\"name\":\"default\"");
    }

    @Test
    void aUserAgentOfTheCallersOwnReplacesKubeloopsAndIsWhatAPartitionMatches() throws Exception {
        try (HttpTransport elector = HttpTransport.builder(
                        ClientConfig.builder().server(server.url().toString()).build())
                .userAgent("leader-elector-a/1.0")
                .build()) {
            assertThat(elector.userAgent()).isEqualTo("leader-elector-a/1.0");
            server.faults().partition(Duration.ofMinutes(10), "leader-elector-a");
            // kubeloop's own User-Agent is not held ...
            assertThat(getDefaultNamespace()).contains("\"name\":\"default\"");
            // ... the caller's own is.
            CompletableFuture<String> held = CompletableFuture.supplyAsync(
                    () -> elector.send(
                            "GET",
                            "/api/v1/namespaces/default",
                            null,
                            null,
                            in -> new String(in.readAllBytes(), StandardCharsets.UTF_8)),
                    async);
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> heldByPartition() == 1);
            assertThat(held).isNotDone();
            server.faults().clear();
            assertThat(held.get(30, TimeUnit.SECONDS)).contains("\"name\":\"default\"");
        }
    }

    @Test
    void aBlankOrMultiLineUserAgentIsRefusedByName() {
        ClientConfig config =
                ClientConfig.builder().server(server.url().toString()).build();
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> HttpTransport.builder(config).userAgent(" "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("userAgent");
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> HttpTransport.builder(config).userAgent("a\r\nX-Evil: 1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("userAgent must be non-blank printable text, was \"a??X-Evil: 1\"");
    }

    private String getDefaultNamespace() {
        return transport.send(
                "GET",
                "/api/v1/namespaces/default",
                null,
                null,
                in -> new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }

    /** Requests a partition held so far, from the server's /metrics (read with another User-Agent). */
    private int heldByPartition() throws Exception {
        String metrics = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(server.url() + "/metrics"))
                                .header("User-Agent", "metrics-reader")
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        return metrics.lines()
                .filter(l -> l.startsWith("kubeloop_apiserver_fault_affected_requests_total{fault=\"partition\""))
                .mapToInt(l -> (int) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .sum();
    }
}
