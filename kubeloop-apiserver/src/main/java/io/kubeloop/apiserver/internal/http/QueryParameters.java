package io.kubeloop.apiserver.internal.http;

import com.sun.net.httpserver.HttpExchange;
import io.kubeloop.model.ResourceType;
import io.kubeloop.model.StatusReason;
import io.kubeloop.model.Statuses;
import io.kubeloop.model.selector.FieldSelector;
import io.kubeloop.model.selector.LabelSelector;
import io.kubeloop.model.selector.SelectableFields;
import io.kubeloop.model.selector.SelectorParseException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The query parameters of resource requests, decoded and checked as kube-apiserver does: a value that is not
 * valid is a 400 (or 422 for list options) naming the parameter, never a default used silently.
 */
final class QueryParameters {

    private QueryParameters() {}

    /** The query of {@code exchange}: the first value of each parameter, percent-decoded. */
    static Map<String, String> of(HttpExchange exchange) {
        Map<String, String> q = new HashMap<>();
        String raw = exchange.getRequestURI().getRawQuery();
        if (raw == null) {
            return q;
        }
        for (String pair : raw.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String k = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String v = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            q.putIfAbsent(k, v);
        }
        return q;
    }

    /**
     * A boolean parameter as kube-apiserver decodes it: null when absent; {@code false} for {@code 0} or {@code
     * false} (any case); {@code true} for any other value, the empty one and {@code maybe} included (apimachinery's
     * {@code Convert_Slice_string_To_bool}: a query flag is set by being there).
     */
    static Boolean bool(String value) {
        if (value == null) {
            return null;
        }
        return !(value.equals("0") || value.equalsIgnoreCase("false"));
    }

    /** {@link #bool} with absent as false. */
    static boolean flag(Map<String, String> q, String name) {
        return Boolean.TRUE.equals(bool(q.get(name)));
    }

    /**
     * kube-apiserver's ValidateListOptions (apimachinery {@code metainternalversion/validation}) for a list or a
     * watch: every error at once, as one 422 {@code ListOptions.meta.k8s.io "" is invalid: ...}.
     */
    static void validateListOptions(Map<String, String> q, boolean watch) {
        String match = q.getOrDefault("resourceVersionMatch", "");
        String rv = q.getOrDefault("resourceVersion", "");
        boolean hasContinue = !q.getOrDefault("continue", "").isEmpty();
        Boolean sendInitialEvents = bool(q.get("sendInitialEvents"));
        java.util.List<Statuses.FieldError> errors = new java.util.ArrayList<>();
        if (watch) {
            if (sendInitialEvents != null && !match.equals("NotOlderThan")) {
                errors.add(forbidden(
                        "resourceVersionMatch",
                        "sendInitialEvents requires setting resourceVersionMatch " + "to NotOlderThan"));
            }
            if (!match.isEmpty()) {
                if (sendInitialEvents == null) {
                    errors.add(forbidden(
                            "resourceVersionMatch",
                            "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"));
                }
                if (!match.equals("NotOlderThan")) {
                    errors.add(unsupported("resourceVersionMatch", match, "\"NotOlderThan\""));
                }
                if (hasContinue) {
                    errors.add(forbidden(
                            "resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"));
                }
            }
        } else {
            if (!match.isEmpty()) {
                if (rv.isEmpty()) {
                    errors.add(forbidden(
                            "resourceVersionMatch",
                            "resourceVersionMatch is forbidden unless resourceVersion is provided"));
                }
                if (hasContinue) {
                    errors.add(forbidden(
                            "resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"));
                }
                if (!match.equals("Exact") && !match.equals("NotOlderThan")) {
                    errors.add(unsupported("resourceVersionMatch", match, "\"Exact\", \"NotOlderThan\", \"\""));
                }
                if (match.equals("Exact") && rv.equals("0")) {
                    errors.add(forbidden(
                            "resourceVersionMatch",
                            "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\""));
                }
            }
            if (sendInitialEvents != null) {
                errors.add(forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"));
            }
        }
        if (!errors.isEmpty()) {
            throw new ApiException(Statuses.invalid("meta.k8s.io", "ListOptions", "", errors));
        }
    }

    private static Statuses.FieldError forbidden(String field, String detail) {
        return new Statuses.FieldError("Forbidden", field, detail);
    }

    private static Statuses.FieldError unsupported(String field, String value, String supported) {
        return new Statuses.FieldError(
                "Unsupported value", field, "\"" + value.replace("\"", "\\\"") + "\": supported values: " + supported);
    }

    static boolean dryRun(Map<String, String> q) {
        String d = q.get("dryRun");
        if (d == null) {
            return false;
        }
        if (!d.equals("All")) {
            throw new ApiException(Statuses.badRequest("Invalid dry run value: " + d + " (only \"All\" is supported)"));
        }
        return true;
    }

    static int parseLimit(String value) {
        if (value == null || value.isEmpty()) {
            return 0;
        }
        long n = parseNonNegative("limit", value);
        return n > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) n;
    }

