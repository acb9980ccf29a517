package io.kubeloop.client.transport;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.Objects;

/**
 * client-go's REST client metrics, recorded by the transport. With a Micrometer {@link MeterRegistry} the
 * Prometheus names and labels are exactly client-go's (component-base {@code restclient} metrics):
 *
 * <table>
 *   <caption>Metrics</caption>
 *   <tr><th>metric</th><th>type</th><th>labels</th></tr>
 *   <tr><td>{@code rest_client_requests_total}</td><td>counter</td><td>{@code code}, {@code method}, {@code host}</td></tr>
 *   <tr><td>{@code rest_client_request_duration_seconds}</td><td>histogram</td><td>{@code verb}, {@code host}</td></tr>
 *   <tr><td>{@code rest_client_rate_limiter_duration_seconds}</td><td>histogram</td><td>{@code verb}, {@code host}</td></tr>
 *   <tr><td>{@code rest_client_request_retries_total}</td><td>counter</td><td>{@code code}, {@code verb}, {@code host}</td></tr>
 * </table>
 *
 * <p>{@code method} and {@code verb} are the HTTP method ({@code GET}, {@code POST}, ...), as client-go records
 * them; {@code host} is the server's {@code host:port}; {@code code} is the HTTP status code, or {@code <error>}
 * when no answer came. The histograms have client-go's buckets: 5 ms, 25 ms, 100 ms, 250 ms, 500 ms, 1, 2, 4, 8,
 * 15, 30 and 60 s.
 *
 * <p>{@link #noop()} records nothing and costs a virtual call: the default when the client has no registry.
 */
public sealed interface ClientMetrics permits NoopClientMetrics, MicrometerClientMetrics {

    /** Records nothing. */
    static ClientMetrics noop() {
        return NoopClientMetrics.INSTANCE;
    }

    /** Records into {@code registry}; meters are registered on first use of each label set. */
    static ClientMetrics micrometer(MeterRegistry registry) {
        return new MicrometerClientMetrics(Objects.requireNonNull(registry, "registry"));
    }

    /**
     * One request answered with HTTP {@code code}: {@code rest_client_requests_total} and
     * {@code rest_client_request_duration_seconds}. For a watch, the duration is until the answer's headers.
     */
    void recordRequest(String method, String host, int code, long durationNanos);

    /** One request that got no answer (refused, reset, timed out): code {@code <error>}. */
    void recordFailedRequest(String method, String host, long durationNanos);

    /** How long a request waited for the client-side rate limiter: {@code rest_client_rate_limiter_duration_seconds}. */
    void recordRateLimiterWait(String method, String host, long waitNanos);

    /**
     * One retry of a request whose attempt got {@code code} (0 for no answer: {@code <error>}):
     * {@code rest_client_request_retries_total}.
     */
    void recordRetry(String method, String host, int code);
}
