package io.kubeloop.client.transport;

import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Which failed requests the transport sends again, and after how long: a pure decision, with no clock and no
 * state, so that the transport owns the waiting and the tests own every case.
 *
 * <p>The rules, against client-go's {@code rest/with_retry.go}:
 * <ul>
 *   <li>Only reads are retried: {@code GET} (get, list, and opening a watch) and {@code HEAD}. Writes
 *       ({@code POST}, {@code PUT}, {@code PATCH}, {@code DELETE}) never are, whatever the answer: a 503 from
 *       a proxy or a reset connection can come after the server applied the write, and a blind second create,
 *       delete or patch is not the same request. client-go retries writes on a 429 or 5xx with Retry-After;
 *       kubeloop leaves that to the caller (a controller requeues), which knows whether the write is
 *       idempotent.</li>
 *   <li>Answers: {@code 429 TooManyRequests} and {@code 503 ServiceUnavailable} are retried, after the
 *       {@code Retry-After} seconds, or {@link Builder#defaultDelay 1 s} when the answer has none (API Priority
 *       and Fairness always sends one; a restarting server or load balancer often does not). Any other 5xx is
 *       retried only when it carries {@code Retry-After}, as client-go does: the server said it may succeed
 *       later (e.g. a 500 ServerTimeout or 504 Timeout). Nothing else is retried.</li>
 *   <li>Retry-After is capped at {@link Builder#maxDelay 30 s}, so that one answer cannot park a reconcile for
 *       an hour; {@code Retry-After: 0} retries at once. The HTTP-date form is not understood (kube-apiserver never
 *       sends it) and counts as absent.</li>
 *   <li>Errors with no answer: a refused connection ({@link ConnectException}) and a connection reset or closed
 *       before the answer ({@code Connection reset}, {@link EOFException}, {@link ClosedChannelException}) are
 *       retried for reads after the default delay. A timeout ({@link HttpTimeoutException}) is not: the request's
 *       own deadline has passed, and waiting it out again ten times is not what the caller asked for.</li>
 *   <li>At most {@link Builder#maxRetries 10} retries (client-go's {@code maxRetries}), so at most 11 attempts.</li>
 * </ul>
 *
 * <p>Immutable and thread-safe.
 */
public final class RetryPolicy {

    /** client-go's default number of retries. */
    public static final int DEFAULT_MAX_RETRIES = 10;

    public static final Duration DEFAULT_DELAY = Duration.ofSeconds(1);
    public static final Duration DEFAULT_MAX_DELAY = Duration.ofSeconds(30);

    private static final RetryPolicy DEFAULTS = builder().build();
    private static final RetryPolicy NEVER = builder().maxRetries(0).build();

    private final int maxRetries;
    private final Duration defaultDelay;
    private final Duration maxDelay;

    private RetryPolicy(Builder b) {
        this.maxRetries = b.maxRetries;
        this.defaultDelay = b.defaultDelay;
        this.maxDelay = b.maxDelay;
    }

    /** 10 retries, 1 s when the server names no delay, Retry-After capped at 30 s. */
    public static RetryPolicy defaults() {
        return DEFAULTS;
    }

    /** Never retries. */
    public static RetryPolicy never() {
        return NEVER;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The decision after attempt number {@code attempt} (1 for the first) of a {@code method} request got an
     * HTTP answer with {@code code}.
     *
     * @param headers the answer's headers, names in any case; only {@code Retry-After} is read; may be null
     */
    public RetryDecision onResponse(String method, int attempt, int code, Map<String, List<String>> headers) {
        String m = normalize(method);
        if (!isRead(m)) {
            return new RetryDecision.GiveUp(m + " is a write: never retried");
        }
        if (code < 400 || code >= 600 || (code >= 400 && code < 500 && code != 429)) {
            return new RetryDecision.GiveUp(code + " is not retried");
        }
        long retryAfter = retryAfterSeconds(headers);
        if (code != 429 && code != 503 && retryAfter < 0) {
            return new RetryDecision.GiveUp(code + " without Retry-After is not retried");
        }
        if (attempt > maxRetries) {
            return new RetryDecision.GiveUp(
                    code + " after " + attempt + " attempts: retries exhausted (" + maxRetries + ")");
        }
        if (retryAfter < 0) {
            return new RetryDecision.Retry(
                    defaultDelay,
                    code + " without Retry-After: retry after the default " + defaultDelay.toMillis() + " ms");
        }
        Duration asked = Duration.ofSeconds(retryAfter);
        Duration delay = asked.compareTo(maxDelay) > 0 ? maxDelay : asked;
        return new RetryDecision.Retry(
                delay,
                code + " with Retry-After: " + retryAfter
                        + (delay.equals(asked) ? "" : " (capped at " + maxDelay.toSeconds() + " s)"));
    }

    /** The decision after attempt number {@code attempt} (1 for the first) of a {@code method} request failed. */
    public RetryDecision onError(String method, int attempt, IOException error) {
        Objects.requireNonNull(error, "error");
        String m = normalize(method);
        if (!isRead(m)) {
            return new RetryDecision.GiveUp(m + " is a write: never retried");
        }
        String kind = retryableKind(error);
        if (kind == null) {
            return new RetryDecision.GiveUp(error.getClass().getSimpleName() + " is not retried");
        }
        if (attempt > maxRetries) {
            return new RetryDecision.GiveUp(
                    kind + " after " + attempt + " attempts: retries exhausted (" + maxRetries + ")");
        }
        return new RetryDecision.Retry(defaultDelay, kind + ": retry after " + defaultDelay.toMillis() + " ms");
    }

    /** Whether requests with this method may be retried at all: GET and HEAD. */
    public static boolean isRead(String method) {
        String m = normalize(method);
        return m.equals("GET") || m.equals("HEAD");
    }

    public int maxRetries() {
        return maxRetries;
    }

    public Duration defaultDelay() {
        return defaultDelay;
    }

    public Duration maxDelay() {
        return maxDelay;
    }

    @Override
    public String toString() {
        return "RetryPolicy[maxRetries=" + maxRetries + ", defaultDelay=" + defaultDelay + ", maxDelay=" + maxDelay
                + "]";
    }

    private static String normalize(String method) {
        return method == null ? "(no method)" : method.toUpperCase(Locale.ROOT);
    }

    /**
     * "connection refused" or "connection reset" when {@code error} or one of its causes is one, else null.
     * java.net.http wraps the socket's exception in its own, so the whole chain is searched (bounded).
     */
    static String retryableKind(IOException error) {
        Throwable t = error;
        for (int depth = 0; t != null && depth < 8; depth++, t = t.getCause()) {
            if (t instanceof HttpTimeoutException) {
                return null;
            }
            if (t instanceof ConnectException) {
                return "connection refused";
            }
            if (t instanceof EOFException || t instanceof ClosedChannelException) {
                return "connection closed";
            }
            String msg = t.getMessage() == null ? "" : t.getMessage().toLowerCase(Locale.ROOT);
            if (t instanceof SocketException && (msg.contains("reset") || msg.contains("broken pipe"))
                    || msg.contains("connection reset")
                    || msg.contains("received no bytes")) {
                return "connection reset";
            }
        }
        return null;
    }

    /** Retry-After in whole seconds, -1 when absent or not a non-negative integer. */
    static long retryAfterSeconds(Map<String, List<String>> headers) {
        if (headers == null) {
            return -1;
        }
        for (Map.Entry<String, List<String>> e : headers.entrySet()) {
            if ("retry-after".equalsIgnoreCase(e.getKey())
                    && e.getValue() != null
                    && !e.getValue().isEmpty()
                    && e.getValue().get(0) != null) {
                String v = e.getValue().get(0).strip();
                if (v.isEmpty() || !v.chars().allMatch(c -> c >= '0' && c <= '9')) {
                    return -1;
                }
                String digits = v.replaceFirst("^0+(?=.)", "");
                return digits.length() > 12 ? Long.MAX_VALUE / 2 : Long.parseLong(digits);
            }
        }
        return -1;
    }

    /** Builds a {@link RetryPolicy}; every setting has a default. */
    public static final class Builder {
        private int maxRetries = DEFAULT_MAX_RETRIES;
        private Duration defaultDelay = DEFAULT_DELAY;
        private Duration maxDelay = DEFAULT_MAX_DELAY;

        private Builder() {}

        /** How many times a request is sent again at most (0: never); default {@value RetryPolicy#DEFAULT_MAX_RETRIES}. */
        public Builder maxRetries(int maxRetries) {
            if (maxRetries < 0) {
                throw new IllegalArgumentException("maxRetries must not be negative, was " + maxRetries);
            }
            this.maxRetries = maxRetries;
            return this;
        }

        /** The delay when the server names none (and after a refused or reset connection); default 1 s. */
        public Builder defaultDelay(Duration defaultDelay) {
            this.defaultDelay = nonNegative("defaultDelay", defaultDelay);
            return this;
        }

        /** The longest Retry-After honoured; a longer one waits this long; default 30 s. */
        public Builder maxDelay(Duration maxDelay) {
            this.maxDelay = nonNegative("maxDelay", maxDelay);
            return this;
        }

        public RetryPolicy build() {
            return new RetryPolicy(this);
        }

        private static Duration nonNegative(String name, Duration d) {
            Objects.requireNonNull(d, name);
            if (d.isNegative()) {
                throw new IllegalArgumentException(name + " must not be negative, was " + d);
            }
            return d;
        }
    }
}
