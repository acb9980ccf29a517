package io.kubeloop.apiserver.internal.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.kubeloop.apiserver.fault.FaultInjector;
import io.kubeloop.apiserver.internal.auth.Authentication;
import io.kubeloop.apiserver.internal.auth.RequestUser;
import io.kubeloop.apiserver.internal.exchange.ExchangeAttributes;
import io.kubeloop.apiserver.internal.protobuf.ProtobufSupport;
import io.kubeloop.apiserver.internal.rbac.AccessControl;
import io.kubeloop.apiserver.internal.registry.Admission;
import io.kubeloop.apiserver.internal.registry.Bodies;
import io.kubeloop.apiserver.internal.registry.Strategies;
import io.kubeloop.apiserver.internal.storage.Store;
import io.kubeloop.clock.Clock;
import io.kubeloop.model.ResourceRegistry;
import io.kubeloop.model.ResourceType;
import io.kubeloop.model.StatusReason;
import io.kubeloop.model.Statuses;
import java.io.IOException;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The embedded API server's front door: routes {@code /version}, health, discovery and resource requests.
 * Internal to kubeloop; use {@link io.kubeloop.apiserver.EmbeddedApiServer}.
 *
 * <p>Invariant: every request gets an answer — a handler that throws produces a 500 Status naming the
 * error, and the server keeps serving.
 */
public final class ApiHttpHandler implements HttpHandler {

    private static final Logger log = LoggerFactory.getLogger(ApiHttpHandler.class);
    private static final List<String> HEALTH = List.of("/healthz", "/livez", "/readyz");

    private final JsonMapper json;
    private final Supplier<ResourceRegistry> registry;
    private final Responses responses;
    private final KubernetesVersion version;
    private volatile String serverAddress = "127.0.0.1:0";

    private final ResourceEndpoints resources;
    /** The custom resources and the fault injector, shared with the endpoints; set once before the server starts. */
    private final ServerExtensions extensions = new ServerExtensions();

    private final ApiServerMetrics metrics;
    private final Clock clock;

    public ApiHttpHandler(
            JsonMapper json,
            Supplier<ResourceRegistry> registry,
            Store store,
            Clock clock,
            java.time.Duration bookmarkInterval,
            io.kubeloop.apiserver.internal.lifecycle.ObjectLifecycle lifecycle,
            Strategies strategies) {
        this.json = json;
        this.registry = registry;
        this.clock = clock;
        Protobuf protobuf = new Protobuf(() -> ProtobufSupport.codec(json)); // empty without client-java-proto
        this.responses = new Responses(json, protobuf);
        this.version = KubernetesVersion.SERVED;
        this.metrics = new ApiServerMetrics(registry, store);
        TableView tables = new TableView(json, clock, extensions::printerColumns);
        ServedObjects served = new ServedObjects(json, new SerializedObjects(json));
        this.resources = new ResourceEndpoints(
                responses,
                protobuf,
                extensions,
                new ReadEndpoints(json, store, responses, tables, served, extensions),
                new WriteEndpoints(
                        json,
                        store,
                        clock,
                        responses,
                        served,
                        lifecycle,
                        protobuf,
                        new Admission(strategies),
                        new Bodies(json),
                        new ServiceAddresses(store),
                        extensions),
                new WatchEndpoints(
                        json, store, clock, registry, metrics, bookmarkInterval, protobuf, tables, served, extensions),
                new PodRuntimeEndpoints(store, responses));
    }

    private volatile FaultInjector faults;

    /** Installs the fault injector: its admin path, its hooks on every request, and its meters. */
    public void faults(FaultInjector injector) {
        injector.bindMetrics(metrics.registry());
        this.faults = injector;
        extensions.faults(injector);
    }

    /** Serves the custom resources {@code crds} defines (set before the server starts). */
    public void customResources(io.kubeloop.apiserver.internal.crd.CustomResources crds) {
        this.crds = crds;
        extensions.customResources(crds);
    }

    private volatile io.kubeloop.apiserver.internal.crd.CustomResources crds;

    private volatile AccessControl access = AccessControl.allowAll();

    private volatile AdminEndpoints adminEndpoints = AdminEndpoints.NONE;

    /** The admin endpoints under {@code /kubeloop/<name>}; set once before the server starts. */
    public void adminEndpoints(AdminEndpoints endpoints) {
        this.adminEndpoints = endpoints;
    }

    /** Who may do what, and the review endpoints; default {@link AccessControl#allowAll()}. */
    public void accessControl(AccessControl access) {
        this.access = access;
    }

