package io.kubeloop.apiserver.fault;

import com.sun.net.httpserver.HttpExchange;
import io.fabric8.kubernetes.api.model.Status;
import io.kubeloop.apiserver.internal.auth.RequestUser;
import io.kubeloop.apiserver.internal.auth.UserInfo;
import io.kubeloop.model.StatusReason;
import io.kubeloop.model.Statuses;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The admin HTTP API under {@code /kubeloop/faults}: JSON in, JSON out, errors as kube Status objects (400 names
 * the field that was wrong). Only an admin identity ({@link UserInfo#isAdmin()}) may use it; with
 * authentication off every request is the admin.
 */
final class FaultAdmin {

    private static final int MAX_BODY = 64 * 1024;

    private final Faults faults;
    private final JsonMapper json;

    FaultAdmin(Faults faults, JsonMapper json) {
        this.faults = faults;
        this.json = json;
    }

    JsonMapper json() {
        return json;
    }

    void serve(HttpExchange exchange, String path) throws IOException {
        UserInfo user = RequestUser.of(exchange);
        if (!user.isAdmin()) {
            send(
                    exchange,
                    json,
                    Statuses.failure(
                            StatusReason.Forbidden,
                            "forbidden: User \"" + user.name()
                                    + "\" cannot use the fault injection API: it is for members of "
                                    + UserInfo.SYSTEM_MASTERS));
            return;
        }
        String action =
                path.equals(FaultInjector.ADMIN_PATH) ? "" : path.substring(FaultInjector.ADMIN_PATH.length() + 1);
        String method = exchange.getRequestMethod();
        try {
            switch (action) {
                case "" -> {
                    switch (method) {
                        case "GET" -> ok(exchange, status());
                        case "DELETE" -> ok(exchange, json.createObjectNode().put("cleared", faults.clear()));
                        default -> send(exchange, json, methodNotAllowed());
                    }
                }
                case "close-watches", "fail", "latency", "partition", "stall", "compact" -> {
                    if (!method.equals("POST")) {
                        send(exchange, json, methodNotAllowed());
                        return;
                    }
                    ok(exchange, start(action, new Body(readBody(exchange))));
                }
                default -> send(exchange, json, Statuses.routeNotFound());
            }
        } catch (IllegalArgumentException bad) {
            send(exchange, json, Statuses.badRequest(bad.getMessage()));
        }
    }

    private ObjectNode start(String action, Body b) {
        ObjectNode out = json.createObjectNode();
        switch (action) {
            case "close-watches" -> {
                b.allow("resource");
                out.put("closed", faults.closeWatches(b.string("resource")));
            }
            case "compact" -> {
                b.allow();
                out.put("compactedRevision", faults.compact());
            }
            case "fail" -> {
                b.allow("code", "count", "fraction", "seconds", "retryAfterSeconds", "resource", "verb");
                Integer code = b.integer("code");
                if (code == null) {
                    throw new IllegalArgumentException("code is required: 429, 500 or 503");
                }
                Failure f = Failure.status(code);
                Integer count = b.integer("count");
                f = count == null ? f : f.count(count);
                Double fraction = b.number("fraction");
                f = fraction == null ? f : f.fraction(fraction);
                Duration d = b.seconds("seconds", false);
                f = d == null ? f : f.duration(d);
                Integer retry = b.integer("retryAfterSeconds");
                f = retry == null ? f : f.retryAfterSeconds(retry);
                String resource = b.string("resource");
                f = resource == null ? f : f.resource(resource);
                String verb = b.string("verb");
                f = verb == null ? f : f.verb(verb);
                faults.fail(f);
                out.set("started", describe("fail", f.describe()));
            }
            case "latency" -> {
                b.allow("millis", "jitterMillis", "seconds", "resource", "verb");
                Integer millis = b.integer("millis");
                if (millis == null) {
                    throw new IllegalArgumentException("millis is required: the latency to add, in milliseconds");
                }
                Latency l = Latency.of(Duration.ofMillis(millis));
                Integer jitter = b.integer("jitterMillis");
                l = jitter == null ? l : l.jitter(Duration.ofMillis(jitter));
                Duration d = b.seconds("seconds", false);
                l = d == null ? l : l.duration(d);
                String resource = b.string("resource");
                l = resource == null ? l : l.resource(resource);
                String verb = b.string("verb");
                l = verb == null ? l : l.verb(verb);
                faults.latency(l);
                out.set("started", describe("latency", l.describe()));
            }
            case "partition" -> {
                b.allow("seconds", "userAgent");
                Duration d = b.seconds("seconds", true);
                faults.partition(d, b.string("userAgent"));
                out.set(
                        "started",
                        json.createObjectNode().put("fault", "partition").setAll(b.node));
            }
            case "stall" -> {
                b.allow("seconds", "resource");
                Duration d = b.seconds("seconds", true);
                faults.stall(d, b.string("resource"));
                out.set("started", json.createObjectNode().put("fault", "stall").setAll(b.node));
            }
            default -> throw new IllegalStateException(action);
        }
        return out;
    }

    private ObjectNode status() {
        ObjectNode out = json.createObjectNode();
        out.put("seed", faults.seed());
        ArrayNode list = out.putArray("faults");
        for (ActiveFault f : faults.active()) {
            list.add(describe(f.fault(), f.settings()));
        }
        return out;
    }

    private ObjectNode describe(String fault, java.util.Map<String, Object> settings) {
        ObjectNode node = json.createObjectNode().put("fault", fault);
        settings.forEach((k, v) -> node.set(k, json.valueToTree(v)));
        return node;
    }

    /** A request body: a JSON object (empty when absent) whose fields are read with checks that name them. */
    private final class Body {
        final ObjectNode node;

        Body(byte[] bytes) {
            if (bytes.length == 0) {
                node = json.createObjectNode();
                return;
            }
            JsonNode parsed;
            try {
                parsed = json.readTree(bytes);
            } catch (JacksonException e) {
                throw new IllegalArgumentException("the body is not valid JSON: " + e.getOriginalMessage());
            }
            if (parsed == null || parsed.isMissingNode()) {
                node = json.createObjectNode();
            } else if (parsed instanceof ObjectNode o) {
                node = o;
            } else {
                throw new IllegalArgumentException("the body must be a JSON object");
            }
        }

        void allow(String... fields) {
            Set<String> allowed = Set.of(fields);
            for (String name : node.propertyNames()) {
                if (!allowed.contains(name)) {
                    throw new IllegalArgumentException("unknown field \"" + name + "\""
                            + (fields.length == 0 ? ": this fault takes no fields" : "; allowed: " + List.of(fields)));
                }
            }
        }

        Integer integer(String field) {
            return typed(field, v -> v.isIntegralNumber() && v.canConvertToInt(), "an integer", JsonNode::asInt);
        }

        Double number(String field) {
            return typed(field, JsonNode::isNumber, "a number", JsonNode::asDouble);
        }

        String string(String field) {
            return typed(field, JsonNode::isString, "a string", JsonNode::asString);
        }

        /** The field's value, null when absent or null; one of another type is a bad request naming the field. */
        private <T> T typed(String field, Predicate<JsonNode> isType, String type, Function<JsonNode, T> value) {
            JsonNode v = node.get(field);
            if (v == null || v.isNull()) {
                return null;
            }
            if (!isType.test(v)) {
                throw new IllegalArgumentException(field + " must be " + type + ", was " + v);
            }
            return value.apply(v);
        }

        Duration seconds(String field, boolean required) {
            Double s = number(field);
            if (s == null) {
                if (required) {
                    throw new IllegalArgumentException(field + " is required: how long the fault lasts, in seconds");
                }
                return null;
            }
            if (!(s > 0) || s > 365 * 24 * 3600) {
                throw new IllegalArgumentException(
                        field + " must be a positive number of seconds up to a year, was " + node.get(field));
            }
            return Duration.ofNanos((long) (s * 1e9));
        }
    }

    private static Status methodNotAllowed() {
        return Statuses.failure(
                StatusReason.MethodNotAllowed, "the server does not allow this method on the requested resource");
    }

    private void ok(HttpExchange exchange, ObjectNode body) throws IOException {
        write(exchange, 200, json.writeValueAsBytes(body));
    }

    static void send(HttpExchange exchange, JsonMapper json, Status status) throws IOException {
        write(exchange, status.getCode(), json.writeValueAsBytes(status));
    }

    private static void write(HttpExchange exchange, int code, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.getResponseHeaders().set("Cache-Control", "no-cache, private");
        boolean head = exchange.getRequestMethod().equals("HEAD");
        exchange.sendResponseHeaders(code, head ? -1 : body.length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
        exchange.close();
    }

    private static byte[] readBody(HttpExchange exchange) throws IOException {
        try (InputStream in = exchange.getRequestBody()) {
            byte[] body = in.readNBytes(MAX_BODY + 1);
            if (body.length > MAX_BODY) {
                throw new IllegalArgumentException("the body is larger than " + MAX_BODY + " bytes");
            }
            return body;
        }
    }
}
