package io.kubeloop.client.errors;

import io.fabric8.kubernetes.api.model.ListMeta;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.api.model.StatusDetails;
import io.kubeloop.model.StatusReason;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What a {@link KubernetesApiException} is made of, worked out from an HTTP answer or a watch event's Status,
 * and the choice of its class. Everything here is total: untrusted input gives an exception to throw, never an
 * exception while making one.
 */
record ErrorParts(int code, Status status, String method, String path, boolean serverStatus, int retryAfterSeconds) {

    /** A Status is a few kilobytes; a body larger than this is reported by excerpt, not parsed. */
    static final int MAX_STATUS_BYTES = 4 << 20;
    /** The longest server message, method and path an exception message repeats. */
    static final int MAX_MESSAGE_CHARS = 4096;

    static final int MAX_PATH_CHARS = 1024;
    static final int MAX_CONTENT_TYPE_CHARS = 128;

    private static final JsonMapper JSON = JsonMapper.builder().build();

    static ErrorParts fromResponse(
            int code, Map<String, List<String>> headers, byte[] body, String method, String path) {
        byte[] bytes = body == null ? new byte[0] : body;
        int headerRetry = retryAfterHeader(headers);
        Status parsed = parseStatus(bytes);
        if (parsed != null) {
            return fromStatus(code, parsed, method, path, headerRetry, true);
        }
        return fromStatus(
                code, madeStatus(code, header(headers, "content-type"), bytes), method, path, headerRetry, false);
    }

    static ErrorParts fromStatus(int code, Status status, String method, String path, int headerRetry) {
        return fromStatus(code, status, method, path, headerRetry, true);
    }

    private static ErrorParts fromStatus(
            int code, Status status, String method, String path, int headerRetry, boolean serverStatus) {
        int retry = headerRetry;
        if (retry < 0 && status.getDetails() != null && status.getDetails().getRetryAfterSeconds() != null) {
            retry = Math.max(-1, status.getDetails().getRetryAfterSeconds());
        }
        return new ErrorParts(code, status, method, path, serverStatus, retry);
    }

    /** The Status' code, else the code its reason stands for, else 500 (an ERROR event with no code). */
    static int codeOf(Status status) {
        Integer code = status.getCode();
        if (code != null && code >= 100 && code <= 999) {
            return code;
        }
        StatusReason reason = knownReason(status.getReason());
        return reason != null ? reason.code() : 500;
    }

    /** {@code GET /api/v1/pods: 404 NotFound: pods "x" not found}. */
    String message() {
        StringBuilder m = new StringBuilder();
        if (method != null || path != null) {
            if (method != null) {
                m.append(BodyExcerpt.of(method, 32));
            }
            if (path != null) {
                m.append(method != null ? " " : "").append(BodyExcerpt.of(path, MAX_PATH_CHARS));
            }
            m.append(": ");
        }
        m.append(code);
        String reason = status.getReason();
        if (reason != null && !reason.isEmpty()) {
            m.append(' ').append(BodyExcerpt.of(reason, 64));
        }
        String message = status.getMessage();
        m.append(": ")
                .append(
                        message == null || message.isEmpty()
                                ? "(no message)"
                                : message.length() <= MAX_MESSAGE_CHARS
                                        ? message
                                        : message.substring(0, MAX_MESSAGE_CHARS) + "… (" + message.length()
                                                + " characters)");
        return m.toString();
    }

    /** The subclass for the reason when kube-apiserver defines it, else for the code. */
    KubernetesApiException toException() {
        StatusReason reason = knownReason(status.getReason());
        if (reason == null) {
            reason = reasonForCode(code);
        }
        if (reason == null) {
            return new KubernetesApiException(this);
        }
        return switch (reason) {
            case BadRequest -> new BadRequestException(this);
            case Unauthorized -> new UnauthorizedException(this);
            case Forbidden -> new ForbiddenException(this);
            case NotFound -> new NotFoundException(this);
            case MethodNotAllowed -> new MethodNotAllowedException(this);
            case NotAcceptable -> new NotAcceptableException(this);
            case AlreadyExists -> new AlreadyExistsException(this);
            case Conflict -> new ConflictException(this);
            case Gone, Expired -> new ExpiredException(this);
            case RequestEntityTooLarge -> new RequestEntityTooLargeException(this);
            case UnsupportedMediaType -> new UnsupportedMediaTypeException(this);
            case Invalid -> new InvalidException(this);
            case TooManyRequests -> new TooManyRequestsException(this);
            case InternalError -> new InternalErrorException(this);
            case ServerTimeout -> new ServerTimeoutException(this);
            case ServiceUnavailable -> new ServiceUnavailableException(this);
            case Timeout -> new TimeoutException(this);
        };
    }

