package io.kubeloop.client.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.apiserver.fault.Failure;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.errors.ServiceUnavailableException;
import io.kubeloop.client.resource.ResourceClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The transport's rules over real HTTP: retries of reads only, Retry-After through the ticker, metrics. */
class HttpTransportIT {

    private EmbeddedApiServer server;
    private SimpleMeterRegistry registry;
    private FakeTicker ticker;
    private KubernetesClient client;
    private String host;

    @BeforeEach
    void start() {
        server = EmbeddedApiServer.builder().start();
        registry = new SimpleMeterRegistry();
        ticker = new FakeTicker(true);
        client = KubernetesClient.builder(ClientConfig.builder().server(server.url()).build())
                .meterRegistry(registry).ticker(ticker).build();
        host = server.url().getHost() + ":" + server.port();
    }

    @AfterEach
    void stop() {
        client.close();
        server.close();
    }

    private double requests(String method, String code) {
        var c = registry.find("rest.client.requests").tags("method", method, "code", code, "host", host).counter();
        return c == null ? 0 : c.count();
    }

    private static ConfigMap configMap(String name) {
        return new ConfigMapBuilder().withNewMetadata().withName(name).endMetadata().build();
    }

    @Test
    void aGetIsRetriedAfterRetryAfterThroughTheTicker() {
        ResourceClient<ConfigMap> cms = client.resources(ConfigMap.class);
        cms.create(configMap("r"));
        server.faults().fail(Failure.status(503).count(2).retryAfterSeconds(1).resource("configmaps").verb("get"));

        assertThat(cms.get("r")).isPresent();

        assertThat(ticker.sleeps).containsExactly(TimeUnit.SECONDS.toNanos(1), TimeUnit.SECONDS.toNanos(1));
        assertThat(requests("GET", "503")).isEqualTo(2);
        assertThat(requests("GET", "200")).isEqualTo(1);
        assertThat(registry.find("rest.client.request.retries").tags("code", "503", "verb", "GET").counter().count())
                .isEqualTo(2);
        assertThat(registry.find("rest.client.request.duration").tags("verb", "GET", "host", host).timer().count())
                .isEqualTo(3);
    }

    @Test
    void aPostIsNeverRetried() {
        ResourceClient<ConfigMap> cms = client.resources(ConfigMap.class);
        server.faults().fail(Failure.status(503).count(1).retryAfterSeconds(1).resource("configmaps").verb("create"));

        assertThatThrownBy(() -> cms.create(configMap("w"))).isInstanceOf(ServiceUnavailableException.class)
                .satisfies(e -> assertThat(((ServiceUnavailableException) e).retryAfterSeconds()).hasValue(1));

        assertThat(ticker.sleeps).isEmpty();
        assertThat(requests("POST", "503")).isEqualTo(1);
        assertThat(cms.get("w")).isEmpty(); // the fault answered instead of the server: nothing was created
    }

    @Test
    void everyRequestWaitsForTheRateLimiterAndIsCounted() {
        ResourceClient<ConfigMap> cms = client.resources(ConfigMap.class);
        cms.create(configMap("m"));
        cms.get("m");
        cms.list();
        var wait = registry.find("rest.client.rate.limiter.duration").tags("verb", "GET", "host", host).timer();
        assertThat(wait).isNotNull();
        assertThat(wait.count()).isEqualTo(2);
        assertThat(registry.find("rest.client.rate.limiter.duration").tags("verb", "POST").timer().count())
                .isEqualTo(1);
        assertThat(requests("POST", "201")).isEqualTo(1);
        assertThat(requests("GET", "200")).isEqualTo(2);
    }

    @Test
    void aRefusedConnectionIsRetriedForReadsAndThenReported() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        FakeTicker sleeps = new FakeTicker(true);
        try (HttpTransport t = HttpTransport.builder(ClientConfig.builder().server("http://127.0.0.1:" + closedPort)
                .build()).retryPolicy(RetryPolicy.builder().maxRetries(2).build()).ticker(sleeps)
                .connectTimeout(Duration.ofSeconds(2)).build()) {
            assertThatThrownBy(() -> t.send("GET", "/api/v1/pods", null, null, in -> in.readAllBytes()))
                    .isInstanceOf(UncheckedIOException.class)
                    .hasMessageStartingWith("GET /api/v1/pods: no answer from 127.0.0.1:" + closedPort);
            assertThat(sleeps.sleeps).hasSize(2);
            sleeps.sleeps.clear();
            assertThatThrownBy(() -> t.send("POST", "/api/v1/pods", "application/json",
                    "{}".getBytes(StandardCharsets.UTF_8), in -> in.readAllBytes()))
                    .isInstanceOf(UncheckedIOException.class);
            assertThat(sleeps.sleeps).isEmpty();
        }
    }

    @Test
    void theUserAgentIsKubeloopAndRequestPathsMustBeAbsolute() {
        try (HttpTransport t = HttpTransport.builder(ClientConfig.builder().server(server.url()).build()).build()) {
            assertThat(t.userAgent()).startsWith("kubeloop/");
            assertThatThrownBy(() -> t.send("GET", "api/v1", null, null, in -> null))
                    .isInstanceOf(IllegalArgumentException.class);
            String body = t.send("GET", "/api/v1/namespaces/default", null, null,
                    in -> new String(in.readAllBytes(), StandardCharsets.UTF_8));
            assertThat(body).contains("\"name\":\"default\"");
        }
    }
}
