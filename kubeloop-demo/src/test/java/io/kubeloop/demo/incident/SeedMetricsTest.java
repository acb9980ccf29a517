package io.kubeloop.demo.incident;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.controller.Manager;
import io.kubeloop.controller.Result;
import io.kubeloop.demo.internal.incident.SeedMetrics;
import io.kubeloop.testkit.KubeloopTest;
import io.kubeloop.testkit.TestNamespace;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The seed's metrics of a real manager on the embedded API server, named as its {@code /metrics} serves them. */
@KubeloopTest(shared = true)
class SeedMetricsTest {

    @Test
    void snapshotHasTheSeedsSeriesExactlyAsMetricsServesThem(KubernetesClient client, @TestNamespace String ns)
            throws Exception {
        AtomicBoolean failedOnce = new AtomicBoolean();
        try (Manager manager = Manager.builder(client)
                .namespace(ns)
                .bindAddress(InetAddress.getLoopbackAddress())
                .metricsPort(0)
                .gracefulShutdownTimeout(Duration.ZERO)
                .build()) {
            manager.newControllerFor(ConfigMap.class).named("pod-guardian").complete(request -> {
                if (request.name().equals("boom") && failedOnce.compareAndSet(false, true)) {
                    throw new IllegalStateException("the first reconcile of boom fails");
                }
                return Result.done();
            });
            manager.start();
            client.resources(ConfigMap.class)
                    .inNamespace(ns)
                    .create(new ConfigMapBuilder()
                            .withNewMetadata()
                            .withName("boom")
                            .endMetadata()
                            .build());
            String errors = "controller_runtime_reconcile_errors_total{controller=\"pod-guardian\"}";
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> SeedMetrics.snapshot(manager.meterRegistry()).getOrDefault(errors, 0.0) == 1.0
                            && SeedMetrics.snapshot(manager.meterRegistry())
                                            .getOrDefault(
                                                    "controller_runtime_reconcile_total{controller=\"pod-guardian\","
                                                            + "result=\"success\"}",
                                                    0.0)
                                    >= 1.0);

            Map<String, Double> snapshot = SeedMetrics.snapshot(manager.meterRegistry());
            assertThat(snapshot)
                    .containsEntry("workqueue_depth{name=\"pod-guardian\",priority=\"0\"}", 0.0)
                    .containsEntry(errors, 1.0)
                    .containsKey("reconcile_duration_seconds_count{controller=\"pod-guardian\"}")
                    .containsKey("reconcile_duration_seconds_sum{controller=\"pod-guardian\"}")
                    .containsKey("workqueue_retries_total{name=\"pod-guardian\"}");
            assertThat(snapshot.get("reconcile_duration_seconds_count{controller=\"pod-guardian\"}"))
                    .isGreaterThanOrEqualTo(2.0);
            assertThat(snapshot.get("workqueue_retries_total{name=\"pod-guardian\"}"))
                    .isGreaterThanOrEqualTo(1.0);
            assertThat(snapshot.keySet())
                    .anyMatch(k -> k.startsWith("cache_resync_count{"))
                    .anyMatch(k -> k.startsWith("reflector_lists_total{"))
                    .anyMatch(k -> k.startsWith("reflector_watch_events_total{"))
                    .noneMatch(k -> k.contains("_bucket"))
                    .allMatch(k -> SeedMetrics.rank(SeedMetrics.family(k)) >= 0);
            assertThat(snapshot.keySet().stream().map(SeedMetrics::family).toList())
                    .as("in the report's order")
                    .isSortedAccordingTo(java.util.Comparator.comparingInt(SeedMetrics::rank));

            // every series, name and labels, is a series of the manager's /metrics
            String metrics = get("http://127.0.0.1:" + manager.metricsPort() + "/metrics");
            for (String series : snapshot.keySet()) {
                assertThat(metrics).as(series).containsPattern("(?m)^" + java.util.regex.Pattern.quote(series) + " ");
            }

            // the counters, by Micrometer name
            assertThat(SeedMetrics.sum(
                            manager.meterRegistry(),
                            "controller.runtime.reconcile.errors",
                            "controller",
                            "pod-guardian"))
                    .isEqualTo(1.0);
            assertThat(SeedMetrics.sum(manager.meterRegistry(), "workqueue.retries", "name", "pod-guardian"))
                    .isGreaterThanOrEqualTo(1.0);
            assertThat(SeedMetrics.sum(manager.meterRegistry(), "workqueue.retries", "name", "no-such-controller"))
                    .isZero();
        }
    }

    @Test
    void sumAddsEveryMeterWithTheTag() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Counter.builder("controller.runtime.reconcile")
                .tag("controller", "pod-guardian")
                .tag("result", "success")
                .register(registry)
                .increment(3);
        Counter.builder("controller.runtime.reconcile")
                .tag("controller", "pod-guardian")
                .tag("result", "error")
                .register(registry)
                .increment(2);
        Counter.builder("controller.runtime.reconcile")
                .tag("controller", "replica-audit")
                .tag("result", "error")
                .register(registry)
                .increment(7);
        assertThat(SeedMetrics.sum(registry, "controller.runtime.reconcile", "controller", "pod-guardian"))
                .isEqualTo(5.0);
        assertThat(SeedMetrics.sum(registry, "absent", "controller", "pod-guardian"))
                .isZero();
    }

    @Test
    void snapshotNeedsAPrometheusRegistry() {
        assertThatThrownBy(() -> SeedMetrics.snapshot(new SimpleMeterRegistry()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Prometheus")
                .hasMessageContaining("SimpleMeterRegistry");
    }

    @Test
    void labelsAreReadBackWithTheirEscapes() {
        assertThat(SeedMetrics.labels("api_request_failures{name=\"a\\\"b}\",verb=\"watch\"}"))
                .containsExactly(Map.entry("name", "a\"b}"), Map.entry("verb", "watch"));
        assertThat(SeedMetrics.labels("reflector_lists_total")).isEmpty();
        assertThat(SeedMetrics.family("reflector_lists_total{name=\"x\"}")).isEqualTo("reflector_lists_total");
    }

    private static String get(String url) throws IOException, InterruptedException {
        try (HttpClient http = HttpClient.newHttpClient()) {
            HttpResponse<String> response =
                    http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(200);
            return response.body();
        }
    }
}
