package io.kubeloop.apiserver.internal.http;

import com.sun.net.httpserver.HttpExchange;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;

/**
 * Reads a request's body off the connection before anything answers the request, and hands the same bytes to
 * whoever reads {@link HttpExchange#getRequestBody()} later.
 *
 * <p>Why: many answers go out before a handler reads the body (401, 403, 404, 405, 415, an injected 503, 413).
 * The JDK server then drains the unread body only after the answer is flushed, which breaks the kept-alive
 * connection in two ways:
 * <ul>
 *   <li>over TLS its {@code SSLStreams} may pull the client's <em>next</em> request (sent as soon as the answer
 *       arrived) off the socket in the same read as the body's last record. That ciphertext waits in a private
 *       buffer that {@code available()} does not report, so the server hands the connection back to its selector
 *       and waits for bytes it has already read: the next request hangs until the client times out;</li>
 *   <li>a body longer than {@code sun.net.httpserver.drainAmount} (64 KiB) makes it close the connection without
 *       a {@code Connection: close} header, so a client that reuses it loses its next request.</li>
 * </ul>
 *
 * <p>Invariant: after {@link #readAhead}, either the whole body has been read off the connection (the answer can
 * never race the body), or the answer carries {@code Connection: close} and the connection is not reused.
 */
public final class RequestBody {

    /** kube-apiserver's default request body limit ({@code --max-request-bytes}). */
    public static final int MAX_BYTES = 3 * 1024 * 1024;

    private RequestBody() {}

    /**
     * The whole body, for a handler.
     *
     * @throws ApiException 413 RequestEntityTooLarge for a body over {@link #MAX_BYTES}
     */
    static byte[] read(HttpExchange exchange) throws IOException {
        try (InputStream in = exchange.getRequestBody()) {
            byte[] body = in.readNBytes(MAX_BYTES + 1);
            if (body.length > MAX_BYTES) {
                throw new ApiException(io.kubeloop.model.Statuses.failure(
                        io.kubeloop.model.StatusReason.RequestEntityTooLarge,
                        "Request entity too large: limit is " + MAX_BYTES));
            }
            return body;
        }
    }

    /**
     * Reads up to {@code limit} bytes of the body ahead of the handlers; a body longer than that is left to them
     * (they refuse it, 413) and the connection closes after the answer.
     */
    static void readAhead(HttpExchange exchange, int limit) throws IOException {
        if (!hasBody(exchange)) {
            return;
        }
        InputStream in = exchange.getRequestBody();
        byte[] read = in.readNBytes(limit + 1);
        if (read.length <= limit) {
            exchange.setStreams(new ByteArrayInputStream(read), null);
        } else {
            exchange.getResponseHeaders().set("Connection", "close");
            exchange.setStreams(new SequenceInputStream(new ByteArrayInputStream(read), in), null);
        }
    }

    private static boolean hasBody(HttpExchange exchange) {
        if (exchange.getRequestHeaders().containsKey("Transfer-Encoding")) {
            return true;
        }
        String length = exchange.getRequestHeaders().getFirst("Content-Length");
        return length != null && !length.strip().equals("0");
    }
}
