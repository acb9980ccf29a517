package io.kubeloop.apiserver.internal.http;

import com.sun.net.httpserver.HttpExchange;
import io.kubeloop.apiserver.internal.auth.UserInfo;
import io.kubeloop.apiserver.internal.registry.FieldValidation;
import io.kubeloop.apiserver.internal.registry.Warnings;
import io.kubeloop.apiserver.internal.registry.WriteOptions;
import io.kubeloop.apiserver.internal.storage.StorageKey;
import io.kubeloop.model.ResourceType;
import java.util.Map;

/**
 * One request to a resource, as the read, write and watch endpoints see it: the exchange it answers, what its path
 * addresses ({@link RequestInfo}) and the type it resolved to, its decoded query parameters, the metric labels the
 * router fills in, and the user it runs as (after impersonation). Built once by the router per request and passed
 * explicitly to every stage; no stage looks a request's values up elsewhere.
 *
 * <p>Invariants: {@link #query()} is read-only (the first value of each parameter, percent-decoded); {@link
 * #labels()} is the one object {@link ApiHttpHandler} records the request's metrics from, so a stage that learns
 * the verb sets it there. Not thread-safe: a request is served by one thread.
 */
final class ResourceRequest {

    private final HttpExchange exchange;
    private final RequestInfo info;
    private final ResourceType type;
    private final Map<String, String> query;
    private final ApiServerMetrics.RequestLabels labels;
    private final UserInfo user;
    private WriteOptions writeOptions;
    private Negotiated negotiated = Negotiated.JSON;

    ResourceRequest(
            HttpExchange exchange,
            RequestInfo info,
            ResourceType type,
            Map<String, String> query,
            ApiServerMetrics.RequestLabels labels,
            UserInfo user) {
        this.exchange = exchange;
        this.info = info;
        this.type = type;
        this.query = Map.copyOf(query);
        this.labels = labels;
        this.user = user;
    }

    HttpExchange exchange() {
        return exchange;
    }

    RequestInfo info() {
        return info;
    }

    ResourceType type() {
        return type;
    }

    /** The query parameters: the first value of each, percent-decoded. */
    Map<String, String> query() {
        return query;
    }

    /** The query parameter {@code name}, or null when absent. */
    String param(String name) {
        return query.get(name);
    }

    ApiServerMetrics.RequestLabels labels() {
        return labels;
    }

    UserInfo user() {
        return user;
    }

    String method() {
        return exchange.getRequestMethod();
    }

    /** The first value of the request header {@code name}, or null. */
    String header(String name) {
        return exchange.getRequestHeaders().getFirst(name);
    }

    /**
     * Whether this is a watch: the legacy {@code /watch/} path or a {@code watch} parameter kube reads as true
     * ({@link QueryParameters#bool}: any value but {@code 0} and {@code false}).
     */
    boolean isWatch() {
        return info.legacyWatch() || QueryParameters.flag(query, "watch");
    }

    /** What the answer is to be, as the dispatcher negotiated it ({@link Negotiated#JSON} until then). */
    Negotiated negotiated() {
        return negotiated;
    }

    /** Set once by the dispatcher, before any endpoint runs. */
    void negotiated(Negotiated negotiated) {
        this.negotiated = negotiated;
    }

    /** Whether the client accepts only protobuf answers. */
    boolean wantsProtobuf() {
        return Responses.wantsProtobuf(exchange);
    }

    /** The storage key of the object the path names. */
    StorageKey key() {
        return new StorageKey(type.group(), type.plural(), type.namespaced() ? info.namespace() : "", info.name());
    }

    /** The namespace a list or watch covers: "" for cluster-scoped types, null for all namespaces. */
    String namespaceFilter() {
        if (!type.namespaced()) {
            return "";
        }
        return info.namespace().isEmpty() ? null : info.namespace();
    }

    /**
     * How to admit this request's write: its {@code fieldValidation} (400 when invalid), its warnings (response
     * headers) and {@code dryRun} (400 when not {@code All}). Parsed on first use, then the same object, so every
     * stage of one write adds to the same warnings.
     */
    WriteOptions writeOptions() {
        if (writeOptions == null) {
            writeOptions = new WriteOptions(
                    FieldValidation.parse(query.get("fieldValidation")),
                    new Warnings(value -> exchange.getResponseHeaders().add("Warning", value)),
                    QueryParameters.dryRun(query));
        }
        return writeOptions;
    }
}
