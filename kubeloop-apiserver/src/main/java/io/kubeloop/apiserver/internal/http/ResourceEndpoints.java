package io.kubeloop.apiserver.internal.http;

import com.sun.net.httpserver.HttpExchange;
import io.kubeloop.apiserver.fault.FaultInjector;
import io.kubeloop.apiserver.internal.crd.CustomResources;
import io.kubeloop.apiserver.internal.crd.RejectedException;
import io.kubeloop.apiserver.internal.exchange.ExchangeAttributes;
import io.kubeloop.apiserver.internal.lifecycle.DeleteOptions;
import io.kubeloop.apiserver.internal.lifecycle.LifecycleException;
import io.kubeloop.apiserver.internal.lifecycle.ObjectLifecycle;
import io.kubeloop.apiserver.internal.patch.ManagedFields;
import io.kubeloop.apiserver.internal.patch.PatchSchema;
import io.kubeloop.apiserver.internal.protobuf.ProtobufCodec;
import io.kubeloop.apiserver.internal.protobuf.ProtobufException;
import io.kubeloop.apiserver.internal.registry.Admission;
import io.kubeloop.apiserver.internal.registry.AdmissionException;
import io.kubeloop.apiserver.internal.registry.Bodies;
import io.kubeloop.apiserver.internal.registry.FieldValidation;
import io.kubeloop.apiserver.internal.registry.Strategies;
import io.kubeloop.apiserver.internal.registry.Warnings;
import io.kubeloop.apiserver.internal.registry.WriteOptions;
import io.kubeloop.apiserver.internal.storage.ListResult;
import io.kubeloop.apiserver.internal.storage.StorageException;
import io.kubeloop.apiserver.internal.storage.StorageKey;
import io.kubeloop.apiserver.internal.storage.Store;
import io.kubeloop.apiserver.internal.storage.StoreEvent;
import io.kubeloop.apiserver.internal.storage.StoreWatch;
import io.kubeloop.clock.Clock;
import io.kubeloop.model.ResourceRegistry;
import io.kubeloop.model.ResourceType;
import io.kubeloop.model.StatusReason;
import io.kubeloop.model.Statuses;
import io.kubeloop.model.selector.FieldSelector;
import io.kubeloop.model.selector.LabelSelector;
import io.kubeloop.model.selector.SelectableFields;
import io.kubeloop.model.selector.SelectorParseException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The verbs on resources: get, list, watch, create, update, delete and deletecollection, on the main
 * resource and its {@code status} subresource, with kube-apiserver's resourceVersion, selector, paging and
 * error semantics (see the apiserver protocol reference §1.4–§1.7).
 */
final class ResourceEndpoints {

    /** Events a watcher may fall behind before its watch is closed. */
    static final int WATCH_BUFFER = 1000;

    private final JsonMapper json;
    private final Store store;
    private final ServiceAddresses serviceAddresses;
    private final Clock clock;
    private final Responses responses;
    private final Supplier<ResourceRegistry> registry;
    private final TableView tables;
    /** Stored objects as JSON, serialized once for every list, watch and GET that sends them. */
    private final SerializedObjects serialized;

    private final ApiServerMetrics metrics;
    private final Duration bookmarkInterval;
    /** Custom resources (null: none are served); set once before the server starts. */
    private volatile CustomResources crds;

    private final ObjectLifecycle lifecycle;
    private final Protobuf protobuf;
    private final Admission admission = new Admission(Strategies.builtIn());
    private final Bodies bodies;

    ResourceEndpoints(
            JsonMapper json,
            Store store,
            Clock clock,
            Supplier<ResourceRegistry> registry,
            ApiServerMetrics metrics,
            Duration bookmarkInterval,
            ObjectLifecycle lifecycle,
            Protobuf protobuf) {
        this.lifecycle = lifecycle;
        this.protobuf = protobuf;
        this.metrics = metrics;
        this.bookmarkInterval = bookmarkInterval;
        this.json = json;
        this.store = store;
        this.serviceAddresses = new ServiceAddresses(store);
        this.clock = clock;
        this.registry = registry;
        this.responses = new Responses(json, protobuf);
        this.tables = new TableView(json, clock, type -> crds == null ? null : crds.printerColumns(type));
        this.serialized = new SerializedObjects(json);
        this.bodies = new Bodies(json);
    }

    void customResources(CustomResources crds) {
        this.crds = crds;
    }

    private volatile FaultInjector faults;

    void faults(FaultInjector injector) {
        this.faults = injector;
    }

    void handle(HttpExchange exchange, RequestInfo info, ResourceType type) throws IOException {
        try {
            dispatch(exchange, info, type);
        } catch (ApiException e) {
            responses.status(exchange, e.status());
        } catch (StorageException e) {
            responses.object(exchange, e.code(), e.toStatus());
        } catch (RejectedException e) {
            responses.status(exchange, e.status());
        } catch (LifecycleException e) {
            responses.status(exchange, e.status());
        } catch (AdmissionException e) {
            responses.status(exchange, e.status());
        }
    }

