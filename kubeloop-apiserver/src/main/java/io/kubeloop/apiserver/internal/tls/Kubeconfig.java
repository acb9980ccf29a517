package io.kubeloop.apiserver.internal.tls;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Renders the kubeconfigs kubeloop writes. For an HTTPS server the cluster entry carries
 * {@code certificate-authority-data} (so kubectl verifies the server; never {@code insecure-skip-tls-verify})
 * and the user entry carries a client certificate and key, or a bearer token; such a result holds credentials:
 * write it with {@link SecretFiles}. For a plain HTTP server there is neither. Context, cluster and user are all
 * named {@code kubeloop}, namespace {@code default}.
 */
public final class Kubeconfig {

    private Kubeconfig() {}

    /** A kubeconfig that logs in with {@code client}'s certificate and key. */
    public static String clientCertificate(URI server, CertificateAuthority authority, IssuedCertificate client) {
        return render(
                server, authority, """
                    client-certificate-data: %s
                    client-key-data: %s
                """.formatted(base64(client.certificatePem()), base64(client.privateKeyPem())));
    }

    /**
     * A kubeconfig that logs in with a bearer token.
     *
     * @throws IllegalArgumentException if the token is not a valid static token (see {@code StaticTokens})
     */
    public static String token(URI server, CertificateAuthority authority, String token) {
        io.kubeloop.apiserver.internal.auth.StaticTokens.checkToken(token);
        return render(server, authority, "    token: \"" + token + "\"\n");
    }

    /** A kubeconfig for a plain HTTP server: no certificate authority, no credentials. */
    public static String plain(URI server) {
        return render(server, null, "");
    }

    /** {@code authority} null for plain HTTP; {@code userFields} the user entry's indented lines, or none. */
    private static String render(URI server, CertificateAuthority authority, String userFields) {
        String ca =
                authority == null ? "" : "    certificate-authority-data: " + base64(authority.certificatePem()) + "\n";
        String user = userFields.isEmpty() ? "  user: {}\n" : "  user:\n" + userFields;
        return """
                apiVersion: v1
                kind: Config
                clusters:
                - name: kubeloop
                  cluster:
                    server: %s
                %susers:
                - name: kubeloop
                %scontexts:
                - name: kubeloop
                  context:
                    cluster: kubeloop
                    user: kubeloop
                    namespace: default
                current-context: kubeloop
                """.formatted(server, ca, user);
    }

    private static String base64(String pem) {
        return Base64.getEncoder().encodeToString(pem.getBytes(StandardCharsets.US_ASCII));
    }
}
