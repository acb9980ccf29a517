package io.kubeloop.apiserver.internal.http;

import com.sun.net.httpserver.HttpExchange;
import io.fabric8.kubernetes.api.model.Status;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Writes complete (non-streaming) responses with kube-apiserver's headers.
 *
 * <p>Resource answers ({@link #object}, {@link #status}) are negotiated: protobuf when the request's Accept allows
 * only protobuf and the answer's kind has a protobuf form ({@link Protobuf}), JSON otherwise. Discovery, OpenAPI
 * and the other documents ({@link #json}) are always JSON.
 */
final class Responses {

    static final String JSON = "application/json";

    private final JsonMapper json;
    private final Protobuf protobuf;

    Responses(JsonMapper json, Protobuf protobuf) {
        this.json = json;
        this.protobuf = protobuf;
    }

    void json(HttpExchange exchange, int code, JsonNode body) throws IOException {
        json(exchange, code, body, JSON);
    }

    /** An object, list or review of a resource endpoint: protobuf if the client accepts only that, else JSON. */
    void object(HttpExchange exchange, int code, JsonNode body) throws IOException {
        if (wantsProtobuf(exchange) && protobuf.supports(body)) {
            bytes(exchange, code, protobuf.encode(body), Protobuf.MEDIA_TYPE);
        } else {
            json(exchange, code, body, JSON);
        }
    }

    /**
     * An answer of a resource endpoint in the encoding {@link ResourceRequest#negotiated negotiated} for it: YAML,
     * protobuf when the body's kind has a protobuf form (else JSON), or JSON.
     */
    void object(ResourceRequest request, int code, JsonNode body) throws IOException {
        HttpExchange exchange = request.exchange();
        switch (request.negotiated().encoding()) {
            case YAML -> bytes(exchange, code, YAML.writeValueAsBytes(body), "application/yaml");
            case PROTOBUF -> {
                if (protobuf.supports(body)) {
                    bytes(exchange, code, protobuf.encode(body), Protobuf.MEDIA_TYPE);
                } else {
                    json(exchange, code, body, JSON);
                }
            }
            case JSON -> json(exchange, code, body, JSON);
        }
    }

    /** YAML with no document marker, as kube-apiserver writes it; strings stay quoted, so none reads as a number. */
    private static final tools.jackson.dataformat.yaml.YAMLMapper YAML =
            tools.jackson.dataformat.yaml.YAMLMapper.builder()
                    .disable(tools.jackson.dataformat.yaml.YAMLWriteFeature.WRITE_DOC_START_MARKER)
                    .build();

    /** Whether the request's Accept allows only protobuf answers. */
    static boolean wantsProtobuf(HttpExchange exchange) {
        return Protobuf.acceptsOnlyProtobuf(exchange.getRequestHeaders().getFirst("Accept"));
    }

    void json(HttpExchange exchange, int code, JsonNode body, String contentType) throws IOException {
        bytes(exchange, code, json.writeValueAsBytes(body), contentType);
    }

    /**
     * A Status object as the body, with its code as the HTTP status; negotiated as {@link #object}, except that a
     * 406 NotAcceptable is always JSON (it says the client's Accept cannot be served).
     */
    void status(HttpExchange exchange, Status status) throws IOException {
        if (status.getCode() != null && status.getCode() != 406 && wantsProtobuf(exchange)) {
            object(exchange, status.getCode(), json.valueToTree(status));
        } else {
            bytes(exchange, status.getCode(), json.writeValueAsBytes(status), JSON);
        }
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
        exchange.sendResponseHeaders(code, head ? -1 : body.length == 0 ? -1 : body.length);
        if (!head && body.length > 0) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
        exchange.close();
    }
}
