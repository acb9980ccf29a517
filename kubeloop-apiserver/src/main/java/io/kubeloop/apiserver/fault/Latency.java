package io.kubeloop.apiserver.fault;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Latency to add to requests before they are served. Immutable; each method returns a changed copy.
 *
 * <pre>{@code
 * server.faults().latency(Latency.of(Duration.ofMillis(500)).jitter(Duration.ofMillis(200)).resource("pods"));
 * }</pre>
 *
 * <p>Each request in scope waits {@code fixed} plus a uniformly drawn amount between 0 and {@code jitter}, from
 * the server's seeded random source, on the server's clock. It lasts for its {@link #duration} or until cleared.
 * For a watch the delay comes before the stream starts.
 */
public final class Latency {

    private final Duration fixed;
    private final Duration jitter;
    private final Duration duration;
    private final Scope scope;

    private Latency(Duration fixed, Duration jitter, Duration duration, Scope scope) {
        this.fixed = fixed;
        this.jitter = jitter;
        this.duration = duration;
        this.scope = scope;
    }

    /** Every request in scope waits {@code fixed} (zero or more) first. */
    public static Latency of(Duration fixed) {
        Objects.requireNonNull(fixed, "fixed");
        if (fixed.isNegative()) {
            throw new IllegalArgumentException("millis must not be negative, was " + fixed.toMillis());
        }
        return new Latency(fixed, Duration.ZERO, null, Scope.ALL);
    }

    /** Up to this much more, drawn per request. */
    public Latency jitter(Duration jitter) {
        Objects.requireNonNull(jitter, "jitter");
        if (jitter.isNegative()) {
            throw new IllegalArgumentException("jitterMillis must not be negative, was " + jitter.toMillis());
        }
        return new Latency(fixed, jitter, duration, scope);
    }

    /** Ends the latency after {@code duration} of the server's clock. */
    public Latency duration(Duration duration) {
        Objects.requireNonNull(duration, "duration");
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("duration must be positive, was " + duration);
        }
        return new Latency(fixed, jitter, duration, scope);
    }

    /** Only requests for this resource: its plural ({@code pods}) or plural.group ({@code deployments.apps}). */
    public Latency resource(String resource) {
        return new Latency(fixed, jitter, duration, scope.withResource(Objects.requireNonNull(resource, "resource")));
    }

    /** Only requests with this kube verb: get, list, watch, create, update, patch, delete or deletecollection. */
    public Latency verb(String verb) {
        return new Latency(fixed, jitter, duration, scope.withVerb(Objects.requireNonNull(verb, "verb")));
    }

    Duration fixed() {
        return fixed;
    }

    Duration jitterBound() {
        return jitter;
    }

    Duration lasting() {
        return duration;
    }

    Scope scope() {
        return scope;
    }

    Map<String, Object> describe() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("millis", fixed.toMillis());
        if (!jitter.isZero()) {
            m.put("jitterMillis", jitter.toMillis());
        }
        if (duration != null) {
            m.put("seconds", duration.toMillis() / 1000.0);
        }
        scope.describe(m);
        return m;
    }

    @Override
    public String toString() {
        return "Latency" + describe();
    }
}
