package io.kubeloop.apiserver.fault;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A failure to inject: requests answer with a kube-apiserver error Status instead of being served. Immutable;
 * each method returns a changed copy.
 *
 * <pre>{@code
 * server.faults().fail(Failure.status(503).count(5).retryAfterSeconds(2).resource("pods").verb("list"));
 * server.faults().fail(Failure.status(500).fraction(0.3).duration(Duration.ofSeconds(30)));
 * }</pre>
 *
 * <p>The codes are those kube-apiserver sends under load or trouble: 429 TooManyRequests, 500 InternalError and
 * 503 ServiceUnavailable. A failure ends after {@link #count} injected errors, after its {@link #duration}, or
 * when the faults are cleared, whichever comes first; with neither count nor duration it lasts until cleared.
 * With a {@link #fraction} below 1, each request in scope fails with that probability, drawn from the server's
 * seeded random source.
 */
public final class Failure {

    private final int code;
    private final int count;
    private final double fraction;
    private final Duration duration;
    private final int retryAfterSeconds;
    private final Scope scope;

    private Failure(int code, int count, double fraction, Duration duration, int retryAfterSeconds, Scope scope) {
        this.code = code;
        this.count = count;
        this.fraction = fraction;
        this.duration = duration;
        this.retryAfterSeconds = retryAfterSeconds;
        this.scope = scope;
    }

    /** Every request in scope fails with {@code code}: 429, 500 or 503. */
    public static Failure status(int code) {
        if (code != 429 && code != 500 && code != 503) {
            throw new IllegalArgumentException("code must be 429, 500 or 503, was " + code);
        }
        return new Failure(code, 0, 1.0, null, 0, Scope.ALL);
    }

    /** Only the next {@code count} requests in scope fail (those that the fraction selects); at least 1. */
    public Failure count(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1, was " + count);
        }
        return new Failure(code, count, fraction, duration, retryAfterSeconds, scope);
    }

    /** The probability, 0 to 1, that a request in scope fails; default 1. */
    public Failure fraction(double fraction) {
        if (!(fraction >= 0 && fraction <= 1)) {
            throw new IllegalArgumentException("fraction must be between 0 and 1, was " + fraction);
        }
        return new Failure(code, count, fraction, duration, retryAfterSeconds, scope);
    }

    /** Ends the failure after {@code duration} of the server's clock. */
    public Failure duration(Duration duration) {
        Objects.requireNonNull(duration, "duration");
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("duration must be positive, was " + duration);
        }
        return new Failure(code, count, fraction, duration, retryAfterSeconds, scope);
    }

    /**
     * Sends {@code Retry-After} and {@code details.retryAfterSeconds}; 0 (the default) sends neither. client-go
     * retries a 429 or 5xx that carries Retry-After, up to 10 times.
     */
    public Failure retryAfterSeconds(int seconds) {
        if (seconds < 0) {
            throw new IllegalArgumentException("retryAfterSeconds must not be negative, was " + seconds);
        }
        return new Failure(code, count, fraction, duration, seconds, scope);
    }

    /** Only requests for this resource: its plural ({@code pods}) or plural.group ({@code deployments.apps}). */
    public Failure resource(String resource) {
        return new Failure(
                code,
                count,
                fraction,
                duration,
                retryAfterSeconds,
                scope.withResource(Objects.requireNonNull(resource, "resource")));
    }

    /** Only requests with this kube verb: get, list, watch, create, update, patch, delete or deletecollection. */
    public Failure verb(String verb) {
        return new Failure(
                code,
                count,
                fraction,
                duration,
                retryAfterSeconds,
                scope.withVerb(Objects.requireNonNull(verb, "verb")));
    }

    int code() {
        return code;
    }

    /** 0 when unlimited. */
    int countLimit() {
        return count;
    }

    double probability() {
        return fraction;
    }

    /** null when it lasts until cleared. */
    Duration lasting() {
        return duration;
    }

    int retryAfter() {
        return retryAfterSeconds;
    }

    Scope scope() {
        return scope;
    }

    Map<String, Object> describe() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("code", code);
        if (count > 0) {
            m.put("count", count);
        }
        if (fraction < 1) {
            m.put("fraction", fraction);
        }
        if (duration != null) {
            m.put("seconds", duration.toMillis() / 1000.0);
        }
        if (retryAfterSeconds > 0) {
            m.put("retryAfterSeconds", retryAfterSeconds);
        }
        scope.describe(m);
        return m;
    }

    @Override
    public String toString() {
        return "Failure" + describe();
    }
}
