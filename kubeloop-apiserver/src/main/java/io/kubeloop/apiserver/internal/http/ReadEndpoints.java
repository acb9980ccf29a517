package io.kubeloop.apiserver.internal.http;

import com.sun.net.httpserver.HttpExchange;
import io.kubeloop.apiserver.internal.storage.ListResult;
import io.kubeloop.apiserver.internal.storage.Store;
import io.kubeloop.model.ResourceType;
import io.kubeloop.model.Statuses;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.function.Predicate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The read verbs: get (of an object or its {@code /scale}) and list, with kube-apiserver's resourceVersion,
 * resourceVersionMatch, selector and paging semantics (see the apiserver protocol reference §1.4–§1.6), answered
 * as JSON (streamed from each object's cached serialization), protobuf or a Table.
 */
final class ReadEndpoints {

    private final JsonMapper json;
    private final Store store;
    private final Responses responses;
    private final TableView tables;
    private final ServedObjects served;
    private final ServerExtensions extensions;

    ReadEndpoints(
            JsonMapper json,
            Store store,
            Responses responses,
            TableView tables,
            ServedObjects served,
            ServerExtensions extensions) {
        this.json = json;
        this.store = store;
        this.responses = responses;
        this.tables = tables;
        this.served = served;
        this.extensions = extensions;
    }

    /** A single object: its cached serialization when the answer is plain JSON, else a Table or protobuf. */
    void get(ResourceRequest request) throws IOException {
        HttpExchange exchange = request.exchange();
        ResourceType type = request.type();
        Map<String, String> q = request.query();
        Negotiated negotiated = request.negotiated();
        if (negotiated.view() == Negotiated.View.PARTIAL_LIST) {
            throw ServedObjects.partialMismatch(negotiated, type, extensions.isCustom(type), false);
        }
        ObjectNode stored = store.get(request.key());
        if (negotiated.view() == Negotiated.View.PARTIAL) {
            responses.object(request, 200, served.partial(negotiated.metaApiVersion(), stored));
            return;
        }
        if (negotiated.encoding() == Negotiated.Encoding.YAML) {
            responses.object(request, 200, served.served(type, stored));
            return;
        }
        if (request.wantsProtobuf() || tables.wantsTable(exchange, q)) {
            responses.object(exchange, 200, tables.object(exchange, q, type, served.served(type, stored)));
            return;
        }
        java.io.ByteArrayOutputStream body = new java.io.ByteArrayOutputStream(1024);
        served.writeServed(body, type, stored, served.servedApiVersion(type));
        responses.raw(exchange, 200, body.toByteArray(), Responses.JSON, null);
    }

    /** The {@code /scale} of an object, as an autoscaling/v1 Scale (or its Table). */
    void getScale(ResourceRequest request) throws IOException {
        ResourceType type = request.type();
        Negotiated negotiated = request.negotiated();
        if (negotiated.view() == Negotiated.View.PARTIAL_LIST) {
            throw ServedObjects.partialMismatch(negotiated, type, extensions.isCustom(type), false);
        }
        ObjectNode scale = Scale.of(json, type, store.get(request.key()), extensions.scalePaths(type));
        JsonNode answer = negotiated.view() == Negotiated.View.PARTIAL
                ? served.partial(negotiated.metaApiVersion(), scale)
                : tables.object(request.exchange(), request.query(), type, scale);
        responses.object(request, 200, answer);
    }

    void list(ResourceRequest request) throws IOException {
        HttpExchange exchange = request.exchange();
        ResourceType type = request.type();
        Map<String, String> q = request.query();
        QueryParameters.validateListOptions(q, false);
        if (request.negotiated().view() == Negotiated.View.PARTIAL) {
            throw ServedObjects.partialMismatch(request.negotiated(), type, extensions.isCustom(type), true);
        }
        Predicate<ObjectNode> filter = QueryParameters.filter(request);
        int limit = QueryParameters.parseLimit(q.get("limit"));
        String rv = q.get("resourceVersion");
        String rvm = q.get("resourceVersionMatch");
        String cont = q.get("continue");
        long atRevision = 0;
        String start = null;
        if (cont != null && !cont.isEmpty()) {
            if (rv != null && !rv.isEmpty() && !rv.equals("0")) {
                throw new ApiException(
                        Statuses.badRequest("specifying resource version is not allowed when using " + "continue"));
            }
            ContinueToken token = ContinueToken.decode(json, cont);
            atRevision = token.revision();
            start = token.start();
        } else if (rv != null && !rv.isEmpty() && !rv.equals("0")) {
            long n = QueryParameters.parseRevision(rv);
            boolean exact = "Exact".equals(rvm) || ((rvm == null || rvm.isEmpty()) && limit > 0);
            if (exact) {
                atRevision = n;
            } else if (n > store.currentRevision()) {
                atRevision = n; // the store answers 504 Too large resource version
            }
        }
        ListResult result;
        try {
            result = store.list(
                    type.group(), type.plural(), request.namespaceFilter(), atRevision, filter, limit, start);
        } catch (IllegalArgumentException badContinueKey) {
            throw new ApiException(Statuses.badRequest("continue key is not valid: " + badContinueKey.getMessage()));
        }
        String continueToken =
                result.hasMore() ? new ContinueToken(result.revision(), result.continueKey()).encode(json) : null;
        Negotiated negotiated = request.negotiated();
        if (negotiated.partial()) {
            ObjectNode list = listTree(type, result, continueToken);
            list.put("kind", "PartialObjectMetadataList");
            list.put("apiVersion", negotiated.metaApiVersion());
            ArrayNode items = (ArrayNode) list.get("items");
            result.items().forEach(item -> items.add(served.partial(negotiated.metaApiVersion(), item)));
            responses.object(request, 200, list);
            return;
        }
        if (negotiated.encoding() == Negotiated.Encoding.YAML) {
            ObjectNode list = listTree(type, result, continueToken);
            ArrayNode items = (ArrayNode) list.get("items");
            result.items().forEach(item -> items.add(served.served(type, item)));
            responses.object(request, 200, list);
            return;
        }
        if (!tables.wantsTable(exchange, q)) {
            streamList(request, result, continueToken);
            return;
        }
        ObjectNode list = listTree(type, result, continueToken);
        ArrayNode items = (ArrayNode) list.get("items");
        result.items().forEach(item -> items.add(served.served(type, item))); // the printers only read them
        responses.object(exchange, 200, tables.list(exchange, q, type, list));
    }

    /**
     * Writes a list straight from the store's objects to the socket, item by item: the response is never built as
     * one tree or string, so a list of 100,000 pods costs a buffer, not a second copy of the pods. Each item is
     * its cached serialization ({@link SerializedObjects}), so a list serializes only objects no list or watch
     * has sent since they were written. Built-in items omit {@code apiVersion} and {@code kind}, as
     * kube-apiserver's do; custom resource items keep both, with the apiVersion of the version served, as
     * kube-apiserver's do.
     */
    private void streamList(ResourceRequest request, ListResult result, String continueToken) throws IOException {
        HttpExchange exchange = request.exchange();
        ResourceType type = request.type();
        if (request.wantsProtobuf()) {
            protobufList(exchange, type, result, continueToken);
            return;
        }
        exchange.getResponseHeaders().set("Content-Type", Responses.JSON);
        exchange.getResponseHeaders().set("Cache-Control", "no-cache, private");
        if (exchange.getRequestMethod().equals("HEAD")) {
            exchange.sendResponseHeaders(200, -1);
            return;
        }
        exchange.sendResponseHeaders(200, 0); // chunked
        // The list's head is what the mapper writes for listTree without items, less its closing brace: the items
        // field comes last, so the body is byte for byte the mapper's serialization of the whole list tree.
        ObjectNode head = listTree(type, result, continueToken);
        head.remove("items");
        byte[] headBytes = json.writeValueAsBytes(head);
        byte[] customApiVersion = extensions.isCustom(type) ? served.servedApiVersion(type) : null;
        try (OutputStream out = new java.io.BufferedOutputStream(exchange.getResponseBody(), 64 * 1024)) {
            out.write(headBytes, 0, headBytes.length - 1);
            out.write(ITEMS_START);
            boolean first = true;
            for (ObjectNode item : result.items()) {
                if (!first) {
                    out.write(',');
                }
                if (customApiVersion == null) {
                    served.serialized().of(item).writeListItemTo(out);
                } else {
                    served.writeServed(out, type, item, customApiVersion);
                }
                first = false;
            }
            out.write(LIST_END);
        }
    }

    private static final byte[] ITEMS_START = ",\"items\":[".getBytes(StandardCharsets.UTF_8);
    private static final byte[] LIST_END = "]}".getBytes(StandardCharsets.UTF_8);

    /** A list's kind, apiVersion and metadata (resourceVersion, continue, remainingItemCount), with no items yet. */
    private ObjectNode listTree(ResourceType type, ListResult result, String continueToken) {
        ObjectNode list = json.createObjectNode();
        list.put("kind", type.listKind());
        list.put("apiVersion", type.gvk().apiVersion());
        ObjectNode meta = list.putObject("metadata");
        meta.put("resourceVersion", Long.toString(result.revision()));
        if (continueToken != null) {
            meta.put("continue", continueToken);
            if (result.remainingCount() >= 0) {
                meta.put("remainingItemCount", result.remainingCount());
            }
        }
        list.putArray("items");
        return list;
    }

    /**
     * A list in protobuf: built as one tree whose items are the store's objects themselves (not copies), then
     * encoded whole, since a protobuf message is length-prefixed and cannot be streamed item by item.
     */
    private void protobufList(HttpExchange exchange, ResourceType type, ListResult result, String continueToken)
            throws IOException {
        ObjectNode list = listTree(type, result, continueToken);
        ArrayNode items = (ArrayNode) list.get("items");
        result.items().forEach(items::add);
        responses.object(exchange, 200, list);
    }
}
