package io.kubeloop.apiserver.internal.http;

import com.sun.net.httpserver.HttpExchange;
import io.kubeloop.apiserver.fault.FaultInjector;
import io.kubeloop.apiserver.internal.protobuf.ProtobufCodec;
import io.kubeloop.apiserver.internal.protobuf.ProtobufException;
import io.kubeloop.apiserver.internal.storage.Store;
import io.kubeloop.apiserver.internal.storage.StoreEvent;
import io.kubeloop.apiserver.internal.storage.StoreWatch;
import io.kubeloop.clock.Clock;
import io.kubeloop.model.ResourceRegistry;
import io.kubeloop.model.ResourceType;
import io.kubeloop.model.StatusReason;
import io.kubeloop.model.Statuses;
import io.kubeloop.model.selector.FieldSelector;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The watch verb (of a collection, or of one object by name): events streamed chunked, one per line as JSON or as
 * protobuf frames, with kube-apiserver's resourceVersion, bookmark, {@code sendInitialEvents} and timeout semantics
 * (see the apiserver protocol reference §1.7). A watch holds its request's thread until it ends: at its timeout,
 * when the client leaves, when it falls {@link #WATCH_BUFFER} events behind, or when its type stops being served.
 */
final class WatchEndpoints {

    /** Events a watcher may fall behind before its watch is closed. */
    static final int WATCH_BUFFER = 1000;

    private final JsonMapper json;
    private final Store store;
    private final Clock clock;
    private final Supplier<ResourceRegistry> registry;
    private final ApiServerMetrics metrics;
    private final Duration bookmarkInterval;
    private final Protobuf protobuf;
    private final TableView tables;
    private final ServedObjects served;
    private final ServerExtensions extensions;

    WatchEndpoints(
            JsonMapper json,
            Store store,
            Clock clock,
            Supplier<ResourceRegistry> registry,
            ApiServerMetrics metrics,
            Duration bookmarkInterval,
            Protobuf protobuf,
            TableView tables,
            ServedObjects served,
            ServerExtensions extensions) {
        this.json = json;
        this.store = store;
        this.clock = clock;
        this.registry = registry;
        this.metrics = metrics;
        this.bookmarkInterval = bookmarkInterval;
        this.protobuf = protobuf;
        this.tables = tables;
        this.served = served;
        this.extensions = extensions;
    }

    /** A watch of the request's collection, or of the object it names ({@code objectName} not null). */
    @SuppressWarnings("try") // the open-watch gauge and the fault registration are held only to end with the stream
    void watch(ResourceRequest request, String objectName) throws IOException {
        HttpExchange exchange = request.exchange();
        ResourceType type = request.type();
        Map<String, String> q = request.query();
        if (webSocketUpgrade(exchange)) {
            refuseWebSocket(exchange);
            return;
        }
        if (q.containsKey("continue")) {
            throw new ApiException(Statuses.badRequest("a watch cannot be continued"));
        }
        String fieldSelector = q.get("fieldSelector");
        if (objectName != null) {
            FieldSelector byName = FieldSelector.equalTo("metadata.name", objectName);
            if (fieldSelector != null && !fieldSelector.isEmpty()) {
                FieldSelector given = QueryParameters.parseFieldSelector(type, fieldSelector);
                String named = given.requiresExactMatch("metadata.name");
                if (named != null && !named.equals(objectName)) {
                    throw new ApiException(Statuses.badRequest(
                            "fieldSelector metadata.name=" + named + " does not match name " + objectName));
                }
                fieldSelector = fieldSelector + "," + byName;
            } else {
                fieldSelector = byName.toString();
            }
        }
        Predicate<ObjectNode> filter = QueryParameters.filter(type, q.get("labelSelector"), fieldSelector);
        QueryParameters.validateListOptions(q, true);
        String rv = q.get("resourceVersion");
        boolean bookmarks = QueryParameters.flag(q, "allowWatchBookmarks");
        Boolean sendInitialEventsParam = QueryParameters.bool(q.get("sendInitialEvents"));
        // Without the parameter, kube's legacy rule: no resourceVersion (or "0") starts with the current state.
        boolean sendInitialEvents = Boolean.TRUE.equals(sendInitialEventsParam);
        boolean noInitialEvents = Boolean.FALSE.equals(sendInitialEventsParam);
        Negotiated negotiated = request.negotiated();
        if (negotiated.view() == Negotiated.View.PARTIAL_LIST) {
            throw ServedObjects.partialMismatch(negotiated, type, extensions.isCustom(type), false);
        }
        UnaryOperator<ObjectNode> view = negotiated.view() == Negotiated.View.PARTIAL
                ? object -> served.partial(negotiated.metaApiVersion(), object)
                : tables.watch(exchange, q, type);
        long timeoutSeconds = q.containsKey("timeoutSeconds")
                ? QueryParameters.parseNonNegative("timeoutSeconds", q.get("timeoutSeconds"))
                : 1800 + ThreadLocalRandom.current().nextLong(1800);
        String ns = request.namespaceFilter();
        StoreWatch watch;
        long startBookmark = 0;
        boolean noRevision = rv == null || rv.isEmpty() || rv.equals("0");
        boolean initialList = sendInitialEvents || (noRevision && !noInitialEvents);
        if (initialList) {
            watch = store.listAndWatch(type.group(), type.plural(), ns, filter, WATCH_BUFFER);
        } else {
            // sendInitialEvents=false without a resourceVersion: from now on, with no initial state.
            long from = noRevision ? store.currentRevision() : QueryParameters.parseUnsignedRevision(rv);
            watch = store.watch(type.group(), type.plural(), ns, from, filter, WATCH_BUFFER);
            // A bookmark at the start revision tells the client at once that its watch is live (fabric8's
            // isWatching() stays false over HTTP until the first byte). Not for a watch that failed (compacted)
            // or waits for a future revision.
            if (bookmarks && from >= store.compactedRevision() && from <= store.currentRevision()) {
                startBookmark = from;
            }
        }
        FaultInjector injector = extensions.faults();
        try (watch;
                ApiServerMetrics.OpenWatch open = metrics.watchOpened(request.labels());
                FaultInjector.WatchRegistration faulty = injector == null
                        ? null
                        : injector.watchOpened(exchange, type.group(), type.plural(), watch::close)) {
            stream(
                    request,
                    watch,
                    timeoutSeconds,
                    bookmarks,
                    sendInitialEvents && bookmarks,
                    view,
                    !negotiated.partial() && !tables.wantsTable(exchange, q),
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
            ResourceRequest request,
            StoreWatch watch,
            long timeoutSeconds,
            boolean bookmarks,
            boolean initialEventsEndBookmark,
            UnaryOperator<ObjectNode> view,
            boolean asStored,
            long startBookmark)
            throws IOException {
        HttpExchange exchange = request.exchange();
        ResourceType type = request.type();
        boolean frames = request.negotiated().encoding() == Negotiated.Encoding.PROTOBUF;
        boolean cached = asStored && !frames;
        byte[] apiVersionField = cached ? served.servedApiVersion(type) : null;
        exchange.getResponseHeaders().set("Content-Type", frames ? ProtobufCodec.WATCH_MEDIA_TYPE : "application/json");
        exchange.getResponseHeaders().set("Cache-Control", "no-cache, private");
        exchange.sendResponseHeaders(200, 0);
        long deadline = clock.nanoTime() + Duration.ofSeconds(timeoutSeconds).toNanos();
        long interval = bookmarkInterval.toNanos();
        long nextBookmark = clock.nanoTime() + interval;
        FaultInjector injector = extensions.faults();
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
                    writeEvent(out, frames, event.type().name(), view.apply(served.served(type, event.object())));
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
        served.writeServed(out, type, event.object(), apiVersionField);
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

    /** Ends a protobuf watch after the ERROR event for an object it could not encode. */
    private static final class UnencodableEvent extends IOException {
        private static final long serialVersionUID = 1L;

        UnencodableEvent() {
            super(null, null);
        }
    }
}
