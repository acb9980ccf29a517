package io.kubeloop.apiserver.internal.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.fabric8.kubernetes.api.model.Status;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.model.StatusReason;
import io.kubeloop.model.Statuses;
import java.io.IOException;
import java.io.InputStream;
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
 *       before a byte of it is stored, and the connection is closed. Before closing, what the client sends of the
 *       body is read and thrown away, up to {@link #LINGER_BYTES} beyond the limit (a "lingering close", as Go's
 *       server does): closing a socket with unread bytes makes the kernel reset the connection, and the reset
 *       discards the 413 the client has not read yet. A body declared larger still is not read at all: the
 *       client may lose the answer, but no client can make the server read gigabytes. (With {@code Expect:
 *       100-continue} the JDK server has already sent the interim {@code 100 Continue}: it does so before any
 *       handler runs.)</li>
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
            lingerOver(exchange);
            // Closing the exchange would drain more of the body (sun.net.httpserver.drainAmount); the JDK server
            // closes the connection at once when a handler throws an IOException, and the answer is flushed.
            throw new IOException("closing the connection after refusing its body");
        }
        try {
            delegate.handle(exchange);
        } catch (Throwable t) { // every Error too: see the type's invariants
            failed(exchange, t);
        } finally {
            exchange.close();
        }
    }

    /** Bytes beyond the body limit a refused body is read and discarded for, before its connection closes. */
    static final long LINGER_BYTES = 4L * 1024 * 1024;

    /**
     * Reads and discards the refused body, when it is declared no larger than the limit plus {@link #LINGER_BYTES},
     * so that the connection closes without unread bytes (see the type's invariants). A client that stops sending
     * is cut off by the JDK server's request-time limit ({@code ConnectionLimits}).
     */
    private void lingerOver(HttpExchange exchange) {
        long declared = Long.parseLong(
                exchange.getRequestHeaders().getFirst("Content-Length").strip());
        if (declared > maxBodyBytes + LINGER_BYTES) {
            return;
        }
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = exchange.getRequestBody()) {
            while (in.read(buffer) >= 0) {
                // discard: the stream ends at the declared length
            }
        } catch (IOException clientGone) {
            // nothing left to protect
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