    static StatusReason knownReason(String reason) {
        if (reason == null || reason.isEmpty()) {
            return null;
        }
        for (StatusReason r : StatusReason.values()) {
            if (r.name().equals(reason)) {
                return r;
            }
        }
        return null;
    }

    /** The reason kube-apiserver gives a code; 409 is a Conflict, 410 Expired, 500 an InternalError. */
    static StatusReason reasonForCode(int code) {
        return switch (code) {
            case 400 -> StatusReason.BadRequest;
            case 401 -> StatusReason.Unauthorized;
            case 403 -> StatusReason.Forbidden;
            case 404 -> StatusReason.NotFound;
            case 405 -> StatusReason.MethodNotAllowed;
            case 406 -> StatusReason.NotAcceptable;
            case 409 -> StatusReason.Conflict;
            case 410 -> StatusReason.Expired;
            case 413 -> StatusReason.RequestEntityTooLarge;
            case 415 -> StatusReason.UnsupportedMediaType;
            case 422 -> StatusReason.Invalid;
            case 429 -> StatusReason.TooManyRequests;
            case 500 -> StatusReason.InternalError;
            case 503 -> StatusReason.ServiceUnavailable;
            case 504 -> StatusReason.Timeout;
            default -> null;
        };
    }

    /** client-go's words for a code whose answer was not a Status (apimachinery errors.NewGenericServerResponse). */
    private static String genericMessage(int code) {
        return switch (code) {
            case 400 -> "the server rejected our request for an unknown reason";
            case 401 -> "the server has asked for the client to provide credentials";
            case 403 -> "the server does not allow access to the requested resource";
            case 404, 410 -> "the server could not find the requested resource";
            case 405 -> "the server does not allow this method on the requested resource";
            case 406 -> "the server was unable to respond with a content type that the client supports";
            case 409 -> "the server reported a conflict";
            case 413 -> "the server has rejected the request because the request entity is too large";
            case 415 -> "the server was unable to accept the request's content type";
            case 422 -> "the server rejected our request due to an error in our request";
            case 429 -> "the server has received too many requests and has asked us to try again later";
            case 500 -> "an error on the server has prevented the request from succeeding";
            case 503 -> "the server is currently unable to handle the request";
            case 504 ->
                "the server was unable to return a response in the time allotted, "
                        + "but may still be processing the request";
            default -> "an unexpected answer from the server";
        };
    }

    /** The Status client-go makes for an answer that is not one: see {@link KubernetesApiException}. */
    private static Status madeStatus(int code, String contentType, byte[] body) {
        String type = contentType == null
                ? "no content type"
                : "content type " + BodyExcerpt.of(contentType, MAX_CONTENT_TYPE_CHARS);
        String excerpt = BodyExcerpt.of(body, BodyExcerpt.MAX_CHARS);
        String what = body.length == 0
                ? "not a Status: " + type + ", empty body"
                : "not a Status: " + type + ", " + body.length + " bytes: \"" + excerpt + "\"";
        Status s = new Status();
        s.setApiVersion("v1");
        s.setKind("Status");
        s.setMetadata(new ListMeta());
        s.setStatus("Failure");
        s.setCode(code);
        StatusReason reason = reasonForCode(code);
        s.setReason(reason == null ? "" : reason.name());
        s.setMessage(genericMessage(code) + " (" + what + ")");
        StatusCause cause = new StatusCause();
        cause.setReason("UnexpectedServerResponse");
        cause.setMessage(excerpt);
        StatusDetails details = new StatusDetails();
        details.setCauses(List.of(cause));
        s.setDetails(details);
        return s;
    }

