package io.kubeloop.client.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ClientMetricsTest {

    private static final long MS = 1_000_000L;

    @Test
    void requestsAreCountedByCodeMethodAndHostAndTimedByVerbAndHost() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        ClientMetrics metrics = ClientMetrics.micrometer(registry);

        metrics.recordRequest("GET", "127.0.0.1:6443", 200, 3 * MS);
        metrics.recordRequest("GET", "127.0.0.1:6443", 200, 70 * MS);
        metrics.recordRequest("GET", "127.0.0.1:6443", 404, 1 * MS);
        metrics.recordRequest("POST", "127.0.0.1:6443", 201, 2000 * MS);
        metrics.recordFailedRequest("GET", "127.0.0.1:6443", 5 * MS);

        assertThat(count(registry, "200", "GET")).isEqualTo(2);
        assertThat(count(registry, "404", "GET")).isEqualTo(1);
        assertThat(count(registry, "201", "POST")).isEqualTo(1);
        assertThat(count(registry, "<error>", "GET")).isEqualTo(1);

        Timer get = registry.get("rest.client.request.duration")
                .tag("verb", "GET")
                .tag("host", "127.0.0.1:6443")
                .timer();
        assertThat(get.count()).isEqualTo(4);
        CountAtBucket[] buckets = get.takeSnapshot().histogramCounts();
        assertThat(Arrays.stream(buckets)
                        .mapToDouble(b -> b.bucket(java.util.concurrent.TimeUnit.SECONDS))
                        .toArray())
                .containsExactly(0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60);
        assertThat(buckets[0].count()).isEqualTo(3); // 3 ms, 1 ms, 5 ms ≤ 5 ms
        assertThat(buckets[2].count()).isEqualTo(4); // and 70 ms ≤ 100 ms
    }

    @Test
    void rateLimiterWaitsAndRetriesAreRecorded() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        ClientMetrics metrics = ClientMetrics.micrometer(registry);

        metrics.recordRateLimiterWait("GET", "h:1", 0);
        metrics.recordRateLimiterWait("GET", "h:1", 20 * MS);
        metrics.recordRetry("GET", "h:1", 429);
        metrics.recordRetry("GET", "h:1", 0);

        Timer waits = registry.get("rest.client.rate.limiter.duration")
                .tag("verb", "GET")
                .tag("host", "h:1")
                .timer();
        assertThat(waits.count()).isEqualTo(2);
        assertThat(waits.max(java.util.concurrent.TimeUnit.MILLISECONDS)).isEqualTo(20);
        assertThat(registry.get("rest.client.request.retries")
                        .tag("code", "429")
                        .tag("verb", "GET")
                        .counter()
                        .count())
                .isEqualTo(1);
        assertThat(registry.get("rest.client.request.retries")
                        .tag("code", "<error>")
                        .counter()
                        .count())
                .isEqualTo(1);
    }

    @Test
    void thePrometheusScrapeHasClientGoNamesLabelsAndBuckets() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        ClientMetrics metrics = ClientMetrics.micrometer(registry);
        metrics.recordRequest("GET", "127.0.0.1:6443", 200, 30 * MS);
        metrics.recordRateLimiterWait("PUT", "127.0.0.1:6443", 0);
        metrics.recordRetry("GET", "127.0.0.1:6443", 503);

        String scrape = registry.scrape();
        assertThat(scrape)
                .contains("rest_client_requests_total{code=\"200\",host=\"127.0.0.1:6443\",method=\"GET\"} 1")
                .contains(
                        "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"GET\",le=\"0.025\"} 0")
                .contains(
                        "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"GET\",le=\"0.1\"} 1")
                .contains(
                        "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"GET\",le=\"60.0\"} 1")
                .contains("rest_client_rate_limiter_duration_seconds_count{host=\"127.0.0.1:6443\",verb=\"PUT\"} 1")
                .contains("rest_client_request_retries_total{code=\"503\",host=\"127.0.0.1:6443\",verb=\"GET\"} 1");
    }

    @Test
    void noopRecordsNothingAndNullLabelsAreEmpty() {
        ClientMetrics noop = ClientMetrics.noop();
        noop.recordRequest("GET", "h", 200, 1);
        noop.recordFailedRequest("GET", "h", 1);
        noop.recordRateLimiterWait("GET", "h", 1);
        noop.recordRetry("GET", "h", 1);
        assertThat(noop).isSameAs(ClientMetrics.noop());

        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        ClientMetrics.micrometer(registry).recordRequest(null, null, 500, -5);
        assertThat(registry.get("rest.client.requests")
                        .tag("method", "")
                        .tag("host", "")
                        .counter()
                        .count())
                .isEqualTo(1);
    }

    private static double count(SimpleMeterRegistry registry, String code, String method) {
        Counter c = registry.get("rest.client.requests")
                .tag("code", code)
                .tag("method", method)
                .tag("host", "127.0.0.1:6443")
                .counter();
        return c.count();
    }
}