    /** The host:port clients reach this server at, reported by {@code GET /api}. */
    public void serverAddress(String hostPort) {
        this.serverAddress = hostPort;
    }

    /** Who may send requests; set once before the server starts. Off (everyone is admin) by default. */
    public void authentication(Authentication authentication) {
        this.authentication = authentication;
    }

    private volatile Authentication authentication = Authentication.OFF;

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        long start = clock.nanoTime();
        ApiServerMetrics.RequestLabels labels = new ApiServerMetrics.RequestLabels();
        labels.verb = exchange.getRequestMethod();
        try {
            holdWhilePartitioned(exchange);
            RequestBody.readAhead(exchange, RequestBody.MAX_BYTES); // before any answer: see RequestBody
            if (!authentication.authenticate(exchange)) {
                return; // answered 401
            }
            route(exchange, labels);
        } catch (RuntimeException | Error e) { // an Error (out of memory, stack overflow) fails this request only
            log.error("{} {} failed", exchange.getRequestMethod(), exchange.getRequestURI(), e);
            try {
                if (e instanceof Error) {
                    exchange.getResponseHeaders().set("Connection", "close"); // start afresh, as RequestBoundary does
                }
                responses.status(
                        exchange,
                        Statuses.failure(StatusReason.InternalError, "Internal error occurred: " + internalError(e)));
            } catch (IOException | RuntimeException ignored) {
                // The response was already started; the client sees a truncated body.
            }
        } finally {
            exchange.close();
            ExchangeAttributes.release(exchange);
            metrics.recordRequest(labels, exchange.getResponseCode(), clock.nanoTime() - start);
        }
    }

    /**
     * The text of an unexpected error for its 500: the exception's simple name and message, except for the JSON
     * library's exceptions, whose class names and source locations are its internals, not the request's error.
     */
    private static String internalError(Throwable e) {
        if (e instanceof tools.jackson.core.JacksonException jackson) {
            return jackson.getOriginalMessage();
        }
        return e.getClass().getSimpleName() + ": " + e.getMessage();
    }

    /**
     * A partition is a pulled cable: it holds every request but the admin paths' before anything answers, so a
     * request that would be refused (401, 403) is held like any other.
     */
    private void holdWhilePartitioned(HttpExchange exchange) throws IOException {
        FaultInjector injector = faults;
        String path = exchange.getRequestURI().getPath();
        if (path.length() > 1 && path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        if (injector != null && !FaultInjector.isAdminPath(path) && adminEndpoints.nameOf(path) == null) {
            injector.holdWhilePartitioned(exchange);
        }
    }

    /** Routes a request; {@code labels} is what its metrics are recorded under, filled in as the route is known. */
    private void route(HttpExchange exchange, ApiServerMetrics.RequestLabels labels) throws IOException {
        io.fabric8.kubernetes.api.model.Status refused = access.admit(exchange); // impersonation, authorization
        if (refused != null) {
            responses.status(exchange, refused);
            return;
        }
        String path = exchange.getRequestURI().getPath();
        String method = exchange.getRequestMethod();
        if (path.length() > 1 && path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        FaultInjector injector = faults;
        if (injector != null) {
            if (FaultInjector.isAdminPath(path)) {
                injector.serveAdmin(exchange, path); // exempt from every fault, so that one can always be cleared
                return;
            }
        }
        String admin = adminEndpoints.nameOf(path);
        if (admin != null) {
            adminEndpoints.serve(exchange, admin, path, responses); // exempt from faults, as the fault admin path
            return;
        }
        if (path.equals("/version")) {
            if (requireGet(exchange, method)) {
                responses.json(exchange, 200, version.toJson(json));
            }
            return;
        }
        for (String h : HEALTH) {
            if (path.equals(h) || path.startsWith(h + "/")) {
                if (requireGet(exchange, method)) {
                    health(exchange, h);
                }
                return;
            }
        }
        if (path.equals("/metrics")) {
            if (requireGet(exchange, method)) {
                responses.text(exchange, 200, metrics.scrape(), "text/plain; version=0.0.4; charset=utf-8");
            }
            return;
        }
        if (path.equals("/openapi/v3") || path.startsWith("/openapi/v3/")) {
            if (requireGet(exchange, method)) {
                openApi(exchange, path);
            }
            return;
        }
        if (path.equals("/api") || path.equals("/apis") || path.startsWith("/api/") || path.startsWith("/apis/")) {
            api(exchange, method, path, labels);
            return;
        }
        responses.status(exchange, Statuses.routeNotFound());
    }

    private void openApi(HttpExchange exchange, String path) throws IOException {
        ResourceRegistry reg = registry.get();
        OpenApi docs = openApi;
        if (docs == null || openApiRegistry != reg) {
            docs = new OpenApi(json, reg, crds); // rebuilt only when the registry changes
            openApi = docs;
            openApiRegistry = reg;
        }
        if (path.equals("/openapi/v3")) {
            responses.raw(exchange, 200, docs.index(), Responses.JSON, null);
            return;
        }
        String gv = path.substring("/openapi/v3/".length());
        byte[] doc = docs.document(gv);
        if (doc == null) {
            responses.status(exchange, Statuses.routeNotFound());
            return;
        }
        String query = exchange.getRequestURI().getQuery();
        boolean hashed = query != null && query.contains("hash=" + docs.hash(gv));
        responses.raw(exchange, 200, doc, Responses.JSON, hashed ? "public, immutable" : null);
    }

    private volatile OpenApi openApi;
    private volatile ResourceRegistry openApiRegistry;

    private void health(HttpExchange exchange, String check) throws IOException {
        String query = exchange.getRequestURI().getQuery();
        if (query != null && query.contains("verbose")) {
            String name = check.substring(1);
            responses.text(
                    exchange,
                    200,
                    "[+]ping ok\n[+]log ok\n[+]etcd ok\n" + name + " check passed\n",
                    "text/plain; charset=utf-8");
        } else {
            responses.text(exchange, 200, "ok", "text/plain; charset=utf-8");
        }
    }

    private void api(HttpExchange exchange, String method, String path, ApiServerMetrics.RequestLabels labels)
            throws IOException {
        ResourceRegistry reg = registry.get();
        Discovery discovery = new Discovery(json, reg);
        String accept = exchange.getRequestHeaders().getFirst("Accept");
        String[] parts = path.substring(1).split("/");
        boolean discoveryPath = path.equals("/api")
                || path.equals("/apis")
                || path.equals("/api/v1")
                || (parts[0].equals("apis") && parts.length <= 3);
        if (discoveryPath) {
            if (!requireGet(exchange, method)) {
                return;
            }
            ObjectNode doc;
            if (path.equals("/api") || path.equals("/apis")) {
                boolean core = path.equals("/api");
                if (Discovery.wantsAggregated(accept)) {
                    responses.json(exchange, 200, discovery.aggregated(core), Discovery.AGGREGATED_CONTENT_TYPE);
                    return;
                }
                doc = core ? discovery.apiVersions(serverAddress) : discovery.apiGroupList();
            } else if (parts[0].equals("api")) {
                doc = discovery.apiResourceList("", parts[1]);
            } else if (parts.length == 2) {
                doc = discovery.apiGroup(parts[1]);
            } else {
                doc = discovery.apiResourceList(parts[1], parts[2]);
            }
            if (doc == null) {
                responses.status(exchange, Statuses.routeNotFound());
            } else {
                responses.json(exchange, 200, doc);
            }
            return;
        }
        RequestInfo info = RequestInfo.parse(path);
        ResourceType type = info == null
                ? null
                : reg.byResource(new io.kubeloop.model.GroupVersionResource(
                                info.group(), info.version(), info.resource()))
                        .orElse(null);
        if (type == null) {
            responses.status(exchange, Statuses.routeNotFound());
            return;
        }
        labels.group = type.group();
        labels.version = type.version();
        labels.resource = type.plural();
        labels.subresource = info.subresource();
        if (access.isReview(type)) {
            byte[] body;
            try {
                body = RequestBody.read(exchange);
            } catch (ApiException tooLarge) {
                responses.status(exchange, tooLarge.status());
                return;
            }
            AccessControl.Reply reply = access.review(exchange, type, body);
            responses.object(exchange, reply.code(), reply.body());
            return;
        }
        resources.handle(new ResourceRequest(
                exchange, info, type, QueryParameters.of(exchange), labels, RequestUser.of(exchange)));
    }

    private boolean requireGet(HttpExchange exchange, String method) throws IOException {
        if (method.equals("GET") || method.equals("HEAD")) {
            return true;
        }
        responses.status(
                exchange,
                Statuses.failure(
                        StatusReason.MethodNotAllowed,
                        "the server does not allow this method on the requested resource"));
        return false;
    }
}
