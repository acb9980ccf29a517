package io.kubeloop.model;

/**
 * The {@code reason} of a failed API call's {@code Status}, with the HTTP code kube-apiserver sends for it.
 * Clients map each to a typed exception; the embedded API server answers with them.
 */
public enum StatusReason {
    BadRequest(400),
    Unauthorized(401),
    Forbidden(403),
    NotFound(404),
    MethodNotAllowed(405),
    NotAcceptable(406),
    AlreadyExists(409),
    Conflict(409),
    Gone(410),
    Expired(410),
    RequestEntityTooLarge(413),
    UnsupportedMediaType(415),
    Invalid(422),
    TooManyRequests(429),
    InternalError(500),
    ServerTimeout(500),
    ServiceUnavailable(503),
    Timeout(504);

    private final int code;

    StatusReason(int code) {
        this.code = code;
    }

    /** The HTTP status code kube-apiserver answers with. */
    public int code() {
        return code;
    }
}
