package io.kubeloop.apiserver.internal.exchange;

import com.sun.net.httpserver.HttpExchange;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Values that belong to one request, passed between the server's stages (its metric labels, its identity, its
 * open watch).
 *
 * <p>Not {@link HttpExchange#setAttribute}: the JDK server keeps exchange attributes in the HttpContext, so
 * every request on the context shares them, and one request's identity would leak into the next. Here each
 * exchange object has its own map.
 *
 * <p>Invariant: the server's front door calls {@link #release} once the exchange is closed, so no entry
 * outlives its request. {@code HttpExchange} does not override {@code equals}, so keys are compared by
 * identity.
 */
public final class ExchangeAttributes {

    private static final Map<HttpExchange, Map<String, Object>> VALUES = new ConcurrentHashMap<>();

    private ExchangeAttributes() {}

    public static void set(HttpExchange exchange, String name, Object value) {
        VALUES.computeIfAbsent(exchange, e -> new ConcurrentHashMap<>(4)).put(name, value);
    }

    /** The value, or null when none was set for this exchange. */
    public static Object get(HttpExchange exchange, String name) {
        Map<String, Object> values = VALUES.get(exchange);
        return values == null ? null : values.get(name);
    }

    /** Forgets everything set for {@code exchange}; called once per request, after it is answered. */
    public static void release(HttpExchange exchange) {
        VALUES.remove(exchange);
    }
}
