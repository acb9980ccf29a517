package io.kubeloop.client.transport;

import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.errors.KubernetesApiException;
import io.kubeloop.client.internal.BuildInfo;
import io.kubeloop.client.internal.JacksonVersionCheck;
import io.kubeloop.clock.Clock;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Objects;

/**
 * The client's one HTTP connection pool to one API server, and the rules every request follows:
 *
 * <ol>
 *   <li>take a token from the client-side {@link RateLimiter} (the wait is recorded as
 *       {@code rest_client_rate_limiter_duration_seconds});</li>
 *   <li>send with {@code User-Agent: kubeloop/<version> (<os>/<arch>) kubeloop/<commit>}, {@code Accept: application/json} and the
 *       {@code Authorization} header the configuration's credentials give for this request;</li>
 *   <li>record {@code rest_client_requests_total} and {@code rest_client_request_duration_seconds} (until the
 *       answer's headers);</li>
 *   <li>on a 401 to a request that carried credentials, invalidate them (a token file is re-read, an exec plugin rerun) and send the same
 *       request once more — a 401 means the server did nothing, so this holds for writes too;</li>
 *   <li>ask the {@link RetryPolicy} about a failed attempt (reads only by default: 429, 503, refused or reset
 *       connections) and wait its delay on the transport's {@link Clock};</li>
 *   <li>turn every other non-2xx answer into a {@link KubernetesApiException}.</li>
 * </ol>
 *
 * <p>Every wait and duration goes through the transport's {@link Clock} ({@link Builder#clock}): the rate
 * limiter's waits (unless a whole {@link RateLimiter} was given, which keeps its own clock), the retry delays and
 * the request durations of the metrics. The HTTP client's own connect and request timeouts are the exception:
 * they are enforced inside {@code java.net.http}, in real time, where no clock can reach.
 *
 * <p>HTTP/2 is asked for over TLS (negotiated by ALPN; a server that offers only HTTP/1.1, such as the JDK's
 * {@code HttpsServer}, gets HTTP/1.1); plain {@code http://} always uses HTTP/1.1, never an {@code h2c} upgrade.
 * The request timeout bounds the wait for the answer's headers, not the reading of its body.
 *
 * <p>Nothing here logs or keeps a header: the {@code Authorization} value lives only in the request being sent.
 * A request that gets no answer throws {@link UncheckedIOException} naming the method and path; an
 * interrupt throws it with an {@link InterruptedIOException} cause and the thread's interrupt status set.
 * Thread-safe; one per client.
 */
public final class HttpTransport implements AutoCloseable {

    /** How long to wait for a TCP (and TLS) connection: 10 s. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** How long to wait for an answer's headers: 60 s (a list of 10k objects on a slow server still fits). */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(60);

    /** The largest error body read to build an exception; the rest is dropped with the connection. */
    private static final int MAX_ERROR_BODY = 4 << 20;

    /** Reads a 2xx answer's body; the stream is closed by the transport afterwards. */
    @FunctionalInterface
    public interface BodyReader<T> {
        T read(InputStream body) throws IOException;
    }

    private final ClientConfig config;
    private final HttpClient http;
    private final String host;
    private final Duration requestTimeout;
    private final RateLimiter rateLimiter;
    private final RetryPolicy retryPolicy;
    private final ClientMetrics metrics;
    private final Clock clock;
    private final String userAgent;

    private HttpTransport(Builder b) {
        JacksonVersionCheck.verify(); // requests and error bodies go through Jackson: fail here, clearly
        this.config = b.config;
        boolean tls = "https".equalsIgnoreCase(config.server().getScheme());
        this.http = config.httpClientBuilder()
                .connectTimeout(b.connectTimeout)
                .version(tls ? HttpClient.Version.HTTP_2 : HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
        URI server = config.server();
        int port = server.getPort() != -1 ? server.getPort() : tls ? 443 : 80;
        this.host = server.getHost() + ":" + port;
        this.requestTimeout = b.requestTimeout;
        this.rateLimiter = b.rateLimiter != null ? b.rateLimiter : RateLimiter.tokenBucket(b.qps, b.burst, b.clock);
        this.retryPolicy = b.retryPolicy;
        this.metrics = b.metrics;
        this.clock = b.clock;
        this.userAgent = b.userAgent != null ? b.userAgent : BuildInfo.userAgent();
    }

    public static Builder builder(ClientConfig config) {
        return new Builder(config);
    }

    /** The configuration this transport connects with. */
    public ClientConfig config() {
        return config;
    }

    /** The clock of this transport's waits and durations, and of the watches opened through it. */
    public Clock clock() {
        return clock;
    }

    /**
     * The User-Agent of every request: the one given to {@link Builder#userAgent}, else client-go's form, naming the
     * version and the commit kubeloop was built from: {@code kubeloop/0.1.0 (linux/amd64) kubeloop/1be69f6}
     * ({@code kubeloop/unknown} when built outside git).
     */
    public String userAgent() {
        return userAgent;
    }

    /**
     * Sends one request and reads its 2xx answer with {@code reader}.
     *
     * @param method an HTTP method
     * @param pathAndQuery the path below the server URL, with its encoded query ({@code /api/v1/pods?limit=5})
     * @param contentType the body's type, or null without a body
     * @param body the request body, or null
     * @throws KubernetesApiException for any non-2xx answer (after the 401 and retry rules)
     * @throws UncheckedIOException when no answer came, or the body could not be read
     */
    public <T> T send(String method, String pathAndQuery, String contentType, byte[] body, BodyReader<T> reader) {
        Objects.requireNonNull(reader, "reader");
        try (InputStream in = exchange(method, pathAndQuery, contentType, body)) {
            return reader.read(in);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    method + " " + pathAndQuery + ": reading the answer failed: " + e.getMessage(), e);
        }
    }

