package io.kubeloop.apiserver.internal.patch;

import java.util.Objects;

/**
 * A patch that cannot be applied, with the HTTP status kube-apiserver answers for it.
 *
 * <p>{@link #getMessage()} is the text for {@code Status.message}; {@link #detail()} is the patch engine's own
 * explanation, which kube-apiserver puts in {@code Status.details.causes[0].message} when the message is a
 * generic one (422 from a JSON patch that does not apply), and is otherwise equal to the message.
 *
 * <p>Which kind each failure gets follows kube-apiserver's patch handler:
 * <ul>
 *   <li>{@link Kind#BAD_REQUEST} (400): the patch document cannot be decoded (a JSON patch that is not an array
 *       of objects, a strategic merge patch that is not an object) or a strategic merge patch directive is
 *       malformed ({@code $deleteFromPrimitiveList}, {@code $retainKeys}, {@code $setElementOrder}).</li>
 *   <li>{@link Kind#INVALID} (422, message {@value #REJECTED}): a JSON patch operation does not apply (missing
 *       path, failed {@code test}, bad index, unknown op), or a strategic merge patch has a list of lists.</li>
 *   <li>{@link Kind#REQUEST_ENTITY_TOO_LARGE} (413): a JSON patch of more than 10,000 operations, and a patch
 *       whose result is larger than a request body may be ({@link PatchLimits}).</li>
 *   <li>{@link Kind#UNSUPPORTED_MEDIA_TYPE} (415): strategic merge patch on a kind without a patch schema
 *       (custom resources).</li>
 * </ul>
 *
 * <p>Where kube-apiserver answers 500: every other strategic merge patch error (an unknown {@code $patch}
 * value, an item without its merge key, a {@code $setElementOrder} that is not a list or contradicts the
 * patch) is a plain Go error there, which kube-apiserver turns into a 500 with an empty reason. Those are
 * errors in the request, not in the server, so they are {@link Kind#BAD_REQUEST} (400) here, with kube's
 * wording (issue 17: a hostile patch never gets a 500).
 */
public final class PatchException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Message kube-apiserver uses for a 422 from {@code NewGenericServerResponse}. */
    public static final String REJECTED = "the server rejected our request due to an error in our request";

    /** The HTTP status and {@code Status.reason} of a failed patch. */
    public enum Kind {
        BAD_REQUEST(400, "BadRequest"),
        INVALID(422, "Invalid"),
        REQUEST_ENTITY_TOO_LARGE(413, "RequestEntityTooLarge"),
        UNSUPPORTED_MEDIA_TYPE(415, "UnsupportedMediaType");

        private final int code;
        private final String reason;

        Kind(int code, String reason) {
            this.code = code;
            this.reason = reason;
        }

        /** The HTTP status code. */
        public int code() {
            return code;
        }

        /** The {@code Status.reason}. */
        public String reason() {
            return reason;
        }
    }

    private final Kind kind;
    private final String detail;

    PatchException(Kind kind, String message, String detail) {
        super(message, null, false, false);
        this.kind = Objects.requireNonNull(kind);
        this.detail = detail;
    }

    static PatchException badRequest(String message) {
        return new PatchException(Kind.BAD_REQUEST, message, message);
    }

    /** A 422 whose message is {@link #REJECTED} and whose detail says what failed. */
    static PatchException invalid(String detail) {
        return new PatchException(Kind.INVALID, REJECTED, detail);
    }

    /** A 413 with kube-apiserver's {@code NewRequestEntityTooLargeError} prefix. */
    static PatchException tooLarge(String message) {
        String m = "Request entity too large: " + message;
        return new PatchException(Kind.REQUEST_ENTITY_TOO_LARGE, m, m);
    }

    static PatchException unsupportedMediaType(String message) {
        return new PatchException(Kind.UNSUPPORTED_MEDIA_TYPE, message, message);
    }

    /** The status kind. */
    public Kind kind() {
        return kind;
    }

    /** The HTTP status code, e.g. 422. */
    public int code() {
        return kind.code();
    }

    /** The {@code Status.reason}, e.g. {@code Invalid}. */
    public String reason() {
        return kind.reason();
    }

    /** What exactly failed, e.g. {@code testing value /a failed: test failed}. */
    public String detail() {
        return detail;
    }

    @Override
    public String toString() {
        return "PatchException[" + kind.code() + " " + kind.reason() + ": " + getMessage()
                + (Objects.equals(detail, getMessage()) ? "" : " (" + detail + ")") + "]";
    }
}
