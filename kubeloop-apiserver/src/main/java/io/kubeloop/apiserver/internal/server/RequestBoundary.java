package io.kubeloop.apiserver.internal.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.fabric8.kubernetes.api.model.Status;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.model.StatusReason;
import io.kubeloop.model.Statuses;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * The outermost handler of the embedded API server: what runs between the JDK server's exchange and the API's
 * router, on the request's own virtual thread.
 *
 * <p>Invariants:
 * <ul>
 *   <li>Nothing a request does escapes it: every {@link Throwable} (an {@link OutOfMemoryError} from a huge
 *       request, a {@link StackOverflowError}, a bug) is caught here, logged with the method and path, answered
 *       with a 500 {@code Status} when the answer has not started, and the connection is closed. The JDK server
 *       rethrows what a handler throws and leaves that connection in limbo (never answered, never reaped), and an
 *       {@code Error} has no business travelling further up a thread the server may share.</li>
 *   <li>A body declared larger than {@link #maxBodyBytes} by {@code Content-Length} is refused with kube's 413
 *       before a byte of it is read, and the connection is closed, so an oversized upload costs nothing. (With
 *       {@code Expect: 100-continue} the JDK server has already sent the interim {@code 100 Continue} by then:
 *       it does so before any handler runs; the client gets the 413 next, and no byte of its body is read.)</li>
 * </ul>
 */
public final class RequestBoundary implements HttpHandler {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedApiServer.class);

    /** Written when even building the 500 answer fails (e.g. memory is still short). */
    private static final byte[] FALLBACK_500 =
            ("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                            + "\"message\":\"Internal error occurred: the request failed\",\"reason\":\"InternalError\",\"code\":500}")
                    .getBytes(StandardCharsets.UTF_8);

    private final HttpHandler delegate;
    private final JsonMapper json;
    private final long maxBodyBytes;

    /**
     * @param delegate the API's router
     * @param json the mapper for the Status answers
     * @param maxBodyBytes the largest request body accepted (kube-apiserver's 3 MiB)
     */
    public RequestBoundary(HttpHandler delegate, JsonMapper json, long maxBodyBytes) {
        this.delegate = delegate;
        this.json = json;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        if (declaredTooLarge(exchange)) {
            answer(
                    exchange,
                    413,
                    Statuses.failure(
                            StatusReason.RequestEntityTooLarge, "Request entity too large: limit is " + maxBodyBytes));
            // Closing the exchange would first drain up to 64 KiB of the body the client may never send
            // (sun.net.httpserver.drainAmount), holding the connection. The JDK server closes the connection at
            // once when a handler throws an IOException, and the answer is already flushed.
            throw new IOException("closing the connection without reading the refused body");
        }
        try {
            delegate.handle(exchange);
        } catch (Throwable t) { // every Error too: see the type's invariants
            failed(exchange, t);
        } finally {
            exchange.close();
        }
    }

    private boolean declaredTooLarge(HttpExchange exchange) {
        String length = exchange.getRequestHeaders().getFirst("Content-Length");
        if (length == null) {
            return false;
        }
        try {
            return Long.parseLong(length.strip()) > maxBodyBytes;
        } catch (NumberFormatException e) {
            return false; // the JDK server answers malformed lengths itself, before any handler
        }
    }

    private void failed(HttpExchange exchange, Throwable t) {
        try {
            log.error("{} {} failed", exchange.getRequestMethod(), exchange.getRequestURI(), t);
        } catch (Throwable logging) { // e.g. still out of memory: answering matters more than the log line
            t.addSuppressed(logging);
        }
        if (exchange.getResponseCode() != -1) {
            return; // the answer has started: closing is all that is left (the client sees a truncated body)
        }
        try {
            answer(
                    exchange,
                    500,
                    Statuses.failure(
                            StatusReason.InternalError,
                            "Internal error occurred: " + t.getClass().getSimpleName()));
        } catch (Throwable again) {
            try {
                exchange.getResponseHeaders().set("Content-Type", "application/json");
                exchange.getResponseHeaders().set("Connection", "close");
                exchange.sendResponseHeaders(500, FALLBACK_500.length);
                exchange.getResponseBody().write(FALLBACK_500);
            } catch (IOException | RuntimeException closed) {
                // the exchange was already closed (the router's finally): the connection closes without an answer
            }
        }
    }

    /** Answers a Status and closes the connection afterwards (the request's body, if any, stays unread). */
    private void answer(HttpExchange exchange, int code, Status status) throws IOException {
        byte[] body = json.writeValueAsBytes(status);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.getResponseHeaders().set("Connection", "close");
        exchange.sendResponseHeaders(code, body.length);
        OutputStream out = exchange.getResponseBody();
        out.write(body);
        out.flush(); // on the wire now, whatever happens to the connection next
    }
}
