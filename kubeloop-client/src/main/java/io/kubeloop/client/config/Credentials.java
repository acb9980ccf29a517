package io.kubeloop.client.config;

import java.util.Optional;

/**
 * How a request proves who it comes from, asked once per request by the transport. A bearer token or basic
 * auth comes back from {@link #authorization()} as the whole {@code Authorization} header value; a client
 * certificate lives in the {@link ClientConfig#sslContext() SSLContext} instead and this answers empty.
 *
 * <p>Implementations are thread-safe and cheap when nothing changed: a token file is re-read only when it
 * changes (or at most a minute later), an exec plugin runs again only once its credential expired or was
 * {@link #invalidate() invalidated}. {@code toString()} never shows a secret.
 */
public interface Credentials {

    /**
     * The {@code Authorization} header value for the next request, e.g. {@code Bearer <token>} or
     * {@code Basic <base64>}; empty when the request carries none.
     *
     * @throws ConfigException if the credential cannot be obtained (a token file vanished, a plugin failed)
     */
    Optional<String> authorization();

    /**
     * The server answered 401 Unauthorized with the current credential: forget it, so that the next
     * {@link #authorization()} reads the token file or runs the plugin again. A no-op for static credentials.
     */
    void invalidate();

    /** No credentials: anonymous, or a client certificate only. */
    static Credentials none() {
        return StaticCredentials.NONE;
    }
}
