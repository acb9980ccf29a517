package io.kubeloop.client.errors;

import io.fabric8.kubernetes.api.model.Status;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * A non-2xx answer of the Kubernetes API server, or an {@code ERROR} watch event: the HTTP code, the server's
 * {@link Status}, and the request's method and path. Unchecked, like every kubeloop client error.
 *
 * <p>Each Status reason kube-apiserver uses has its own subclass ({@link NotFoundException},
 * {@link ConflictException}, {@link ExpiredException}, {@link InvalidException}, {@link ForbiddenException},
 * {@link TooManyRequestsException}, ...), so callers catch what they handle:
 *
 * <pre>{@code
 * try {
 *     pods.get("web-0");
 * } catch (NotFoundException e) {
 *     // create it
 * }
 * }</pre>
 *
 * <p>The class is chosen by the Status {@code reason} when it is one kube-apiserver defines, else by the HTTP
 * code (as client-go's {@code errors.IsNotFound} and friends do); an instance of this class itself is the
 * fallback for a code and reason with no subclass (e.g. 418, or 409 with an unknown reason is a
 * {@link ConflictException}).
 *
 * <p>The message reads {@code <method> <path>: <code> <reason>: <server message>}, e.g.
 * {@code GET /api/v1/namespaces/default/pods/web-0: 404 NotFound: pods "web-0" not found}. It never holds
 * request or response headers, so no bearer token, client certificate or key can leak through it; a body
 * that is not a Status appears only as a bounded, escaped excerpt.
 *
 * <p>When the body was not a Status (a proxy's HTML page, API Priority and Fairness' plain-text 429, an empty
 * body), {@link #status()} is a Status made here as client-go makes it: the reason that belongs to the code,
 * a generic message, and one cause of reason {@code UnexpectedServerResponse} holding the excerpt;
 * {@link #hasServerStatus()} is then false.
 */
public class KubernetesApiException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int code;
    /** Never null; made here when the server sent none (see {@link #hasServerStatus()}). */
    private final Status status;

    private final String method;
    private final String path;
    private final boolean serverStatus;
    /** Seconds, or -1 when the server asked for no delay. */
    private final int retryAfterSeconds;

    KubernetesApiException(ErrorParts parts) {
        super(parts.message());
        this.code = parts.code();
        this.status = parts.status();
        this.method = parts.method();
        this.path = parts.path();
        this.serverStatus = parts.serverStatus();
        this.retryAfterSeconds = parts.retryAfterSeconds();
    }

    /**
     * The typed exception for an HTTP answer. Never throws: a body that is not JSON, not a Status, truncated or
     * hostile still gives an exception whose message names the code, the content type and an excerpt of at most
     * 512 characters with control characters escaped.
     *
     * @param code the HTTP status code
     * @param headers the response headers, names in any case (only {@code Content-Type} and {@code Retry-After}
     *     are read; none is kept); may be null
     * @param body the response body; may be null or empty
     * @param method the request's HTTP method, e.g. {@code GET}; may be null
     * @param path the request's path (and query), e.g. {@code /api/v1/namespaces/default/pods}; may be null
     */
    public static KubernetesApiException fromResponse(
            int code, Map<String, List<String>> headers, byte[] body, String method, String path) {
        return ErrorParts.fromResponse(code, headers, body, method, path).toException();
    }

    /**
     * The typed exception for the Status of a watch {@code ERROR} event: a 410 (reason {@code Expired} or
     * {@code Gone}) is an {@link ExpiredException}, telling the caller to relist. The code is the Status'
     * {@code code}, else the one its reason stands for, else 500.
     */
    public static KubernetesApiException fromWatchError(Status status) {
        return fromWatchError(status, null, null);
    }

    /** {@link #fromWatchError(Status)}, naming the watch request in the message. */
    public static KubernetesApiException fromWatchError(Status status, String method, String path) {
        Objects.requireNonNull(status, "status");
        return ErrorParts.fromStatus(ErrorParts.codeOf(status), status, method, path, -1)
                .toException();
    }

    /**
     * The typed exception for a Status already in hand, e.g. one a test double wants to throw exactly as the
     * client would.
     */
    public static KubernetesApiException fromStatus(int code, Status status, String method, String path) {
        Objects.requireNonNull(status, "status");
        return ErrorParts.fromStatus(code, status, method, path, -1).toException();
    }

    /** The HTTP status code, e.g. 404; for a watch ERROR event, the Status' code. */
    public int code() {
        return code;
    }

    /** The server's Status (or one made here; see the class comment). Shared, not copied: do not modify it. */
    public Status status() {
        return status;
    }

    /** The Status reason, e.g. {@code NotFound}; empty when neither the server nor the code gave one. */
    public String reason() {
        return status.getReason() == null ? "" : status.getReason();
    }

    /** The server's human-readable message, without the method, path and code prefix. */
    public String serverMessage() {
        return status.getMessage() == null ? "" : status.getMessage();
    }

    /** Whether the server answered with a Status; false when {@link #status()} was made here from the code. */
    public boolean hasServerStatus() {
        return serverStatus;
    }

    /** The request's HTTP method, or null when unknown (e.g. a watch event without its request). */
    public String method() {
        return method;
    }

    /** The request's path, or null when unknown. */
    public String path() {
        return path;
    }

    /**
     * How long the server asked the client to wait before retrying: the {@code Retry-After} header's seconds,
     * else the Status' {@code details.retryAfterSeconds}; empty when it asked nothing.
     */
    public OptionalInt retryAfterSeconds() {
        return retryAfterSeconds < 0 ? OptionalInt.empty() : OptionalInt.of(retryAfterSeconds);
    }
}