    private void dispatch(HttpExchange exchange, RequestInfo info, ResourceType type) throws IOException {
        Map<String, String> query = query(exchange);
        String method = exchange.getRequestMethod();
        ApiServerMetrics.RequestLabels labels =
                (ApiServerMetrics.RequestLabels) ExchangeAttributes.get(exchange, ApiHttpHandler.LABELS);
        boolean watching = info.legacyWatch() || "true".equals(query.get("watch")) || "1".equals(query.get("watch"));
        labels.verb = switch (method) {
            case "GET", "HEAD" -> watching ? "WATCH" : info.isCollection() ? "LIST" : "GET";
            case "DELETE" -> info.isCollection() ? "DELETECOLLECTION" : "DELETE";
            case "PATCH" ->
                "application/apply-patch+yaml"
                                .equals(exchange.getRequestHeaders().getFirst("Content-Type"))
                        ? "APPLY"
                        : "PATCH";
            default -> method;
        };
        FaultInjector injector = faults;
        io.fabric8.kubernetes.api.model.Status injected = injector == null
                ? null
                : injector.beforeResourceRequest(exchange, type.group(), type.plural(), labels.verb);
        if (injected != null) {
            throw new ApiException(injected);
        }
        boolean allNamespacesRead = info.isCollection() && (method.equals("GET") || method.equals("HEAD"));
        if ((!type.namespaced() && !info.namespace().isEmpty())
                || (type.namespaced() && info.namespace().isEmpty() && !allNamespacesRead)) {
            throw new ApiException(Statuses.routeNotFound());
        }
        String sub = info.subresource();
        if (!sub.isEmpty()
                && !(sub.equals("status") && type.hasStatus())
                && !(sub.equals("scale") && type.hasScale())) {
            throw new ApiException(Statuses.routeNotFound());
        }
        if (Responses.wantsProtobuf(exchange)
                && protobuf.refusesProtobufOnly(answerApiVersion(info, type), answerKind(info, type))) {
            throw new ApiException(Protobuf.notAcceptable()); // custom resources and CRDs
        }
        boolean watch = info.legacyWatch() || "true".equals(query.get("watch")) || "1".equals(query.get("watch"));
        if (info.isCollection()) {
            switch (method) {
                case "GET", "HEAD" -> {
                    if (watch) {
                        watch(exchange, info, type, query, null);
                    } else {
                        list(exchange, info, type, query);
                    }
                }
                case "POST" -> create(exchange, info, type, query);
                case "DELETE" -> deleteCollection(exchange, info, type, query);
                default -> throw methodNotAllowed();
            }
            return;
        }
        switch (method) {
            case "GET", "HEAD" -> {
                if (watch) {
                    watch(exchange, info, type, query, info.name());
                } else if (sub.equals("scale")) {
                    responses.object(
                            exchange,
                            200,
                            tables.object(
                                    exchange,
                                    query,
                                    type,
                                    Scale.of(json, type, store.get(key(info, type)), scalePaths(type))));
                } else {
                    get(exchange, type, query, store.get(key(info, type)));
                }
            }
            case "PUT" -> {
                if (sub.equals("scale")) {
                    scale(exchange, info, type, query, null);
                } else {
                    update(exchange, info, type, query);
                }
            }
            case "PATCH" -> {
                Patches patchType = Patches.of(exchange.getRequestHeaders().getFirst("Content-Type"));
                if (patchType == Patches.STRATEGIC_MERGE_PATCH && crds != null && crds.isCustom(type)) {
                    throw new ApiException(
                            Statuses.failure(
                                    StatusReason.UnsupportedMediaType,
                                    "the body of the "
                                            + "request was in an unknown format - accepted media types include: "
                                            + "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"));
                }
                if (sub.equals("scale")) {
                    scale(exchange, info, type, query, patchType);
                } else {
                    patch(exchange, info, type, query, patchType);
                }
            }
            case "DELETE" -> {
                if (!sub.isEmpty()) {
                    throw methodNotAllowed();
                }
                delete(exchange, info, type, query);
            }
            default -> throw methodNotAllowed();
        }
    }

    // ---- reads

    /** A single object: its cached serialization when the answer is plain JSON, else a Table or protobuf. */
    private void get(HttpExchange exchange, ResourceType type, Map<String, String> q, ObjectNode stored)
            throws IOException {
        if (Responses.wantsProtobuf(exchange) || tables.wantsTable(exchange, q)) {
            responses.object(exchange, 200, tables.object(exchange, q, type, served(type, stored)));
            return;
        }
        java.io.ByteArrayOutputStream body = new java.io.ByteArrayOutputStream(1024);
        writeServed(body, type, stored, servedApiVersion(type));
        responses.raw(exchange, 200, body.toByteArray(), Responses.JSON, null);
    }

    /**
     * Writes {@code stored} as {@link #served} gives it, from its cached serialization: as stored, or with
     * {@code apiVersionField} (what {@link #servedApiVersion} gives for {@code type}) in place of its apiVersion.
     */
    private void writeServed(OutputStream out, ResourceType type, ObjectNode stored, byte[] apiVersionField)
            throws IOException {
        SerializedObject object = serialized.of(stored);
        if (servedAsStored(type, stored)) {
            object.writeTo(out);
        } else {
            object.writeTo(out, apiVersionField);
        }
    }

