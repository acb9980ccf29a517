package io.kubeloop.client.config;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsExchange;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * A real HTTPS server on loopback whose certificate (self-signed, SANs localhost, kube.example, 127.0.0.1)
 * the test trusts, and that asks for any client certificate and answers with what it saw:
 * {@code client=<subject or none> auth=<Authorization header or none>}. The TLS handshake checks the
 * client's CertificateVerify signature, so a client key that does not match its certificate fails here.
 */
final class TlsTestServer implements AutoCloseable {

    final X509Certificate certificate;
    private final HttpsServer server;

    TlsTestServer() throws Exception {
        KeyPair pair = TestPki.ec("secp256r1");
        certificate =
                TestPki.selfSigned(pair, "test-server", List.of("localhost", "kube.example"), List.of("127.0.0.1"));
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        ks.setKeyEntry("server", pair.getPrivate(), new char[0], new Certificate[] {certificate});
        KeyManagerFactory kmf = KeyManagerFactory.getInstance("SunX509");
        kmf.init(ks, new char[0]);
        X509TrustManager anyClient = new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) {}

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) {}

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        };
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf.getKeyManagers(), new TrustManager[] {anyClient}, null);
        server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(ctx) {
            @Override
            public void configure(HttpsParameters params) {
                SSLParameters p = getSSLContext().getDefaultSSLParameters();
                p.setWantClientAuth(true);
                params.setSSLParameters(p);
            }
        });
        server.createContext("/", ex -> {
            String client;
            try {
                client = ((X509Certificate) ((HttpsExchange) ex).getSSLSession().getPeerCertificates()[0])
                        .getSubjectX500Principal()
                        .getName();
            } catch (SSLPeerUnverifiedException e) {
                client = "none";
            }
            String auth = ex.getRequestHeaders().getFirst("Authorization");
            byte[] body =
                    ("client=" + client + " auth=" + (auth == null ? "none" : auth)).getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.start();
    }

    String caPem() {
        return TestPki.pem(certificate);
    }

    URI url(String host) {
        return URI.create("https://" + host + ":" + server.getAddress().getPort());
    }

    /** GET / with a fresh HttpClient from {@code config}, its Authorization header included; the body. */
    static String call(ClientConfig config) throws Exception {
        try (HttpClient http = config.httpClientBuilder()
                .connectTimeout(Duration.ofSeconds(10))
                .build()) {
            HttpRequest.Builder req =
                    HttpRequest.newBuilder(config.server().resolve("/")).timeout(Duration.ofSeconds(10));
            config.credentials().authorization().ifPresent(a -> req.header("Authorization", a));
            HttpResponse<String> res = http.send(req.build(), HttpResponse.BodyHandlers.ofString());
            return res.body();
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
