package io.kubeloop.apiserver.internal.auth;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's authentication stage: finds who sent a request and records it with {@link RequestUser#set},
 * or answers 401 Unauthorized. It runs before routing, as kube-apiserver's authentication filter.
 *
 * <p>Rules, in kube-apiserver's order:
 * <ol>
 *   <li>a client certificate signed by the cluster CA authenticates as its CN, groups from its O values;</li>
 *   <li>otherwise {@code Authorization: Bearer <token>} with a known static token authenticates as the
 *       token's user;</li>
 *   <li>credentials that were presented but not accepted get 401, on every path;</li>
 *   <li>a request with no credentials at all is {@link #ANONYMOUS} on {@code /healthz}, {@code /livez},
 *       {@code /readyz} (and their sub-checks) and {@code /version}, and gets 401 everywhere else.</li>
 * </ol>
 * Every authenticated user is also in group {@code system:authenticated}. {@link #OFF} (plain HTTP) records
 * nothing, so every request is {@link UserInfo#ADMIN}.
 *
 * <p>Invariant: neither a token nor a certificate is logged or echoed in a response.
 */
public final class Authentication {

    private static final Logger log = LoggerFactory.getLogger(Authentication.class);

    /** Who a request without credentials is, where anonymous requests are let through. */
    public static final UserInfo ANONYMOUS =
            new UserInfo("system:anonymous", "", List.of("system:unauthenticated"), Map.of());

    /** Authentication off: every request is {@link UserInfo#ADMIN}. */
    public static final Authentication OFF = new Authentication(null, StaticTokens.NONE);

    /** The paths open to anonymous requests, with their sub-paths ({@code /livez/ping}). */
    private static final List<String> ANONYMOUS_PATHS = List.of("/healthz", "/livez", "/readyz", "/version");

    private static final byte[] UNAUTHORIZED = ("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
                    + "\"status\":\"Failure\",\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}")
            .getBytes(StandardCharsets.UTF_8);

    private final ClientCertificates certificates;
    private final StaticTokens tokens;

    private Authentication(ClientCertificates certificates, StaticTokens tokens) {
        this.certificates = certificates;
        this.tokens = tokens;
    }

    /** Authentication by client certificates of {@code clientCa} and by {@code tokens}. */
    public static Authentication of(X509Certificate clientCa, StaticTokens tokens) {
        return new Authentication(
                new ClientCertificates(Objects.requireNonNull(clientCa, "clientCa")),
                Objects.requireNonNull(tokens, "tokens"));
    }

    /**
     * Records the request's user and returns true, or answers 401 and returns false (the caller then stops:
     * the exchange is answered).
     */
    public boolean authenticate(HttpExchange exchange) throws IOException {
        if (certificates == null) {
            return true;
        }
        String rejected = null;
        ClientCertificates.Result cert = certificates.authenticate(exchange);
        if (cert instanceof ClientCertificates.Authenticated a) {
            RequestUser.set(exchange, a.user());
            return true;
        }
        if (cert instanceof ClientCertificates.Rejected r) {
            rejected = r.reason();
        }
        Optional<String> bearer = bearer(exchange);
        if (bearer.isPresent()) {
            Optional<UserInfo> user = tokens.user(bearer.get());
            if (user.isPresent()) { // as kube's union authenticator: one that succeeds wins over one that failed
                RequestUser.set(exchange, user.get());
                return true;
            }
            rejected = rejected == null ? "unknown bearer token" : rejected;
        }
        if (rejected == null && anonymousAllowed(exchange.getRequestURI().getPath())) {
            RequestUser.set(exchange, ANONYMOUS);
            return true;
        }
        log.debug(
                "401 Unauthorized: {} {}: {}",
                exchange.getRequestMethod(),
                exchange.getRequestURI().getPath(),
                rejected == null ? "no credentials" : rejected);
        unauthorized(exchange);
        return false;
    }

    /** The token of {@code Authorization: Bearer <token>}, as kube-apiserver reads the header. */
    private static Optional<String> bearer(HttpExchange exchange) {
        String header = exchange.getRequestHeaders().getFirst("Authorization");
        if (header == null) {
            return Optional.empty();
        }
        String[] parts = header.strip().split(" ", 3);
        if (parts.length < 2 || !parts[0].equalsIgnoreCase("bearer") || parts[1].isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(parts[1]);
    }

    private static boolean anonymousAllowed(String path) {
        String p = path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        for (String open : ANONYMOUS_PATHS) {
            if (p.equals(open) || p.startsWith(open + "/")) {
                return true;
            }
        }
        return false;
    }

    private static void unauthorized(HttpExchange exchange) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.getResponseHeaders().set("Cache-Control", "no-cache, private");
        boolean head = exchange.getRequestMethod().equals("HEAD");
        exchange.sendResponseHeaders(401, head ? -1 : UNAUTHORIZED.length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(UNAUTHORIZED);
            }
        }
    }

    @Override
    public String toString() {
        return certificates == null ? "Authentication[off]" : "Authentication[client certificates, " + tokens + "]";
    }
}