    /**
     * The body as a Status when it is a JSON object of kind Status, read leniently field by field (a field of
     * the wrong type is left unset), else null.
     */
    static Status parseStatus(byte[] body) {
        if (body.length == 0 || body.length > MAX_STATUS_BYTES || !startsWithBrace(body)) {
            return null;
        }
        JsonNode n;
        try {
            n = JSON.readTree(body);
        } catch (RuntimeException notJson) { // Jackson 3's exceptions are unchecked
            return null;
        }
        if (n == null || !n.isObject() || !"Status".equals(text(n, "kind"))) {
            return null;
        }
        Status s = new Status();
        s.setKind("Status");
        s.setApiVersion(text(n, "apiVersion"));
        s.setStatus(text(n, "status"));
        s.setMessage(text(n, "message"));
        s.setReason(text(n, "reason"));
        s.setCode(integer(n, "code"));
        JsonNode meta = n.get("metadata");
        ListMeta listMeta = new ListMeta();
        if (meta != null && meta.isObject()) {
            listMeta.setResourceVersion(text(meta, "resourceVersion"));
            listMeta.setContinue(text(meta, "continue"));
        }
        s.setMetadata(listMeta);
        JsonNode d = n.get("details");
        if (d != null && d.isObject()) {
            StatusDetails details = new StatusDetails();
            details.setName(text(d, "name"));
            details.setGroup(text(d, "group"));
            details.setKind(text(d, "kind"));
            details.setUid(text(d, "uid"));
            details.setRetryAfterSeconds(integer(d, "retryAfterSeconds"));
            JsonNode causes = d.get("causes");
            if (causes != null && causes.isArray()) {
                List<StatusCause> list = new ArrayList<>();
                for (JsonNode c : causes) {
                    if (c.isObject()) {
                        StatusCause cause = new StatusCause();
                        cause.setReason(text(c, "reason"));
                        cause.setMessage(text(c, "message"));
                        cause.setField(text(c, "field"));
                        list.add(cause);
                    }
                }
                details.setCauses(list);
            }
            s.setDetails(details);
        }
        return s;
    }

    private static boolean startsWithBrace(byte[] body) {
        for (byte b : body) {
            if (b != ' ' && b != '\n' && b != '\r' && b != '\t') {
                return b == '{';
            }
        }
        return false;
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v != null && v.isString() ? v.stringValue() : null;
    }

    private static Integer integer(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v != null && v.isIntegralNumber() && v.canConvertToInt() ? v.intValue() : null;
    }

    /** The first value of a header, names compared ignoring case, or null. */
    static String header(Map<String, List<String>> headers, String name) {
        if (headers == null) {
            return null;
        }
        for (Map.Entry<String, List<String>> e : headers.entrySet()) {
            if (name.equalsIgnoreCase(e.getKey()) && e.getValue() != null) {
                for (String v : e.getValue()) {
                    if (v != null) {
                        return v;
                    }
                }
            }
        }
        return null;
    }

    /**
     * {@code Retry-After} in whole seconds, or -1 when absent or not a number. The HTTP-date form is ignored, as
     * client-go ignores it (kube-apiserver always sends seconds); huge values are clamped to
     * {@link Integer#MAX_VALUE}.
     */
    static int retryAfterHeader(Map<String, List<String>> headers) {
        String v = header(headers, "retry-after");
        if (v == null) {
            return -1;
        }
        v = v.strip();
        if (v.isEmpty()) {
            return -1;
        }
        for (int i = 0; i < v.length(); i++) {
            if (v.charAt(i) < '0' || v.charAt(i) > '9') {
                return -1;
            }
        }
        int first = 0;
        while (first < v.length() - 1 && v.charAt(first) == '0') {
            first++;
        }
        String digits = v.substring(first);
        return digits.length() > 9 ? Integer.MAX_VALUE : Integer.parseInt(digits);
    }
}