    static long parseNonNegative(String name, String value) {
        try {
            long n = Long.parseLong(value);
            if (n < 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new ApiException(
                    Statuses.badRequest("invalid " + name + " " + value + ": must be a non-negative " + "integer"));
        }
    }

    static long parseRevision(String rv) {
        try {
            long n = Long.parseLong(rv);
            if (n < 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new ApiException(Statuses.badRequest("invalid resource version: " + rv));
        }
    }

    /**
     * A resourceVersion as kube-apiserver parses it, an unsigned 64-bit number: one above {@link Long#MAX_VALUE}
     * (no revision of this store can reach it, as none can reach {@code Long.MAX_VALUE} itself) is {@code
     * Long.MAX_VALUE}; anything else that is not such a number is a 400.
     */
    static long parseUnsignedRevision(String rv) {
        try {
            if (rv.startsWith("+")) {
                throw new NumberFormatException(); // Go's ParseUint takes no sign
            }
            long n = Long.parseUnsignedLong(rv);
            return n < 0 ? Long.MAX_VALUE : n;
        } catch (NumberFormatException e) {
            throw new ApiException(Statuses.badRequest("invalid resource version: " + rv));
        }
    }

    /**
     * The objects a list, watch or deletecollection covers: null for all, else a test of their labels and
     * selectable fields.
     */
    static Predicate<ObjectNode> filter(ResourceType type, String labelSelector, String fieldSelector) {
        LabelSelector labels;
        try {
            labels = LabelSelector.parse(labelSelector == null ? "" : labelSelector);
        } catch (SelectorParseException e) {
            throw new ApiException(Statuses.badRequest(e.getMessage()));
        }
        FieldSelector fields = parseFieldSelector(type, fieldSelector == null ? "" : fieldSelector);
        if (labels.isEverything() && fields.isEverything()) {
            return null;
        }
        return object -> {
            JsonNode labelNode = object.path("metadata").path("labels");
            Map<String, String> map = new HashMap<>();
            labelNode.properties().forEach(e -> map.put(e.getKey(), e.getValue().asString()));
            return labels.matches(map)
                    && fields.matches(field -> SelectableFields.valueOf(type.plural(), type.group(), object, field));
        };
    }

    static Predicate<ObjectNode> filter(ResourceRequest request) {
        return filter(request.type(), request.param("labelSelector"), request.param("fieldSelector"));
    }

    static FieldSelector parseFieldSelector(ResourceType type, String value) {
        if (value == null || value.isEmpty()) {
            return FieldSelector.everything();
        }
        try {
            return SelectableFields.convert(type.plural(), type.group(), FieldSelector.parse(value));
        } catch (SelectorParseException e) {
            throw new ApiException(Statuses.badRequest(e.getMessage()));
        }
    }

    static ApiException methodNotAllowed() {
        return new ApiException(Statuses.failure(
                StatusReason.MethodNotAllowed, "the server does not allow this method on the requested resource"));
    }
}
