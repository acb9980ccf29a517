package io.kubeloop.apiserver.internal.http;

import com.sun.net.httpserver.HttpExchange;
import io.kubeloop.apiserver.internal.table.TableOptions;
import io.kubeloop.apiserver.internal.table.Tables;
import io.kubeloop.clock.Clock;
import io.kubeloop.model.ResourceType;
import io.kubeloop.model.Statuses;
import java.util.Map;
import java.util.function.UnaryOperator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Content negotiation for server-side tables: a get, list or watch answers a {@code meta.k8s.io} Table when the
 * first Accept range this server can serve is {@code application/json;as=Table;v=v1;g=meta.k8s.io} (or
 * {@code v1beta1}); plain JSON otherwise. Content-Type stays {@code application/json} either way.
 * {@code includeObject} is read only for Tables; a bad value is 400 BadRequest.
 */
final class TableView {

    private final Tables tables;

    TableView(
            JsonMapper json,
            Clock clock,
            java.util.function.Function<
                            ResourceType, java.util.List<io.kubeloop.apiserver.internal.table.PrinterColumn>>
                    custom) {
        this.tables = new Tables(json, clock, custom);
    }

    /** Whether this request gets a Table rather than plain JSON (throws 400 for a bad includeObject). */
    boolean wantsTable(HttpExchange exchange, Map<String, String> query) {
        return options(exchange, query) != null;
    }

    /** The list body, or its Table. */
    JsonNode list(HttpExchange exchange, Map<String, String> query, ResourceType type, ObjectNode list) {
        TableOptions options = options(exchange, query);
        return options == null ? list : tables.ofList(type, list, options);
    }

    /** A single object (or its {@code /scale}), or its Table. */
    JsonNode object(HttpExchange exchange, Map<String, String> query, ResourceType type, ObjectNode object) {
        TableOptions options = options(exchange, query);
        return options == null ? object : tables.ofObject(type, object, options, true);
    }

    /**
     * The transformer of a watch's event objects: identity for plain JSON, one-row Tables (headers on the
     * first event only) for a Table Accept. Call before the response starts, so that a bad request is a 400.
     */
    UnaryOperator<ObjectNode> watch(HttpExchange exchange, Map<String, String> query, ResourceType type) {
        TableOptions options = options(exchange, query);
        return options == null ? UnaryOperator.identity() : tables.forWatch(type, options);
    }

    /** The Table options of the request, or null when it gets plain JSON. */
    private static TableOptions options(HttpExchange exchange, Map<String, String> query) {
        String version = tableVersion(exchange.getRequestHeaders().getFirst("Accept"));
        if (version == null) {
            return null;
        }
        try {
            return TableOptions.of(version, query.get("includeObject"));
        } catch (IllegalArgumentException e) {
            throw new ApiException(Statuses.badRequest(e.getMessage()));
        }
    }

    /**
     * {@code v1} or {@code v1beta1} when the first servable Accept range is a Table; null when it is plain JSON
     * (or nothing servable is named: this server then answers JSON, as before tables existed).
     */
    static String tableVersion(String accept) {
        for (MediaType range : MediaType.parseAccept(accept)) {
            for (String version : new String[] {"v1", "v1beta1"}) {
                if (range.isJsonAs("Table", "meta.k8s.io", version)) {
                    return version;
                }
            }
            if (range.acceptsPlainJson()) {
                return null;
            }
        }
        return null;
    }
}
