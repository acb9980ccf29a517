package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpsServer;
import io.kubeloop.apiserver.internal.auth.Authentication;
import io.kubeloop.apiserver.internal.auth.RequestUser;
import io.kubeloop.apiserver.internal.auth.StaticTokens;
import io.kubeloop.apiserver.internal.auth.UserInfo;
import io.kubeloop.apiserver.internal.tls.IssuedCertificate;
import io.kubeloop.apiserver.internal.tls.ServerTls;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which identity {@link Authentication} records for a request, observed over real TLS through a test handler
 * that runs it and echoes {@link RequestUser#of}: the identity the RBAC authorizer and the review endpoints read.
 */
class AuthenticationIdentityIT {

    @TempDir
    Path dir;

    private ServerTls tls;
    private HttpsServer https;
    private ExecutorService executor;
    private URI base;

    @BeforeEach
    void start() throws Exception {
        Path tokenFile = dir.resolve("tokens.csv");
        Files.writeString(tokenFile, """
                carol-token,carol,uid-42,"qa,ops"

                dave-token,dave,,
                """);
        StaticTokens tokens = StaticTokens.NONE
                .with("alice", "alice-token", java.util.List.of("devs"))
                .withFile(tokenFile);
        tls = ServerTls.start(null, InetAddress.getLoopbackAddress());
        Authentication authentication = Authentication.of(tls.authority().certificate(), tokens);
        https = tls.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        https.createContext("/", exchange -> {
            try (exchange) {
                if (!authentication.authenticate(exchange)) {
                    return;
                }
                UserInfo u = RequestUser.of(exchange);
                byte[] body = (u.name() + "|" + u.uid() + "|" + String.join(";", u.groups()))
                        .getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
            }
        });
        executor = Executors.newVirtualThreadPerTaskExecutor();
        https.setExecutor(executor);
        https.start();
        base = URI.create("https://127.0.0.1:" + https.getAddress().getPort());
    }

    @AfterEach
    void stop() {
        https.stop(0);
        executor.shutdownNow();
    }

    private HttpResponse<String> get(HttpClient client, String path, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(30));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpClient withCertificate(IssuedCertificate cert) throws Exception {
        return TlsClient.client(tls.authority().certificate(), cert.certificate(), cert.privateKey());
    }

    @Test
    void aClientCertificateIsItsCommonNameInItsOrganizations() throws Exception {
        IssuedCertificate bot = tls.issueClient("system:serviceaccount:ns:bot", "team, with comma", "devs");
        assertThat(get(withCertificate(bot), "/anything", null).body())
                .isEqualTo("system:serviceaccount:ns:bot||team, with comma;devs;system:authenticated");
        assertThat(get(withCertificate(tls.admin()), "/x", null).body())
                .isEqualTo("kubeloop-admin||system:masters;system:authenticated");
        assertThat(get(withCertificate(bot), "/x", "not-a-token").body())
                .as("a valid certificate decides, as kube's x509 authenticator comes first")
                .startsWith("system:serviceaccount:ns:bot|");
    }

    @Test
    void aTokenIsItsUserWithUidAndGroups() throws Exception {
        HttpClient client = TlsClient.client(tls.authority().certificate(), null, null);
        assertThat(get(client, "/x", "alice-token").body()).isEqualTo("alice||devs;system:authenticated");
        assertThat(get(client, "/x", "carol-token").body()).isEqualTo("carol|uid-42|qa;ops;system:authenticated");
        assertThat(get(client, "/x", "dave-token").body()).isEqualTo("dave||system:authenticated");
    }

    @Test
    void noCredentialsIsAnonymousOnHealthAndVersionOnly() throws Exception {
        HttpClient client = TlsClient.client(tls.authority().certificate(), null, null);
        assertThat(get(client, "/livez/ping", null).body()).isEqualTo("system:anonymous||system:unauthenticated");
        assertThat(get(client, "/version", null).body()).isEqualTo("system:anonymous||system:unauthenticated");
        HttpResponse<String> api = get(client, "/api", null);
        assertThat(api.statusCode()).isEqualTo(401);
        assertThat(api.body()).isEqualTo(TlsAuthenticationIT.UNAUTHORIZED);
        assertThat(get(client, "/healthzz", null).statusCode())
                .as("only the health paths themselves")
                .isEqualTo(401);
    }

    @Test
    void aCertificateOfTheCaWithoutClientAuthUsageIsRefused() throws Exception {
        // the serving certificate is signed by the same CA but is for servers only
        HttpClient client = withCertificate(tls.serving());
        int code;
        try {
            code = get(client, "/x", null).statusCode();
        } catch (java.io.IOException handshakeRefused) {
            code = -1;
        }
        assertThat(code).as("refused in the handshake (-1) or with 401").isIn(-1, 401);
    }
}