    /**
     * Opens a long-running GET (a watch) and returns its 2xx body, unread, for the caller to read and close.
     * The setup follows every rule of {@link #send}: rate limiter, metrics (the duration is the wait for the
     * headers), the 401 rule, retries of 429/503 with Retry-After and of refused connections, typed exceptions.
     * The request timeout bounds only the wait for the headers; nothing bounds the reading of the body, so the
     * caller needs a rule of its own for a body that goes silent (the watch layer's idle rule). Closing the
     * returned stream before its end drops the connection (HTTP/1.1) or resets the stream (HTTP/2).
     *
     * @param pathAndQuery the path below the server URL, with its encoded query ({@code /api/v1/pods?watch=true})
     * @throws KubernetesApiException for any non-2xx answer (after the 401 and retry rules)
     * @throws UncheckedIOException when no answer came
     */
    public InputStream openStream(String pathAndQuery) {
        return exchange("GET", pathAndQuery, null, null);
    }

    /** One request through every rule; the 2xx body, which the caller closes. */
    private InputStream exchange(String method, String pathAndQuery, String contentType, byte[] body) {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(pathAndQuery, "pathAndQuery");
        URI uri = resolve(pathAndQuery);
        boolean reauthenticated = false;
        for (int attempt = 1; ; attempt++) {
            try {
                metrics.recordRateLimiterWait(
                        method, host, rateLimiter.acquire().toNanos());
            } catch (InterruptedException e) {
                throw interrupted(method, pathAndQuery, e);
            }
            HttpRequest request = request(method, uri, contentType, body);
            long start = clock.nanoTime();
            HttpResponse<InputStream> response;
            try {
                response = http.send(request, ReadAheadBody.HANDLER);
            } catch (InterruptedException e) {
                throw interrupted(method, pathAndQuery, e);
            } catch (IOException e) {
                metrics.recordFailedRequest(method, host, clock.nanoTime() - start);
                if (retryPolicy.onError(method, attempt, e) instanceof RetryDecision.Retry retry) {
                    metrics.recordRetry(method, host, 0);
                    sleep(retry.delay(), method, pathAndQuery);
                    continue;
                }
                throw new UncheckedIOException(
                        method + " " + pathAndQuery + ": no answer from " + host + ": "
                                + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()),
                        e);
            }
            int code = response.statusCode();
            metrics.recordRequest(method, host, code, clock.nanoTime() - start);
            if (code / 100 == 2) {
                return response.body();
            }
            byte[] errorBody = readBounded(response.body());
            if (code == 401
                    && !reauthenticated
                    && request.headers().firstValue("Authorization").isPresent()) {
                // The token may have rotated (file, exec plugin): read it again and try once more. Without
                // credentials there is nothing to refresh.
                reauthenticated = true;
                config.credentials().invalidate();
                attempt--;
                continue;
            }
            if (retryPolicy.onResponse(method, attempt, code, response.headers().map())
                    instanceof RetryDecision.Retry retry) {
                metrics.recordRetry(method, host, code);
                sleep(retry.delay(), method, pathAndQuery);
                continue;
            }
            throw KubernetesApiException.fromResponse(code, response.headers().map(), errorBody, method, pathAndQuery);
        }
    }

    private URI resolve(String pathAndQuery) {
        if (!pathAndQuery.startsWith("/")) {
            throw new IllegalArgumentException("a request path starts with '/': " + pathAndQuery);
        }
        String base = config.server().toString();
        if (base.endsWith("/")) {
            base = base.substring(0, base.length() - 1);
        }
        return URI.create(base + pathAndQuery);
    }

    private HttpRequest request(String method, URI uri, String contentType, byte[] body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri)
                .timeout(requestTimeout)
                .header("User-Agent", userAgent)
                .header("Accept", "application/json")
                .method(
                        method,
                        body == null
                                ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofByteArray(body));
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        config.credentials().authorization().ifPresent(value -> b.header("Authorization", value));
        return b.build();
    }

    private void sleep(Duration delay, String method, String path) {
        try {
            clock.sleep(delay);
        } catch (InterruptedException e) {
            throw interrupted(method, path, e);
        }
    }

    private static UncheckedIOException interrupted(String method, String path, InterruptedException e) {
        Thread.currentThread().interrupt();
        InterruptedIOException cause = new InterruptedIOException("interrupted");
        cause.initCause(e);
        return new UncheckedIOException(method + " " + path + ": interrupted", cause);
    }

    private static byte[] readBounded(InputStream in) {
        try (in) {
            return in.readNBytes(MAX_ERROR_BODY);
        } catch (IOException e) {
            return new byte[0]; // a truncated error body still gives the code; fromResponse says it was empty
        }
    }

    /**
     * Closes the connection pool: requests in flight, open watches among them, fail at once. Not {@code
     * HttpClient.close()}, which waits for every exchange to complete — a watch the server holds open would
     * keep it waiting for minutes.
     */
    @Override
    public void close() {
        http.shutdownNow();
        try {
            // Real time: the JDK's HttpClient releases its connections on its own threads, out of any clock's reach.
            http.awaitTermination(CLOSE_WAIT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** How long {@link #close()} waits for the cancelled exchanges to release their connections. */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(2);

    @Override
    public String toString() {
        return "HttpTransport{server=" + config.server() + ", " + rateLimiter + ", " + retryPolicy + ", requestTimeout="
                + requestTimeout + "}";
    }

    /** Timeouts, rate limiter, retry policy, metrics and clock of a transport; every one has a default. */
    public static final class Builder {
        private final ClientConfig config;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
        /** Null: a token bucket of {@code qps} and {@code burst} on {@code clock}, made by build(). */
        private RateLimiter rateLimiter;

        private double qps = RateLimiter.DEFAULT_QPS;
        private int burst = RateLimiter.DEFAULT_BURST;
        private RetryPolicy retryPolicy = RetryPolicy.defaults();
        private ClientMetrics metrics = ClientMetrics.noop();
        private Clock clock = Clock.system();
        /** Null: kubeloop's own, in client-go's form. */
        private String userAgent;

        private Builder(ClientConfig config) {
            this.config = Objects.requireNonNull(config, "config");
        }

        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = positive(timeout, "connectTimeout");
            return this;
        }

        public Builder requestTimeout(Duration timeout) {
            this.requestTimeout = positive(timeout, "requestTimeout");
            return this;
        }

        /**
         * A client-side token bucket of {@code qps} and {@code burst} on this transport's clock (default
         * {@value RateLimiter#DEFAULT_QPS} and {@value RateLimiter#DEFAULT_BURST}).
         *
         * @throws IllegalArgumentException if {@code qps} is not a positive finite number or {@code burst < 1}
         */
        public Builder rateLimit(double qps, int burst) {
            RateLimiter.tokenBucket(qps, burst, Clock.system()); // checks both now, naming the bad one
            this.qps = qps;
            this.burst = burst;
            this.rateLimiter = null;
            return this;
        }

        /**
         * A rate limiter made elsewhere, perhaps shared with other transports; it waits on its own clock, not
         * this transport's.
         */
        public Builder rateLimiter(RateLimiter rateLimiter) {
            this.rateLimiter = Objects.requireNonNull(rateLimiter, "rateLimiter");
            return this;
        }

        public Builder retryPolicy(RetryPolicy retryPolicy) {
            this.retryPolicy = Objects.requireNonNull(retryPolicy, "retryPolicy");
            return this;
        }

        public Builder metrics(ClientMetrics metrics) {
            this.metrics = Objects.requireNonNull(metrics, "metrics");
            return this;
        }

        /**
         * The clock of retry delays, of the default rate limiter's waits, of request durations and of the idle
         * rule of watches opened through this transport (default {@link Clock#system()}).
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * The User-Agent of every request instead of kubeloop's own (client-go's {@code rest.Config.UserAgent}): say
         * which program, or which part of it, is calling. An API server that takes a field manager from the
         * User-Agent takes its first word.
         *
         * @throws IllegalArgumentException if it is blank or holds a control character
         */
        public Builder userAgent(String userAgent) {
            Objects.requireNonNull(userAgent, "userAgent");
            if (userAgent.isBlank() || userAgent.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
                throw new IllegalArgumentException("userAgent must be non-blank printable text, was \""
                        + userAgent.replaceAll("\\p{Cntrl}", "?") + "\"");
            }
            this.userAgent = userAgent;
            return this;
        }

        public HttpTransport build() {
            return new HttpTransport(this);
        }

        private static Duration positive(Duration d, String what) {
            Objects.requireNonNull(d, what);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(what + " must be positive: " + d);
            }
            return d;
        }
    }
}
