package io.kubeloop.apiserver.internal.http;

import com.sun.net.httpserver.HttpExchange;
import io.fabric8.kubernetes.api.model.Status;
import io.kubeloop.apiserver.AdminEndpoint;
import io.kubeloop.apiserver.internal.auth.RequestUser;
import io.kubeloop.apiserver.internal.auth.UserInfo;
import io.kubeloop.model.StatusReason;
import io.kubeloop.model.Statuses;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.regex.Pattern;
import tools.jackson.databind.json.JsonMapper;

/**
 * The {@link AdminEndpoint}s the server was built with, each under {@code /kubeloop/<name>}: the HTTP around them.
 * Only the administrator ({@link UserInfo#isAdmin()}) reaches an endpoint, as for the fault admin path; an
 * endpoint's exceptions become kube Status answers (400, 404, 405), and its answer is sent as JSON with 200.
 *
 * <p>Invariant: the set of endpoints is fixed when the server starts, so routing reads an immutable map.
 */
public final class AdminEndpoints {

    /** The prefix of every admin path. */
    public static final String PREFIX = "/kubeloop/";

    /** What an endpoint may be called: a DNS-label-like word, so that it is one path segment. */
    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9-]*");

    /** Names the server itself serves. */
    private static final java.util.Set<String> RESERVED = java.util.Set.of("faults");

    public static final AdminEndpoints NONE = new AdminEndpoints(Map.of());

    private final Map<String, AdminEndpoint> endpoints;
    private final JsonMapper json = JsonMapper.builder().build();

    private AdminEndpoints(Map<String, AdminEndpoint> endpoints) {
        this.endpoints = Map.copyOf(endpoints);
    }

    /** The endpoints by name; names must have been {@linkplain #checkName checked}. */
    public static AdminEndpoints of(Map<String, AdminEndpoint> endpoints) {
        return new AdminEndpoints(endpoints);
    }

    /**
     * Checks that {@code name} can name an admin endpoint.
     *
     * @throws IllegalArgumentException naming the rule it breaks
     */
    public static void checkName(String name) {
        Objects.requireNonNull(name, "name");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("an admin endpoint's name must match [a-z][a-z0-9-]* (it is one path "
                    + "segment under /kubeloop/), was \"" + name + "\"");
        }
        if (RESERVED.contains(name)) {
            throw new IllegalArgumentException(
                    "the admin endpoint name \"" + name + "\" is taken: the server serves /kubeloop/" + name);
        }
    }

    /** The endpoint's name if {@code path} (without a trailing slash) is at or below one of them, else null. */
    String nameOf(String path) {
        if (!path.startsWith(PREFIX)) {
            return null;
        }
        int end = path.indexOf('/', PREFIX.length());
        String name = end < 0 ? path.substring(PREFIX.length()) : path.substring(PREFIX.length(), end);
        return endpoints.containsKey(name) ? name : null;
    }

    /** Serves a request to the endpoint {@code name} ({@link #nameOf} of {@code path}). */
    void serve(HttpExchange exchange, String name, String path, Responses responses) throws IOException {
        UserInfo user = RequestUser.of(exchange);
        if (!user.isAdmin()) {
            status(
                    exchange,
                    responses,
                    Statuses.failure(
                            StatusReason.Forbidden,
                            "forbidden: User \"" + user.name() + "\" cannot use the admin API " + PREFIX + name
                                    + ": it is for members of " + UserInfo.SYSTEM_MASTERS));
            return;
        }
        String subpath = path.substring(PREFIX.length() + name.length());
        String body;
        Map<String, String> query;
        try {
            body = new String(RequestBody.read(exchange), StandardCharsets.UTF_8);
            query = query(exchange.getRequestURI().getRawQuery());
        } catch (ApiException refused) { // too large a body, a query that does not decode
            status(exchange, responses, refused.status());
            return;
        }
        String answer;
        try {
            answer = endpoints.get(name).handle(exchange.getRequestMethod(), subpath, query, body);
        } catch (IllegalArgumentException e) {
            status(exchange, responses, Statuses.badRequest(message(e, "bad request")));
            return;
        } catch (NoSuchElementException e) {
            status(exchange, responses, Statuses.failure(StatusReason.NotFound, message(e, "not found")));
            return;
        } catch (UnsupportedOperationException e) {
            status(
                    exchange,
                    responses,
                    Statuses.failure(
                            StatusReason.MethodNotAllowed,
                            message(e, "the server does not allow this method on the requested resource")));
            return;
        }
        if (answer == null) {
            throw new IllegalStateException(
                    "the admin endpoint " + PREFIX + name + " answered null, not a JSON " + "document");
        }
        responses.raw(exchange, 200, answer.getBytes(StandardCharsets.UTF_8), Responses.JSON, null);
    }

    private static String message(RuntimeException e, String otherwise) {
        return e.getMessage() == null || e.getMessage().isBlank() ? otherwise : e.getMessage();
    }

    private void status(HttpExchange exchange, Responses responses, Status status) throws IOException {
        responses.raw(exchange, status.getCode(), json.writeValueAsBytes(status), Responses.JSON, null);
    }

    /** The decoded query parameters, first value wins. */
    static Map<String, String> query(String rawQuery) {
        Map<String, String> out = new LinkedHashMap<>();
        if (rawQuery == null || rawQuery.isEmpty()) {
            return out;
        }
        for (String pair : rawQuery.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String key = decode(eq < 0 ? pair : pair.substring(0, eq));
            String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
            out.putIfAbsent(key, value);
        }
        return out;
    }

    private static String decode(String s) {
        try {
            return URLDecoder.decode(s, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException bad) {
            throw new ApiException(Statuses.badRequest("invalid query: " + bad.getMessage()));
        }
    }
}
