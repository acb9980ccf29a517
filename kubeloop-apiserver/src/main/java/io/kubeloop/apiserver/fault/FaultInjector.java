package io.kubeloop.apiserver.fault;

import com.sun.net.httpserver.HttpExchange;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.api.model.StatusDetails;
import io.kubeloop.apiserver.internal.exchange.ExchangeAttributes;
import io.kubeloop.clock.Clock;
import io.kubeloop.model.StatusReason;
import io.kubeloop.model.Statuses;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;
import tools.jackson.databind.json.JsonMapper;

/**
 * Where the HTTP layer meets the {@link Faults}: the hooks the router and the resource endpoints call, and the
 * admin path. Internal to kubeloop; use {@code EmbeddedApiServer.faults()}.
 *
 * <p>Every hook is a volatile read and nothing more while no fault is in force.
 */
public final class FaultInjector {

    /** The admin path, outside the Kubernetes API. */
    public static final String ADMIN_PATH = "/kubeloop/faults";

    private static final String WATCH_ATTRIBUTE = "io.kubeloop.apiserver.fault.watch";

    private final Faults faults;
    private final FaultAdmin admin;
    private final boolean adminEnabled;

    /**
     * @param adminEnabled whether {@link #ADMIN_PATH} is served (it answers 404 otherwise); the Java API works
     *     either way
     * @param compactor compacts the store's history to its current revision and returns the oldest revision left
     */
    public FaultInjector(Clock clock, long seed, boolean adminEnabled, LongSupplier compactor, JsonMapper json) {
        this.faults = new Faults(clock, seed, compactor);
        this.admin = new FaultAdmin(faults, json);
        this.adminEnabled = adminEnabled;
    }

    public Faults faults() {
        return faults;
    }

    /** Adds the fault meters to the server's {@code /metrics}. */
    public void bindMetrics(MeterRegistry registry) {
        faults.bindMetrics(registry);
    }

    /** Whether {@code path} (without a trailing slash) is the admin path or below it. */
    public static boolean isAdminPath(String path) {
        return path.equals(ADMIN_PATH) || path.startsWith(ADMIN_PATH + "/");
    }

    /** Serves a request to the admin path: 404 unless enabled, 403 unless the caller is an admin. */
    public void serveAdmin(HttpExchange exchange, String path) throws IOException {
        if (!adminEnabled) {
            FaultAdmin.send(exchange, admin.json(), Statuses.routeNotFound());
            return;
        }
        admin.serve(exchange, path);
    }

    /** Called before routing any request but the admin path's: holds it while a partition cuts its client off. */
    public void holdWhilePartitioned(HttpExchange exchange) throws InterruptedIOException {
        faults.holdWhilePartitioned(exchange.getRequestHeaders().getFirst("User-Agent"));
    }

    /**
     * Called before a resource request is served: waits any injected latency, then returns the Status to answer
     * with instead of serving (setting Retry-After when the failure has one), or null to serve normally.
     *
     * @param verb the request's verb as the metrics label it ({@code LIST}, {@code WATCH}, {@code APPLY},
     *     {@code POST}, ...)
     */
    public Status beforeResourceRequest(HttpExchange exchange, String group, String plural, String verb)
            throws InterruptedIOException {
        Faults.Verdict verdict = faults.verdict(group, plural, kubeVerb(verb));
        if (verdict == null) {
            return null;
        }
        if (verdict.delayNanos() > 0) {
            faults.delay(verdict.delayNanos());
        }
        Failure failure = verdict.failure();
        if (failure == null) {
            return null;
        }
        if (failure.retryAfter() > 0) {
            exchange.getResponseHeaders().set("Retry-After", Integer.toString(failure.retryAfter()));
        }
        return status(failure);
    }

    /**
     * Registers a watch that is about to stream, so that close-watches can end it ({@code close} must make the
     * stream end cleanly) and partitions and stalls can hold it. Close the returned handle when the stream ends.
     */
    public WatchRegistration watchOpened(HttpExchange exchange, String group, String plural, Runnable close) {
        Faults.OpenWatch w =
                faults.watchOpened(group, plural, exchange.getRequestHeaders().getFirst("User-Agent"), close);
        ExchangeAttributes.set(exchange, WATCH_ATTRIBUTE, w);
        return () -> faults.watchEnded(w);
    }

    /** The body to stream a registered watch's events to: writes wait while a partition or stall holds it. */
    public OutputStream watchBody(HttpExchange exchange) {
        OutputStream body = exchange.getResponseBody();
        return ExchangeAttributes.get(exchange, WATCH_ATTRIBUTE) instanceof Faults.OpenWatch w
                ? new HeldWatchBody(body, faults, w)
                : body;
    }

    /** Ends every fault, releasing held requests; for the server's close. */
    public void close() {
        faults.close();
    }

    /** Forgets a watch when its stream has ended. */
    public interface WatchRegistration extends AutoCloseable {
        @Override
        void close();
    }

    /** The kube verb of a request, from the router's label for it. */
    static String kubeVerb(String label) {
        return switch (label) {
            case "POST" -> "create";
            case "PUT" -> "update";
            case "APPLY" -> "patch";
            default -> label.toLowerCase(Locale.ROOT);
        };
    }

    /** kube-apiserver's Status for the failure's code. */
    static Status status(Failure failure) {
        Status s =
                switch (failure.code()) {
                    case 429 ->
                        Statuses.failure(
                                StatusReason.TooManyRequests,
                                "Too many requests, please try again later. (injected by kubeloop)");
                    case 503 ->
                        Statuses.failure(
                                StatusReason.ServiceUnavailable,
                                "the server is currently unable to handle the request (injected by kubeloop)");
                    default -> {
                        Status internal = Statuses.failure(
                                StatusReason.InternalError, "Internal error occurred: injected by kubeloop");
                        StatusDetails d = new StatusDetails();
                        StatusCause cause = new StatusCause();
                        cause.setMessage("injected by kubeloop");
                        d.setCauses(List.of(cause));
                        internal.setDetails(d);
                        yield internal;
                    }
                };
        if (failure.retryAfter() > 0) {
            if (s.getDetails() == null) {
                s.setDetails(new StatusDetails());
            }
            s.getDetails().setRetryAfterSeconds(failure.retryAfter());
        }
        return s;
    }
}
