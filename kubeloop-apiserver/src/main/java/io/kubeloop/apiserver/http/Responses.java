package io.kubeloop.apiserver.http;

import com.sun.net.httpserver.HttpExchange;
import io.fabric8.kubernetes.api.model.Status;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Writes complete (non-streaming) responses with kube-apiserver's headers. */
final class Responses {

    static final String JSON = "application/json";

    private final JsonMapper json;

    Responses(JsonMapper json) {
        this.json = json;
    }

    void json(HttpExchange exchange, int code, JsonNode body) throws IOException {
        json(exchange, code, body, JSON);
    }

    void json(HttpExchange exchange, int code, JsonNode body, String contentType) throws IOException {
        bytes(exchange, code, json.writeValueAsBytes(body), contentType);
    }

    /** A Status object as the body, with its code as the HTTP status. */
    void status(HttpExchange exchange, Status status) throws IOException {
        bytes(exchange, status.getCode(), json.writeValueAsBytes(status), JSON);
    }

    /** A pre-serialized body; {@code cacheControl} null means kube-apiserver's default (no caching). */
    void raw(HttpExchange exchange, int code, byte[] body, String contentType, String cacheControl) throws IOException {
        if (cacheControl != null) {
            exchange.getResponseHeaders().set("Cache-Control", cacheControl);
            exchange.getResponseHeaders().set("Expires", "Thu, 01 Jan 2099 00:00:00 GMT");
        }
        bytes(exchange, code, body, contentType);
    }

    void text(HttpExchange exchange, int code, String body, String contentType) throws IOException {
        exchange.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
        bytes(exchange, code, body.getBytes(StandardCharsets.UTF_8), contentType);
    }

    private static void bytes(HttpExchange exchange, int code, byte[] body, String contentType) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", contentType);
        if (!exchange.getResponseHeaders().containsKey("Cache-Control")) {
            exchange.getResponseHeaders().set("Cache-Control", "no-cache, private");
        }
        boolean head = exchange.getRequestMethod().equals("HEAD");
        io.kubeloop.apiserver.exchange.UnreadRequestBody.discard(exchange); // keeps the connection usable
        exchange.sendResponseHeaders(code, head ? -1 : body.length == 0 ? -1 : body.length);
        if (!head && body.length > 0) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
        exchange.close();
    }
}
