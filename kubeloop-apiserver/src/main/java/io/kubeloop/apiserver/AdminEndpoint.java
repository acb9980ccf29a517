package io.kubeloop.apiserver;

import java.util.Map;

/**
 * An extension of the server's admin HTTP API: {@link EmbeddedApiServer.Builder#adminEndpoint(String,
 * AdminEndpoint)} serves one under {@code /kubeloop/<name>} and every path below it, next to the fault admin path
 * {@code /kubeloop/faults}. It is how a component that runs beside the server (the embedded cluster's node
 * controls, say) offers operations to the CLI and to scripts without being a Kubernetes resource.
 *
 * <p>The server does the HTTP: only the administrator reaches an endpoint (members of {@code system:masters}; with
 * authentication off every request is the administrator, others get a 403 Status), requests are never delayed,
 * failed or held by injected faults, and the endpoint is served whether or not fault injection is enabled. An
 * endpoint answers with a JSON document, sent with status 200, or throws:
 *
 * <ul>
 *   <li>{@link IllegalArgumentException}: 400 Bad Request, its message the Status's message (say what was wrong);
 *   <li>{@link java.util.NoSuchElementException}: 404 Not Found, with its message;
 *   <li>{@link UnsupportedOperationException}: 405 Method Not Allowed, with its message;
 *   <li>anything else: 500, logged by the server.
 * </ul>
 *
 * <p>Calls may come concurrently, each on its own virtual thread: an endpoint must be thread-safe.
 */
@FunctionalInterface
public interface AdminEndpoint {

    /**
     * Serves one request.
     *
     * @param method the HTTP method, upper case ({@code GET}, {@code POST}, ...)
     * @param subpath the path below {@code /kubeloop/<name>}: {@code ""} for the endpoint itself, else starting with
     *     {@code /} ({@code "/nodes/node-1/stop"}), percent-decoded, without a trailing slash
     * @param query the query parameters, decoded; the first value of a repeated one; a parameter without a value
     *     maps to {@code ""}
     * @param body the request body as UTF-8 text, {@code ""} when there is none
     * @return the answer: a JSON document (object, array or scalar), sent with status 200
     */
    String handle(String method, String subpath, Map<String, String> query, String body);
}
