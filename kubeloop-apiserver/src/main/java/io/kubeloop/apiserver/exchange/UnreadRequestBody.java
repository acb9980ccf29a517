package io.kubeloop.apiserver.exchange;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;

/**
 * Reads and drops what is left of a request body before the response is sent, so that the connection can carry
 * the next request.
 *
 * <p>Why: a refusal (401, 403, 415, ...) is answered before the body is read. The JDK server then finishes the
 * response while request bytes are still unread and closes the connection; over TLS the client can keep using
 * that connection and its next request hangs until it times out (seen with java.net.http: a 403 POST, then a GET
 * that never gets an answer). Go's net/http, which kube-apiserver runs on, likewise drains a small unread body
 * so the connection stays usable.
 *
 * <p>At most {@link #LIMIT} bytes are read; a longer body is left, and the JDK server closes that connection as
 * before.
 */
public final class UnreadRequestBody {

    /** More than any body the server accepts (3 MiB), so that a 413 can also keep its connection. */
    static final int LIMIT = 4 * 1024 * 1024;

    private UnreadRequestBody() {}

    /** Drops the rest of {@code exchange}'s request body, up to {@link #LIMIT} bytes; never throws. */
    public static void discard(HttpExchange exchange) {
        try {
            InputStream in = exchange.getRequestBody();
            long left = LIMIT;
            byte[] buffer = new byte[8192];
            int n;
            while (left > 0 && (n = in.read(buffer, 0, (int) Math.min(buffer.length, left))) > 0) {
                left -= n;
            }
        } catch (IOException | RuntimeException e) {
            // the client went away or sent a malformed body: the response (or the connection's end) tells it
        }
    }
}
