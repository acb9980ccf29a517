package io.kubeloop.client.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.apiserver.fault.Failure;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.errors.ServiceUnavailableException;
import io.kubeloop.client.resource.ResourceClient;
import io.kubeloop.clock.FakeClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The transport's rules over real HTTP: retries of reads only, Retry-After on the client's clock, metrics. */
class HttpTransportIT {

    private EmbeddedApiServer server;
    private SimpleMeterRegistry registry;
    private FakeClock clock;
    private KubernetesClient client;
    private String host;

    @BeforeEach
    void start() {
        server = EmbeddedApiServer.builder().start();
        registry = new SimpleMeterRegistry();
        clock = new FakeClock();
        client = KubernetesClient.builder(
                        ClientConfig.builder().server(server.url()).build())
                .meterRegistry(registry)
                .clock(clock)
                .build();
        host = server.url().getHost() + ":" + server.port();
    }

    @AfterEach
    void stop() {
        client.close();
        server.close();
    }

    private double requests(String method, String code) {
        var c = registry.find("rest.client.requests")
                .tags("method", method, "code", code, "host", host)
                .counter();
        return c == null ? 0 : c.count();
    }

    private static ConfigMap configMap(String name) {
        return new ConfigMapBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .build();
    }

    private static <T> CompletableFuture<T> onAThread(Supplier<T> call) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread.ofVirtual().name("test-call").start(() -> {
            try {
                result.complete(call.get());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    @Test
    void aGetIsRetriedAfterRetryAfterOnTheClientsClock() throws Exception {
        ResourceClient<ConfigMap> cms = client.resources(ConfigMap.class);
        cms.create(configMap("r"));
        server.faults()
                .fail(Failure.status(503)
                        .count(2)
                        .retryAfterSeconds(1)
                        .resource("configmaps")
                        .verb("get"));

        var get = onAThread(() -> cms.get("r"));
        for (int answered = 1; answered <= 2; answered++) {
            int expected = answered;
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> clock.hasWaiters() && requests("GET", "503") == expected);
            clock.step(Duration.ofMillis(999));
            assertThat(get).as("Retry-After: 1 is not over").isNotDone();
            assertThat(requests("GET", "503")).isEqualTo(expected);
            clock.step(Duration.ofMillis(1));
        }
        assertThat(get.get(10, TimeUnit.SECONDS)).isPresent();

        assertThat(requests("GET", "503")).isEqualTo(2);
        assertThat(requests("GET", "200")).isEqualTo(1);
        assertThat(registry.find("rest.client.request.retries")
                        .tags("code", "503", "verb", "GET")
                        .counter()
                        .count())
                .isEqualTo(2);
        assertThat(registry.find("rest.client.request.duration")
                        .tags("verb", "GET", "host", host)
                        .timer()
                        .count())
                .isEqualTo(3);
    }

    @Test
    void aPostIsNeverRetried() {
        ResourceClient<ConfigMap> cms = client.resources(ConfigMap.class);
        server.faults()
                .fail(Failure.status(503)
                        .count(1)
                        .retryAfterSeconds(1)
                        .resource("configmaps")
                        .verb("create"));

        assertThatThrownBy(() -> cms.create(configMap("w")))
                .isInstanceOf(ServiceUnavailableException.class)
                .satisfies(e -> assertThat(((ServiceUnavailableException) e).retryAfterSeconds())
                        .hasValue(1));

        assertThat(clock.hasWaiters()).isFalse();
        assertThat(requests("POST", "503")).isEqualTo(1);
        assertThat(cms.get("w")).isEmpty(); // the fault answered instead of the server: nothing was created
    }

    @Test
    void everyRequestWaitsForTheRateLimiterAndIsCounted() {
        ResourceClient<ConfigMap> cms = client.resources(ConfigMap.class);
        cms.create(configMap("m"));
        cms.get("m");
        cms.list();
        var wait = registry.find("rest.client.rate.limiter.duration")
                .tags("verb", "GET", "host", host)
                .timer();
        assertThat(wait).isNotNull();
        assertThat(wait.count()).isEqualTo(2);
        assertThat(registry.find("rest.client.rate.limiter.duration")
                        .tags("verb", "POST")
                        .timer()
                        .count())
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
        FakeClock refusals = new FakeClock();
        SimpleMeterRegistry counted = new SimpleMeterRegistry();
        try (HttpTransport t = HttpTransport.builder(ClientConfig.builder()
                        .server("http://127.0.0.1:" + closedPort)
                        .build())
                .retryPolicy(RetryPolicy.builder().maxRetries(2).build())
                .clock(refusals)
                .metrics(ClientMetrics.micrometer(counted))
                .connectTimeout(Duration.ofSeconds(2))
                .build()) {
            var get = onAThread(() -> t.send("GET", "/api/v1/pods", null, null, in -> in.readAllBytes()));
            for (int retry = 1; retry <= 2; retry++) {
                // A retry is counted before its wait begins and after the previous wait ended: the waiter is its.
                double expected = retry;
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> refusals.hasWaiters()
                                && counted.find("rest.client.request.retries").counter() != null
                                && counted.find("rest.client.request.retries")
                                                .counter()
                                                .count()
                                        == expected);
                refusals.step(RetryPolicy.DEFAULT_DELAY);
            }
            assertThat(get)
                    .failsWithin(Duration.ofSeconds(10))
                    .withThrowableOfType(Exception.class)
                    .havingCause()
                    .isInstanceOf(UncheckedIOException.class)
                    .withMessageStartingWith("GET /api/v1/pods: no answer from 127.0.0.1:" + closedPort);
            assertThatThrownBy(() -> t.send(
                            "POST",
                            "/api/v1/pods",
                            "application/json",
                            "{}".getBytes(StandardCharsets.UTF_8),
                            in -> in.readAllBytes()))
                    .isInstanceOf(UncheckedIOException.class);
            assertThat(refusals.hasWaiters())
                    .as("a write is never retried, so never waits")
                    .isFalse();
        }
    }

    @Test
    void theUserAgentIsKubeloopAndRequestPathsMustBeAbsolute() {
        try (HttpTransport t = HttpTransport.builder(
                        ClientConfig.builder().server(server.url()).build())
                .build()) {
            assertThat(t.userAgent()).startsWith("kubeloop/");
            assertThatThrownBy(() -> t.send("GET", "api/v1", null, null, in -> null))
                    .isInstanceOf(IllegalArgumentException.class);
            String body = t.send(
                    "GET",
                    "/api/v1/namespaces/default",
                    null,
                    null,
                    in -> new String(in.readAllBytes(), StandardCharsets.UTF_8));
            assertThat(body).contains("\"name\":\"default\"");
        }
    }
}
