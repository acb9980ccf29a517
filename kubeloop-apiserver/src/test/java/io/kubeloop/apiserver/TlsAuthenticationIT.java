package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** HTTPS and authentication of the embedded server, over real TLS with a client that trusts only its CA. */
class TlsAuthenticationIT {

    static final String UNAUTHORIZED =
            "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                    + "\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}";

    private EmbeddedApiServer server;

    @TempDir
    Path dir;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private HttpClient anonymous() throws Exception {
        return TlsClient.client(server.certificateAuthority(), null, null);
    }

    private HttpResponse<String> get(HttpClient client, String path, String authorization) throws Exception {
        HttpRequest.Builder b =
                HttpRequest.newBuilder(server.url().resolve(path)).timeout(Duration.ofSeconds(30));
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theServersOwnKubeconfigVerifiesTheServerAndLogsInAsAdmin() throws Exception {
        server = EmbeddedApiServer.builder().tls().start();
        assertThat(server.url().getScheme()).isEqualTo("https");
        String kubeconfig = server.kubeconfig();
        assertThat(kubeconfig)
                .contains("server: " + server.url())
                .contains("certificate-authority-data: ")
                .contains("client-certificate-data: ")
                .contains("client-key-data: ")
                .doesNotContain("insecure-skip-tls-verify");

        TlsClient.Reply namespaces = TlsClient.fromKubeconfig(kubeconfig).get("/api/v1/namespaces");
        assertThat(namespaces.code()).as(namespaces.body()).isEqualTo(200);
        assertThat(namespaces.body()).contains("kube-system");

        TlsClient.Reply created = TlsClient.fromKubeconfig(kubeconfig)
                .send(HttpRequest.newBuilder(server.url().resolve("/api/v1/namespaces/default/configmaps"))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(
                                "{\"metadata\":{\"name\":\"c\"},\"data\":{\"k\":\"v\"}}")));
        assertThat(created.code()).as(created.body()).isEqualTo(201);
    }

    @Test
    void aWatchStreamsOverTls() throws Exception {
        server = EmbeddedApiServer.builder()
                .tls()
                .token("alice", "alice-token-0123456789")
                .start();
        HttpClient client = anonymous();
        HttpResponse<java.util.stream.Stream<String>> watch = client.send(
                HttpRequest.newBuilder(
                                server.url()
                                        .resolve(
                                                "/api/v1/namespaces/default/configmaps?watch=true&fieldSelector=metadata.name%3Dw"))
                        .header("Authorization", "Bearer alice-token-0123456789")
                        .build(),
                HttpResponse.BodyHandlers.ofLines());
        assertThat(watch.statusCode()).isEqualTo(200);
        java.util.concurrent.CompletableFuture<String> first = java.util.concurrent.CompletableFuture.supplyAsync(
                () -> watch.body().findFirst().orElse(""));
        HttpResponse<String> created = client.send(
                HttpRequest.newBuilder(server.url().resolve("/api/v1/namespaces/default/configmaps"))
                        .header("Content-Type", "application/json")
                        .header("Authorization", "Bearer alice-token-0123456789")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"metadata\":{\"name\":\"w\"}}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        assertThat(first.get(30, java.util.concurrent.TimeUnit.SECONDS))
                .contains("\"type\":\"ADDED\"")
                .contains("\"name\":\"w\"");
    }

    @Test
    void aValidTokenIsAcceptedAndAMissingOrWrongOneGets401() throws Exception {
        server = EmbeddedApiServer.builder()
                .tls()
                .token("alice", "alice-token-0123456789", "devs")
                .start();
        HttpClient client = anonymous();

        assertThat(get(client, "/api/v1/namespaces", "Bearer alice-token-0123456789")
                        .statusCode())
                .isEqualTo(200);
        assertThat(get(client, "/api/v1/namespaces", "bearer alice-token-0123456789")
                        .statusCode())
                .as("the scheme is case-insensitive")
                .isEqualTo(200);
        TlsClient.Reply viaKubeconfig = TlsClient.fromKubeconfig(server.kubeconfigForToken("alice-token-0123456789"))
                .get("/apis/apps/v1/namespaces/default/deployments");
        assertThat(viaKubeconfig.code()).as(viaKubeconfig.body()).isEqualTo(200);

        for (String authorization : new String[] {null, "Bearer wrong-token", "Bearer ", "Basic YWxpY2U6cHc="}) {
            HttpResponse<String> r = get(client, "/api/v1/namespaces", authorization);
            assertThat(r.statusCode()).as("Authorization: %s", authorization).isEqualTo(401);
            assertThat(r.body()).isEqualTo(UNAUTHORIZED);
            assertThat(r.headers().firstValue("Content-Type")).hasValue("application/json");
        }
        HttpResponse<String> post = client.send(
                HttpRequest.newBuilder(server.url().resolve("/api/v1/namespaces"))
                        .POST(HttpRequest.BodyPublishers.ofString("{\"metadata\":{\"name\":\"x\"}}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(post.statusCode()).isEqualTo(401);
        assertThat(get(client, "/api/v1/namespaces/x", "Bearer alice-token-0123456789")
                        .statusCode())
                .as("the unauthenticated create did nothing")
                .isEqualTo(404);
    }

    @Test
    void healthAndVersionAreOpenToAnonymousRequestsButNotToBadCredentials() throws Exception {
        server = EmbeddedApiServer.builder().tls().start();
        HttpClient client = anonymous();
        for (String path : new String[] {"/healthz", "/livez", "/readyz", "/readyz/ping", "/version"}) {
            assertThat(get(client, path, null).statusCode()).as(path).isEqualTo(200);
        }
        for (String path : new String[] {"/api", "/apis", "/openapi/v3", "/metrics", "/nope", "/api/v1/pods"}) {
            HttpResponse<String> r = get(client, path, null);
            assertThat(r.statusCode()).as(path).isEqualTo(401);
            assertThat(r.body()).isEqualTo(UNAUTHORIZED);
        }
        assertThat(get(client, "/healthz", "Bearer not-a-token").statusCode())
                .as("presented credentials that fail are refused even where anonymous requests pass")
                .isEqualTo(401);
    }

    @Test
    void aMintedClientCertificateLogsIn() throws Exception {
        server = EmbeddedApiServer.builder().tls().start();
        Path kubeconfig = server.writeKubeconfigFor(dir.resolve("bob/kubeconfig"), "bob", "devs", "ops");
        assertThat(Files.getPosixFilePermissions(kubeconfig)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        TlsClient.Reply r =
                TlsClient.fromKubeconfig(Files.readString(kubeconfig)).get("/api/v1/namespaces/default");
        assertThat(r.code()).as(r.body()).isEqualTo(200);
        Path admin = server.writeKubeconfig(dir.resolve("admin"));
        assertThat(Files.getPosixFilePermissions(admin)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
    }

    @Test
    void aClientCertificateOfAnotherCaIsRefused() throws Exception {
        server = EmbeddedApiServer.builder().tls().start();
        try (EmbeddedApiServer other = EmbeddedApiServer.builder().tls().start()) {
            // other's admin key and certificate, but trusting this server's CA
            TlsClient foreign = TlsClient.fromKubeconfig(other.kubeconfig()
                    .replace("server: " + other.url(), "server: " + server.url())
                    .replaceFirst(
                            "certificate-authority-data: \\S+",
                            "certificate-authority-data: "
                                    + java.util.Base64.getEncoder()
                                            .encodeToString(pem(server.certificateAuthority())
                                                    .getBytes())));
            assertThatThrownBy(() -> foreign.get("/api/v1/namespaces")).isInstanceOf(java.io.IOException.class);
        }
    }

    @Test
    void theServerCertificateIsOnlyTrustedThroughItsOwnCa() throws Exception {
        server = EmbeddedApiServer.builder().tls().start();
        HttpClient defaultTrust =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        assertThatThrownBy(() -> get(defaultTrust, "/healthz", null))
                .isInstanceOf(javax.net.ssl.SSLHandshakeException.class);
        // localhost is one of the serving certificate's names, checked by hostname verification
        HttpResponse<String> viaName = anonymous()
                .send(
                        HttpRequest.newBuilder(URI.create("https://localhost:" + server.port() + "/healthz"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(viaName.body()).isEqualTo("ok");
    }

    @Test
    void onlyTls12AndNewerAreOffered() throws Exception {
        server = EmbeddedApiServer.builder().tls().start();
        for (String protocol : new String[] {"TLSv1.2", "TLSv1.3"}) {
            javax.net.ssl.SSLContext ctx = javax.net.ssl.SSLContext.getInstance("TLS");
            javax.net.ssl.TrustManagerFactory tmf = javax.net.ssl.TrustManagerFactory.getInstance(
                    javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
            java.security.KeyStore ks = java.security.KeyStore.getInstance("PKCS12");
            ks.load(null, null);
            ks.setCertificateEntry("ca", server.certificateAuthority());
            tmf.init(ks);
            ctx.init(null, tmf.getTrustManagers(), null);
            try (javax.net.ssl.SSLSocket socket =
                    (javax.net.ssl.SSLSocket) ctx.getSocketFactory().createSocket("127.0.0.1", server.port())) {
                socket.setEnabledProtocols(new String[] {protocol});
                socket.startHandshake();
                assertThat(socket.getSession().getProtocol()).isEqualTo(protocol);
            }
        }
    }

    @Test
    void theCaKeptInAFolderSurvivesARestart() throws Exception {
        Path caDir = dir.resolve("ca");
        server = EmbeddedApiServer.builder().tls(caDir).start();
        String bob = server.kubeconfigFor("bob");
        assertThat(Files.getPosixFilePermissions(caDir.resolve("ca.key")))
                .isEqualTo(PosixFilePermissions.fromString("rw-------"));
        assertThat(Files.readString(caDir.resolve("ca.crt"))).startsWith("-----BEGIN CERTIFICATE-----");
        server.close();

        server = EmbeddedApiServer.builder().tls(caDir).start();
        TlsClient.Reply r = TlsClient.fromKubeconfig(bob.replaceFirst("server: \\S+", "server: " + server.url()))
                .get("/api/v1/namespaces");
        assertThat(r.code())
                .as("a kubeconfig minted before the restart still verifies and logs in")
                .isEqualTo(200);
    }

    @Test
    void badSettingsAreReportedPlainly() throws Exception {
        assertThatThrownBy(() -> EmbeddedApiServer.builder().token("a", "t0ken").start())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("tls()");
        assertThatThrownBy(() -> EmbeddedApiServer.builder().token("a", "bad token"))
                .hasMessageContaining("token for user a")
                .hasMessageContaining("position 4");
        server = EmbeddedApiServer.builder().start();
        assertThatThrownBy(() -> server.kubeconfigFor("bob"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("tls()");
        server.close();
        server = EmbeddedApiServer.builder().tls().token("a", "good-token").start();
        assertThatThrownBy(() -> server.kubeconfigForToken("other-token"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageNotContaining("other-token");

        Path caDir = Files.createDirectories(dir.resolve("half"));
        Files.writeString(caDir.resolve("ca.crt"), "x");
        assertThatThrownBy(() -> EmbeddedApiServer.builder().tls(caDir).start())
                .hasMessageContaining("has ca.crt but no ca.key");
    }

    @Test
    void plainHttpStaysOpenAsBefore() throws Exception {
        server = EmbeddedApiServer.builder().start();
        assertThat(server.url().getScheme()).isEqualTo("http");
        assertThat(server.kubeconfig())
                .doesNotContain("certificate-authority-data")
                .contains("user: {}");
        ApiClient.Reply r = new ApiClient(server.url()).get("/api/v1/namespaces");
        assertThat(r.code()).isEqualTo(200);
    }

    static String pem(java.security.cert.X509Certificate cert) throws Exception {
        return "-----BEGIN CERTIFICATE-----\n"
                + java.util.Base64.getMimeEncoder().encodeToString(cert.getEncoded()) + "\n-----END CERTIFICATE-----\n";
    }
}
