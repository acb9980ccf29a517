package io.kubeloop.client.transport;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * {@link ClientMetrics#micrometer}. Micrometer's dotted names become client-go's under Prometheus' naming
 * convention: counter {@code rest.client.requests} is {@code rest_client_requests_total}, timer
 * {@code rest.client.request.duration} is the histogram {@code rest_client_request_duration_seconds}.
 *
 * <p>Meters are looked up once per label set and kept: a label set is a handful of methods, codes and hosts.
 */
final class MicrometerClientMetrics implements ClientMetrics {

    /** client-go's buckets for both duration histograms. */
    static final Duration[] BUCKETS = buckets(0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60);

    static final String ERROR_CODE = "<error>";

    private record CodeKey(String code, String method, String host) {}

    private record VerbKey(String verb, String host) {}

    private final MeterRegistry registry;
    private final ConcurrentHashMap<CodeKey, Counter> requests = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<CodeKey, Counter> retries = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<VerbKey, Timer> durations = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<VerbKey, Timer> rateLimiterWaits = new ConcurrentHashMap<>();

    MicrometerClientMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void recordRequest(String method, String host, int code, long durationNanos) {
        record(Integer.toString(code), method, host, durationNanos);
    }

    @Override
    public void recordFailedRequest(String method, String host, long durationNanos) {
        record(ERROR_CODE, method, host, durationNanos);
    }

    private void record(String code, String method, String host, long durationNanos) {
        requests.computeIfAbsent(
                        new CodeKey(code, label(method), label(host)), k -> Counter.builder("rest.client.requests")
                                .description("Number of HTTP requests, partitioned by status code, method, and host.")
                                .tags("code", k.code(), "method", k.method(), "host", k.host())
                                .register(registry))
                .increment();
        durations
                .computeIfAbsent(
                        new VerbKey(label(method), label(host)), k -> Timer.builder("rest.client.request.duration")
                                .description("Request latency in seconds. Broken down by verb, and host.")
                                .tags("verb", k.verb(), "host", k.host())
                                .serviceLevelObjectives(BUCKETS)
                                .register(registry))
                .record(Math.max(0, durationNanos), TimeUnit.NANOSECONDS);
    }

    @Override
    public void recordRateLimiterWait(String method, String host, long waitNanos) {
        rateLimiterWaits
                .computeIfAbsent(new VerbKey(label(method), label(host)), k -> Timer.builder(
                                "rest.client.rate.limiter.duration")
                        .description("Client side rate limiter latency in seconds. Broken down by verb, and host.")
                        .tags("verb", k.verb(), "host", k.host())
                        .serviceLevelObjectives(BUCKETS)
                        .register(registry))
                .record(Math.max(0, waitNanos), TimeUnit.NANOSECONDS);
    }

    @Override
    public void recordRetry(String method, String host, int code) {
        retries.computeIfAbsent(
                        new CodeKey(code <= 0 ? ERROR_CODE : Integer.toString(code), label(method), label(host)),
                        k -> Counter.builder("rest.client.request.retries")
                                .description("Number of request retries, partitioned by status code, verb, and host.")
                                .tags("code", k.code(), "verb", k.method(), "host", k.host())
                                .register(registry))
                .increment();
    }

    private static String label(String value) {
        return value == null ? "" : value;
    }

    private static Duration[] buckets(double... seconds) {
        Duration[] d = new Duration[seconds.length];
        for (int i = 0; i < seconds.length; i++) {
            d[i] = Duration.ofNanos(Math.round(seconds[i] * 1e9));
        }
        return d;
    }
}