    private void list(HttpExchange exchange, RequestInfo info, ResourceType type, Map<String, String> q)
            throws IOException {
        Predicate<ObjectNode> filter = filter(type, q);
        int limit = parseLimit(q.get("limit"));
        String rv = q.get("resourceVersion");
        String rvm = q.get("resourceVersionMatch");
        String cont = q.get("continue");
        if (rvm != null && !rvm.isEmpty() && (rv == null || rv.isEmpty())) {
            throw new ApiException(invalidListOptions("resourceVersionMatch: Forbidden: resourceVersionMatch is "
                    + "forbidden unless resourceVersion is provided"));
        }
        long atRevision = 0;
        String start = null;
        if (cont != null && !cont.isEmpty()) {
            if (rvm != null && !rvm.isEmpty()) {
                throw new ApiException(invalidListOptions("resourceVersionMatch: Forbidden: resourceVersionMatch is "
                        + "forbidden when continue is provided"));
            }
            if (rv != null && !rv.isEmpty() && !rv.equals("0")) {
                throw new ApiException(
                        Statuses.badRequest("specifying resource version is not allowed when using " + "continue"));
            }
            ContinueToken token = ContinueToken.decode(json, cont);
            atRevision = token.revision();
            start = token.start();
        } else if (rv != null && !rv.isEmpty() && !rv.equals("0")) {
            long n = parseRevision(rv);
            boolean exact = "Exact".equals(rvm) || ((rvm == null || rvm.isEmpty()) && limit > 0);
            if (exact) {
                atRevision = n;
            } else if (n > store.currentRevision()) {
                atRevision = n; // the store answers 504 Too large resource version
            }
        } else if ("Exact".equals(rvm)) {
            throw new ApiException(invalidListOptions("resourceVersionMatch: Forbidden: resourceVersionMatch "
                    + "\"exact\" is forbidden for resourceVersion \"0\""));
        }
        ListResult result;
        try {
            result = store.list(
                    type.group(), type.plural(), namespaceFilter(info, type), atRevision, filter, limit, start);
        } catch (IllegalArgumentException badContinueKey) {
            throw new ApiException(Statuses.badRequest("continue key is not valid: " + badContinueKey.getMessage()));
        }
        String continueToken =
                result.hasMore() ? new ContinueToken(result.revision(), result.continueKey()).encode(json) : null;
        if (!tables.wantsTable(exchange, q)) {
            streamList(exchange, type, result, continueToken);
            return;
        }
        ObjectNode list = listTree(type, result, continueToken);
        ArrayNode items = (ArrayNode) list.get("items");
        result.items().forEach(item -> items.add(served(type, item))); // the printers only read them
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
    private void streamList(HttpExchange exchange, ResourceType type, ListResult result, String continueToken)
            throws IOException {
        if (Responses.wantsProtobuf(exchange)) {
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
        byte[] customApiVersion = crds != null && crds.isCustom(type) ? servedApiVersion(type) : null;
        try (OutputStream out = new java.io.BufferedOutputStream(exchange.getResponseBody(), 64 * 1024)) {
            out.write(headBytes, 0, headBytes.length - 1);
            out.write(ITEMS_START);
            boolean first = true;
            for (ObjectNode item : result.items()) {
                if (!first) {
                    out.write(',');
                }
                if (customApiVersion == null) {
                    serialized.of(item).writeListItemTo(out);
                } else {
                    writeServed(out, type, item, customApiVersion);
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

    /** The apiVersion of what a request to {@code info} answers: autoscaling/v1 for {@code /scale}. */
    private static String answerApiVersion(RequestInfo info, ResourceType type) {
        return info.subresource().equals("scale")
                ? "autoscaling/v1"
                : type.gvk().apiVersion();
    }

    /** The kind of what a request to {@code info} answers (lists and Status aside): Scale for {@code /scale}. */
    private static String answerKind(RequestInfo info, ResourceType type) {
        return info.subresource().equals("scale") ? "Scale" : type.kind();
    }

    @SuppressWarnings("try") // the open-watch gauge and the fault registration are held only to end with the stream
    private void watch(
            HttpExchange exchange, RequestInfo info, ResourceType type, Map<String, String> q, String objectName)
            throws IOException {
        if (webSocketUpgrade(exchange)) {
            refuseWebSocket(exchange);
            return;
        }
        if (q.containsKey("continue")) {
            throw new ApiException(Statuses.badRequest("a watch cannot be continued"));
        }
        if (objectName != null) {
            String existing = q.get("fieldSelector");
            FieldSelector byName = FieldSelector.equalTo("metadata.name", objectName);
            if (existing != null && !existing.isEmpty()) {
                FieldSelector given = parseFieldSelector(type, existing);
                String named = given.requiresExactMatch("metadata.name");
                if (named != null && !named.equals(objectName)) {
                    throw new ApiException(Statuses.badRequest(
                            "fieldSelector metadata.name=" + named + " does not match name " + objectName));
                }
                q.put("fieldSelector", existing + "," + byName);
            } else {
                q.put("fieldSelector", byName.toString());
            }
        }
        Predicate<ObjectNode> filter = filter(type, q);
        String rv = q.get("resourceVersion");
        boolean bookmarks = "true".equals(q.get("allowWatchBookmarks"));
        boolean sendInitialEvents = "true".equals(q.get("sendInitialEvents"));
        String rvm = q.get("resourceVersionMatch");
        if (sendInitialEvents && !"NotOlderThan".equals(rvm)) {
            throw new ApiException(invalidListOptions("sendInitialEvents: Forbidden: sendInitialEvents requires "
                    + "setting resourceVersionMatch to NotOlderThan"));
        }
        if (!sendInitialEvents && rvm != null && !rvm.isEmpty()) {
            throw new ApiException(invalidListOptions("resourceVersionMatch: Forbidden: resourceVersionMatch is "
                    + "forbidden for watch unless sendInitialEvents is provided"));
        }
        UnaryOperator<ObjectNode> view = tables.watch(exchange, q, type);
        long timeoutSeconds = q.containsKey("timeoutSeconds")
                ? parseNonNegative("timeoutSeconds", q.get("timeoutSeconds"))
                : 1800 + ThreadLocalRandom.current().nextLong(1800);
        String ns = namespaceFilter(info, type);
        StoreWatch watch;
        long startBookmark = 0;
        boolean initialList = sendInitialEvents || rv == null || rv.isEmpty() || rv.equals("0");
        if (initialList) {
            watch = store.listAndWatch(type.group(), type.plural(), ns, filter, WATCH_BUFFER);
        } else {
            long from = parseRevision(rv);
            watch = store.watch(type.group(), type.plural(), ns, from, filter, WATCH_BUFFER);
            // A bookmark at the start revision tells the client at once that its watch is live (fabric8's
            // isWatching() stays false over HTTP until the first byte). Not for a watch that failed (compacted)
            // or waits for a future revision.
            if (bookmarks && from >= store.compactedRevision() && from <= store.currentRevision()) {
                startBookmark = from;
            }
        }
        FaultInjector injector = faults;
        try (watch;
                ApiServerMetrics.OpenWatch open = metrics.watchOpened(
                        (ApiServerMetrics.RequestLabels) ExchangeAttributes.get(exchange, ApiHttpHandler.LABELS));
                FaultInjector.WatchRegistration faulty = injector == null
                        ? null
                        : injector.watchOpened(exchange, type.group(), type.plural(), watch::close)) {
            stream(
                    exchange,
                    type,
                    watch,
                    timeoutSeconds,
                    bookmarks,
                    sendInitialEvents && bookmarks,
                    view,
                    !tables.wantsTable(exchange, q),
                    startBookmark);
        }
    }

    /**
     * Turns down a WebSocket watch with an empty, finished 200 watch: fabric8 then falls back to an HTTP watch at
     * once. Not a streaming 200 (the JDK's WebSocket client reads a refused handshake's body to its end, so
     * the handshake would last as long as the watch), and not a 503 (fabric8 retries 5xx answers with
     * backoff, about 19 s with its defaults, before it falls back).
     */
    private static void refuseWebSocket(HttpExchange exchange) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.getResponseHeaders().set("Cache-Control", "no-cache, private");
        exchange.getResponseHeaders()
                .set(
                        "Warning",
                        "299 - \"WebSocket watches are not supported by this server; " + "watch over plain HTTP\"");
        exchange.sendResponseHeaders(200, -1);
        exchange.close();
    }

    private static boolean webSocketUpgrade(HttpExchange exchange) {
        for (String value : exchange.getRequestHeaders().getOrDefault("Upgrade", java.util.List.of())) {
            for (String protocol : value.split(",")) {
                if (protocol.strip().equalsIgnoreCase("websocket")) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Writes events chunked and flushed per event: as JSON, one compact event per line, or, when the client accepts
     * only protobuf, as protobuf watch frames ({@code application/vnd.kubernetes.protobuf;stream=watch}). The
     * objects of plain JSON events ({@code asStored}: {@code view} is the identity) are their cached serialization,
     * made once for all watchers of a write.
     */
    private void stream(
            HttpExchange exchange,
            ResourceType type,
            StoreWatch watch,
            long timeoutSeconds,
            boolean bookmarks,
            boolean initialEventsEndBookmark,
            UnaryOperator<ObjectNode> view,
            boolean asStored,
            long startBookmark)
            throws IOException {
        boolean frames = Responses.wantsProtobuf(exchange);
        boolean cached = asStored && !frames;
        byte[] apiVersionField = cached ? servedApiVersion(type) : null;
        exchange.getResponseHeaders().set("Content-Type", frames ? ProtobufCodec.WATCH_MEDIA_TYPE : "application/json");
        exchange.getResponseHeaders().set("Cache-Control", "no-cache, private");
        exchange.sendResponseHeaders(200, 0);
        long deadline = clock.nanoTime() + Duration.ofSeconds(timeoutSeconds).toNanos();
        long interval = bookmarkInterval.toNanos();
        long nextBookmark = clock.nanoTime() + interval;
        FaultInjector injector = faults;
        try (OutputStream out = injector == null ? exchange.getResponseBody() : injector.watchBody(exchange)) {
            out.flush();
            if (startBookmark > 0) {
                writeBookmark(out, frames, type, startBookmark, false, view);
            }
            while (true) {
                long now = clock.nanoTime();
                long remaining = deadline - now;
                if (remaining <= 0) {
                    return;
                }
                if (bookmarks && nextBookmark - now <= 0) {
                    // Periodic bookmarks tell the client how far it is synced, and find dead connections.
                    OptionalLong safe = watch.bookmarkRevision();
                    if (safe.isPresent()) {
                        writeBookmark(out, frames, type, safe.getAsLong(), false, view);
                    }
                    nextBookmark = now + interval;
                }
                long wait = Math.min(remaining, bookmarks ? Math.max(1, nextBookmark - now) : remaining);
                StoreEvent event;
                try {
                    event = watch.next(Duration.ofNanos(
                            Math.min(wait, Duration.ofSeconds(1).toNanos())));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                if (event == null) {
                    if (watch.isDone() || registry.get().byResource(type.gvr()).isEmpty()) {
                        return; // a custom resource whose definition was deleted ends its watches
                    }
                    continue;
                }
                if (event.type() == StoreEvent.Type.BOOKMARK) {
                    // The store marks the end of a listAndWatch's initial state with a bookmark.
                    if (bookmarks) {
                        writeBookmark(out, frames, type, event.revision(), initialEventsEndBookmark, view);
                    }
                    continue;
                }
                if (event.type() == StoreEvent.Type.ERROR) {
                    // An ERROR's object is a core v1 Status, never re-versioned as the watched kind.
                    writeEvent(out, frames, event.type().name(), view.apply(event.object()));
                } else if (cached) {
                    writeStoredEvent(out, type, event, apiVersionField);
                } else {
                    writeEvent(out, frames, event.type().name(), view.apply(served(type, event.object())));
                }
            }
        } catch (IOException clientGoneOrUnencodable) {
            // The client closed the stream, or an event could not be encoded; the watch ends with this request.
        }
    }

    private void writeBookmark(
            OutputStream out,
            boolean frames,
            ResourceType type,
            long revision,
            boolean initialEventsEnd,
            UnaryOperator<ObjectNode> view)
            throws IOException {
        ObjectNode object = json.createObjectNode();
        object.put("kind", type.kind());
        object.put("apiVersion", type.gvk().apiVersion());
        ObjectNode meta = object.putObject("metadata");
        meta.put("resourceVersion", Long.toString(revision));
        meta.putNull("creationTimestamp");
        if (initialEventsEnd) {
            meta.putObject("annotations").put("k8s.io/initial-events-end", "true");
        }
        writeEvent(out, frames, "BOOKMARK", view.apply(object));
    }

    /**
     * One watch event, flushed: a JSON line, or a protobuf frame when {@code frames}. A stored object that does not
     * fit its protobuf message (JSON bodies of built-in kinds are not checked against the schema) ends the watch
     * with an ERROR event saying so.
     */
    private void writeEvent(OutputStream out, boolean frames, String eventType, ObjectNode object) throws IOException {
        if (frames) {
            byte[] frame;
            try {
                frame = protobuf.watchEvent(eventType, object);
            } catch (ProtobufException e) {
                out.write(protobuf.watchEvent(
                        "ERROR",
                        json.valueToTree(Statuses.failure(
                                StatusReason.InternalError,
                                "Internal error occurred: the object cannot be encoded as protobuf: "
                                        + e.getMessage()))));
                out.flush();
                throw new UnencodableEvent();
            }
            out.write(frame);
        } else {
            ObjectNode line = json.createObjectNode();
            line.put("type", eventType);
            line.set("object", object);
            out.write(json.writeValueAsBytes(line));
            out.write('\n');
        }
        out.flush();
    }

    /**
     * An ADDED, MODIFIED or DELETED event as a JSON line, flushed, its object from the cache: byte for byte what
     * {@link #writeEvent} writes for {@code served(type, event.object())}.
     */
    private void writeStoredEvent(OutputStream out, ResourceType type, StoreEvent event, byte[] apiVersionField)
            throws IOException {
        out.write(EVENT_PREFIXES.get(event.type()));
        writeServed(out, type, event.object(), apiVersionField);
        out.write(EVENT_END);
        out.flush();
    }

    /** {@code {"type":"ADDED","object":} and so on: what the mapper writes before an event's object. */
    private static final Map<StoreEvent.Type, byte[]> EVENT_PREFIXES = eventPrefixes();

    private static final byte[] EVENT_END = "}\n".getBytes(StandardCharsets.UTF_8);

    private static Map<StoreEvent.Type, byte[]> eventPrefixes() {
        Map<StoreEvent.Type, byte[]> prefixes = new java.util.EnumMap<>(StoreEvent.Type.class);
        for (StoreEvent.Type t :
                new StoreEvent.Type[] {StoreEvent.Type.ADDED, StoreEvent.Type.MODIFIED, StoreEvent.Type.DELETED}) {
            prefixes.put(t, ("{\"type\":\"" + t.name() + "\",\"object\":").getBytes(StandardCharsets.UTF_8));
        }
        return prefixes;
    }

    // ---- writes

    private void create(HttpExchange exchange, RequestInfo info, ResourceType type, Map<String, String> q)
            throws IOException {
        if (!info.subresource().isEmpty()) {
            throw methodNotAllowed();
        }
        WriteOptions options = writeOptions(exchange, q);
        ObjectNode object = admission.decoded(type, readObject(exchange, type), options);
        requireSameNamespace(type, info, object);
        String manager = fieldManager(exchange, q, "CreateOptions");
        ObjectRules.prepareCreate(type, object, info.namespace(), clock.now());
        admission.create(type, object, options);
        ManagedFields.recordUpdate(null, object, manager, type.gvk().apiVersion(), "", schema(type), clock.now());
        ObjectNode admitted = admit(type, null, object, "", options.fieldValidation());
        if (type.namespaced()) {
            requireNamespace(info.namespace());
        }
        StorageKey key = new StorageKey(
                type.group(),
                type.plural(),
                type.namespaced() ? info.namespace() : "",
                admitted.get("metadata").get("name").asString());
        lifecycle.admitCreate(type, info.namespace(), admitted);
        if (dryRun(q) && exists(key)) {
            throw new ApiException(Statuses.alreadyExists(type.group(), type.plural(), key.name()));
        }
        responses.object(exchange, 201, storeNew(type, key, admitted, dryRun(q)));
    }

    /**
     * Stores a new object (or, for a dry run, returns it as it would be stored), after giving a Service its
     * addresses under the allocator's lock.
     */
    private ObjectNode storeNew(ResourceType type, StorageKey key, ObjectNode object, boolean dryRun) {
        return serviceAddresses.locked(type, () -> {
            serviceAddresses.admit(type, null, object);
            return dryRun ? object : written(type, store.create(key, object));
        });
    }

    private void update(HttpExchange exchange, RequestInfo info, ResourceType type, Map<String, String> q)
            throws IOException {
        WriteOptions options = writeOptions(exchange, q);
        ObjectNode object = admission.decoded(type, readObject(exchange, type), options);
        String bodyName = object.path("metadata").path("name").asString("");
        if (!bodyName.isEmpty() && !bodyName.equals(info.name())) {
            throw new ApiException(Statuses.badRequest("the name of the object (" + bodyName
                    + ") does not match the name on the URL (" + info.name() + ")"));
        }
        requireSameNamespace(type, info, object);
        boolean statusOnly = info.subresource().equals("status");
        String manager = fieldManager(exchange, q, "UpdateOptions");
        responses.object(
                exchange,
                200,
                conditionalUpdate(
                        info,
                        type,
                        options,
                        manager,
                        current -> new Desired(
                                object, ObjectRules.prepareUpdate(type, current, object.deepCopy(), statusOnly))));
    }

    /**
     * What a client wants an object to become: {@code sent} is what it sent (whose resourceVersion, if any,
     * must be the current one), {@code next} the object to store.
     */
    private record Desired(JsonNode sent, ObjectNode next) {}

    /**
     * Read-modify-write with kube-apiserver's optimistic concurrency: {@code change} turns the current object
     * into what the client wants; a resourceVersion in what it sent that is not the current one is a 409
     * Conflict; with {@code dryRun=All} nothing is stored and the would-be result is returned. The write is
     * recorded in {@code managedFields} for {@code manager} (an {@code Update}; null for server-side apply,
     * which records its own {@code Apply} entry).
     */
    private ObjectNode conditionalUpdate(
            RequestInfo info,
            ResourceType type,
            WriteOptions options,
            String manager,
            java.util.function.Function<ObjectNode, Desired> change) {
        boolean dryRun = options.dryRun();
        try {
            return written(
                    type,
                    serviceAddresses.locked(
                            type,
                            () -> lifecycle.update(key(info, type), current -> {
                                Desired d = change.apply(current);
                                admission.update(type, current, d.next(), info.subresource(), options);
                                serviceAddresses.admit(type, current, d.next());
                                lifecycle.checkWrite(type, current, d.next());
                                admit(type, current, d.next(), info.subresource(), options.fieldValidation());
                                String rv = d.sent()
                                        .path("metadata")
                                        .path("resourceVersion")
                                        .asString("");
                                if (!rv.isEmpty()
                                        && !rv.equals(current.path("metadata")
                                                .path("resourceVersion")
                                                .asString(""))) {
                                    throw new ApiException(Statuses.conflict(type.group(), type.plural(), info.name()));
                                }
                                if (manager != null) {
                                    ManagedFields.recordUpdate(
                                            current,
                                            d.next(),
                                            manager,
                                            type.gvk().apiVersion(),
                                            info.subresource(),
                                            schema(type),
                                            clock.now());
                                }
                                if (dryRun) {
                                    throw new DryRunResult(d.next());
                                }
                                return d.next();
                            })));
        } catch (DryRunResult preview) {
            return preview.object;
        }
    }

    private void patch(
            HttpExchange exchange, RequestInfo info, ResourceType type, Map<String, String> q, Patches patchType)
            throws IOException {
        JsonNode patch = patchType == Patches.APPLY_PATCH ? parseYaml(readBody(exchange)) : parse(readBody(exchange));
        String fieldManager = q.get("fieldManager");
        String manager = fieldManager(exchange, q, "PatchOptions");
        if (patchType == Patches.APPLY_PATCH && (fieldManager == null || fieldManager.isEmpty())) {
            throw new ApiException(Statuses.invalid(
                    type.group(),
                    type.kind(),
                    info.name(),
                    java.util.List.of(
                            new Statuses.FieldError("Required value", "fieldManager", "is required for apply patch"))));
        }
        StorageKey key = key(info, type);
        boolean statusOnly = info.subresource().equals("status");
        WriteOptions options = writeOptions(exchange, q);
        if (patchType == Patches.APPLY_PATCH && !exists(key)) {
            ObjectNode created =
                    admission.decoded(type, patchType.apply(type, null, patch, fieldManager, clock.now()), options);
            ObjectRules.prepareCreate(type, created, info.namespace(), clock.now());
            ObjectRules.metadata(created).put("name", info.name());
            admission.create(type, created, options);
            if (type.namespaced()) {
                requireNamespace(info.namespace());
            }
            lifecycle.admitCreate(type, info.namespace(), created);
            admit(type, null, created, "", options.fieldValidation());
            responses.object(exchange, 201, storeNew(type, key, created, options.dryRun()));
            return;
        }
        responses.object(
                exchange,
                200,
                conditionalUpdate(info, type, options, patchType == Patches.APPLY_PATCH ? null : manager, current -> {
                    ObjectNode patched = admission.decoded(
                            type, patchType.apply(type, current, patch, fieldManager, clock.now()), options);
                    return new Desired(patched, ObjectRules.prepareUpdate(type, current, patched, statusOnly));
                }));
    }

    /** PUT (patchType null) or PATCH of {@code /scale}: reads and writes {@code spec.replicas} as a Scale. */
    private void scale(
            HttpExchange exchange, RequestInfo info, ResourceType type, Map<String, String> q, Patches patchType)
            throws IOException {
        JsonNode input =
                patchType == null ? readObject(exchange, "autoscaling/v1", "Scale") : parse(readBody(exchange));
        String manager = fieldManager(exchange, q, patchType == null ? "UpdateOptions" : "PatchOptions");
        ObjectNode stored = conditionalUpdate(info, type, writeOptions(exchange, q), manager, current -> {
            JsonNode desired = patchType == null
                    ? input
                    : patchType.apply(
                            type,
                            Scale.of(json, type, current, scalePaths(type)),
                            input,
                            q.get("fieldManager"),
                            clock.now());
            return new Desired(
                    desired,
                    ObjectRules.prepareUpdate(
                            type,
                            current,
                            Scale.withReplicas(current, Scale.replicas(type, info.name(), desired), scalePaths(type)),
                            false));
        });
        responses.object(exchange, 200, Scale.of(json, type, stored, scalePaths(type)));
    }

    private void delete(HttpExchange exchange, RequestInfo info, ResourceType type, Map<String, String> q)
            throws IOException {
        DeleteOptions options = deleteOptions(exchange, type, q);
        if (crds != null && !options.dryRun()) {
            crds.deleting(type, info.name(), options.preconditions());
        }
        responses.object(exchange, 200, served(type, lifecycle.delete(type, key(info, type), options)));
    }

    /**
     * The DeleteOptions of a DELETE, from its body (if any: JSON, or protobuf as Go typed clients send it) and its
     * query parameters. A protobuf body's apiVersion may be any group version, as client-go encodes DeleteOptions
     * in the version of the client that sends it.
     */
    private DeleteOptions deleteOptions(HttpExchange exchange, ResourceType type, Map<String, String> q)
            throws IOException {
        byte[] body = readBody(exchange);
        if (body.length == 0) {
            return DeleteOptions.parse(null, q);
        }
        String contentType = exchange.getRequestHeaders().getFirst("Content-Type");
        if (contentType == null || !MediaType.parse(contentType).type().equals(Protobuf.MEDIA_TYPE)) {
            return DeleteOptions.parse(parse(body), q);
        }
        ObjectNode options = protobuf.decode(body, type.gvk().apiVersion(), type.kind(), exchange.getResponseHeaders());
        if (!options.path("kind").asString("").equals("DeleteOptions")) {
            throw new ApiException(Statuses.badRequest("decoded object cannot be converted to DeleteOptions"));
        }
        return DeleteOptions.parse(options, q);
    }

    private void deleteCollection(HttpExchange exchange, RequestInfo info, ResourceType type, Map<String, String> q)
            throws IOException {
        if (!type.verbs().contains("deletecollection")) {
            throw methodNotAllowed();
        }
        Predicate<ObjectNode> filter = filter(type, q);
        DeleteOptions options = deleteOptions(exchange, type, q);
        ListResult result = store.list(type.group(), type.plural(), namespaceFilter(info, type), 0, filter, 0, null);
        ObjectNode list = json.createObjectNode();
        list.put("kind", type.listKind());
        list.put("apiVersion", type.gvk().apiVersion());
        ObjectNode meta = list.putObject("metadata");
        ArrayNode items = list.putArray("items");
        long revision = result.revision();
        for (ObjectNode item : result.items()) {
            JsonNode m = item.get("metadata");
            StorageKey key = new StorageKey(
                    type.group(),
                    type.plural(),
                    m.path("namespace").asString(""),
                    m.get("name").asString());
            try {
                if (crds != null && !options.dryRun()) {
                    crds.deleting(type, key.name(), options.preconditions());
                }
                ObjectNode deleted = lifecycle.delete(type, key, options);
                revision = Math.max(
                        revision,
                        deleted.path("metadata").path("resourceVersion").asLong());
                items.add(served(type, deleted));
            } catch (io.kubeloop.apiserver.internal.storage.NotFoundException alreadyGone) {
                // deleted concurrently: nothing to do
            }
        }
        meta.put("resourceVersion", Long.toString(revision));
        responses.object(exchange, 200, list);
    }

    // ---- helpers

    /** A custom resource write checked and completed by its definition (other writes pass unchanged). */
    private ObjectNode admit(
            ResourceType type,
            ObjectNode current,
            ObjectNode next,
            String subresource,
            FieldValidation fieldValidation) {
        CustomResources c = crds;
        return c == null ? next : c.admit(type, current, next, subresource, fieldValidation);
    }

    /** How to admit a write: its fieldValidation (400 when invalid), its warnings (response headers), dryRun. */
    private static WriteOptions writeOptions(HttpExchange exchange, Map<String, String> q) {
        return new WriteOptions(
                FieldValidation.parse(q.get("fieldValidation")),
                new Warnings(value -> exchange.getResponseHeaders().add("Warning", value)),
                dryRun(q));
    }

    /** Tells the custom resources about a stored write (a CRD write changes what is served). */
    private ObjectNode written(ResourceType type, ObjectNode stored) {
        CustomResources c = crds;
        if (c != null) {
            c.written(type, stored);
        }
        return stored;
    }

    /** Where {@code type} keeps its scale: a custom resource's declared paths, or null for the built-ins'. */
    private io.kubeloop.apiserver.internal.crd.ScaleSubresource scalePaths(ResourceType type) {
        CustomResources c = crds;
        return c == null ? null : c.scale(type);
    }

    /**
     * {@code object} as served at {@code type}'s version: a custom resource is stored once for all its
     * versions (conversion strategy None), so only its apiVersion changes.
     */
    private ObjectNode served(ResourceType type, ObjectNode object) {
        if (servedAsStored(type, object)) {
            return object;
        }
        ObjectNode copy = json.createObjectNode();
        for (Map.Entry<String, JsonNode> field : object.properties()) {
            copy.set(
                    field.getKey(),
                    field.getKey().equals("apiVersion")
                            ? json.getNodeFactory().stringNode(type.gvk().apiVersion())
                            : field.getValue());
        }
        return copy;
    }

    /** Whether {@link #served} leaves {@code object} as it is. */
    private static boolean servedAsStored(ResourceType type, ObjectNode object) {
        JsonNode apiVersion = object.get("apiVersion");
        return apiVersion == null || apiVersion.asString().equals(type.gvk().apiVersion());
    }

    /** The apiVersion field {@link #served} gives a re-versioned object, for {@link SerializedObject#writeTo}. */
    private byte[] servedApiVersion(ResourceType type) {
        return SerializedObject.field(json, "apiVersion", type.gvk().apiVersion());
    }

    /**
     * The manager of a write: the {@code fieldManager} parameter, else derived from the User-Agent; 422 for an
     * invalid one, as {@code <options>.meta.k8s.io "" is invalid: fieldManager: ...}.
     */
    private static String fieldManager(HttpExchange exchange, Map<String, String> q, String options) {
        String error = ManagedFields.validateManager(q.get("fieldManager"));
        if (error != null) {
            int colon = error.indexOf(": ");
            throw new ApiException(Statuses.invalid(
                    "meta.k8s.io",
                    options,
                    "",
                    java.util.List.of(new Statuses.FieldError(
                            error.substring(0, colon), "fieldManager", error.substring(colon + 2)))));
        }
        return ManagedFields.managerOf(
                q.get("fieldManager"), exchange.getRequestHeaders().getFirst("User-Agent"));
    }

    private static PatchSchema schema(ResourceType type) {
        return PatchSchema.forKind(type.group(), type.version(), type.kind());
    }

    private boolean exists(StorageKey key) {
        try {
            store.get(key);
            return true;
        } catch (io.kubeloop.apiserver.internal.storage.NotFoundException e) {
            return false;
        }
    }

    /** A namespace in the body must be the one in the URL (400 otherwise, as kube-apiserver answers). */
    private static void requireSameNamespace(ResourceType type, RequestInfo info, ObjectNode object) {
        String bodyNamespace = object.path("metadata").path("namespace").asString("");
        if (type.namespaced() && !bodyNamespace.isEmpty() && !bodyNamespace.equals(info.namespace())) {
            throw new ApiException(Statuses.badRequest(
                    "the namespace of the provided object does not match the namespace sent on the request"));
        }
    }

    private void requireNamespace(String namespace) {
        if (!exists(StorageKey.clusterScoped("", "namespaces", namespace))) {
            throw new ApiException(Statuses.notFound("", "namespaces", namespace));
        }
    }

    private static StorageKey key(RequestInfo info, ResourceType type) {
        return new StorageKey(type.group(), type.plural(), type.namespaced() ? info.namespace() : "", info.name());
    }

    private static String namespaceFilter(RequestInfo info, ResourceType type) {
        if (!type.namespaced()) {
            return "";
        }
        return info.namespace().isEmpty() ? null : info.namespace();
    }

    private Predicate<ObjectNode> filter(ResourceType type, Map<String, String> q) {
        LabelSelector labels;
        try {
            labels = LabelSelector.parse(q.getOrDefault("labelSelector", ""));
        } catch (SelectorParseException e) {
            throw new ApiException(Statuses.badRequest(e.getMessage()));
        }
        String fieldParam = q.getOrDefault("fieldSelector", "");
        FieldSelector fields = parseFieldSelector(type, fieldParam);
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

    private static FieldSelector parseFieldSelector(ResourceType type, String value) {
        if (value == null || value.isEmpty()) {
            return FieldSelector.everything();
        }
        try {
            return SelectableFields.convert(type.plural(), type.group(), FieldSelector.parse(value));
        } catch (SelectorParseException e) {
            throw new ApiException(Statuses.badRequest(e.getMessage()));
        }
    }

    private ObjectNode readObject(HttpExchange exchange, ResourceType type) throws IOException {
        return readObject(exchange, type.gvk().apiVersion(), type.kind());
    }

    /**
     * The object of a create or update body, or the Scale of a {@code /scale} PUT, as JSON: the body is JSON (also
     * when Content-Type is absent, as kubectl's {@code scale --current-replicas} sends it), YAML or protobuf.
     * Whatever the encoding, the same checks follow: an object whose apiVersion and kind, when set, are
     * {@code apiVersion} and {@code kind}.
     */
    private ObjectNode readObject(HttpExchange exchange, String apiVersion, String kind) throws IOException {
        String contentType = exchange.getRequestHeaders().getFirst("Content-Type");
        String mediaType = contentType == null || contentType.isBlank()
                ? "application/json"
                : MediaType.parse(contentType).type();
        JsonNode node =
                switch (mediaType) {
                    case "application/json", "*/*" -> parse(readBody(exchange));
                    case "application/yaml" -> parseYaml(readBody(exchange));
                    case Protobuf.MEDIA_TYPE ->
                        protobuf.decode(readBody(exchange), apiVersion, kind, exchange.getResponseHeaders());
                    default -> throw new ApiException(protobuf.unknownFormat(apiVersion, kind));
                };
        if (!node.isObject()) {
            throw new ApiException(Statuses.badRequest("the body of the request must be a JSON object"));
        }
        ObjectNode object = (ObjectNode) node;
        String sentApiVersion = object.path("apiVersion").asString("");
        String sentKind = object.path("kind").asString("");
        if ((!sentApiVersion.isEmpty() && !sentApiVersion.equals(apiVersion))
                || (!sentKind.isEmpty() && !sentKind.equals(kind))) {
            throw new ApiException(Statuses.badRequest("the API version in the data (" + sentApiVersion + ") does not "
                    + "match the expected API version (" + apiVersion + ")"));
        }
        return object;
    }

    private JsonNode parse(byte[] body) {
        return bodies.json(body, null);
    }

    private JsonNode parseYaml(byte[] body) {
        return bodies.yaml(body, null);
    }

    private static byte[] readBody(HttpExchange exchange) throws IOException {
        return RequestBody.read(exchange);
    }

    private static Map<String, String> query(HttpExchange exchange) {
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

    private static boolean dryRun(Map<String, String> q) {
        String d = q.get("dryRun");
        if (d == null) {
            return false;
        }
        if (!d.equals("All")) {
            throw new ApiException(Statuses.badRequest("Invalid dry run value: " + d + " (only \"All\" is supported)"));
        }
        return true;
    }

    private static int parseLimit(String value) {
        if (value == null || value.isEmpty()) {
            return 0;
        }
        long n = parseNonNegative("limit", value);
        return n > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) n;
    }

    private static long parseNonNegative(String name, String value) {
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

    private static long parseRevision(String rv) {
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

    private static io.fabric8.kubernetes.api.model.Status invalidListOptions(String detail) {
        return Statuses.failure(StatusReason.Invalid, "ListOptions.meta.k8s.io \"\" is invalid: " + detail);
    }

    private static ApiException methodNotAllowed() {
        return new ApiException(Statuses.failure(
                StatusReason.MethodNotAllowed, "the server does not allow this method on the requested resource"));
    }

    /** Ends a protobuf watch after the ERROR event for an object it could not encode. */
    private static final class UnencodableEvent extends IOException {
        private static final long serialVersionUID = 1L;

        UnencodableEvent() {
            super(null, null);
        }
    }

    /** Carries a dry-run update's result out of {@code guaranteedUpdate} without storing it. */
    static final class DryRunResult extends RuntimeException {
        private static final long serialVersionUID = 1L;

        final ObjectNode object;

        DryRunResult(ObjectNode object) {
            super(null, null, false, false);
            this.object = object;
        }
    }
}
