package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.math.BigInteger;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.AlgorithmParameters;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.ECPrivateKeySpec;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * An HTTPS client configured from a kubeconfig, as kubectl would be: it trusts only the kubeconfig's
 * {@code certificate-authority-data}, presents its client certificate if it has one, and sends its bearer
 * token if it has one. Hostname verification stays on.
 */
final class TlsClient {

    record Reply(int code, String body) {}

    private final URI server;
    private final HttpClient http;
    private final String token;

    private TlsClient(URI server, HttpClient http, String token) {
        this.server = server;
        this.http = http;
        this.token = token;
    }

    static TlsClient fromKubeconfig(String kubeconfig) throws Exception {
        JsonNode doc = YAMLMapper.builder().build().readTree(kubeconfig);
        JsonNode cluster = doc.get("clusters").get(0).get("cluster");
        JsonNode user = doc.get("users").get(0).get("user");
        X509Certificate ca =
                certificate(decode(cluster.get("certificate-authority-data").asString()));
        X509Certificate cert = user.has("client-certificate-data")
                ? certificate(decode(user.get("client-certificate-data").asString()))
                : null;
        PrivateKey key = user.has("client-key-data")
                ? key(decode(user.get("client-key-data").asString()))
                : null;
        String token = user.has("token") ? user.get("token").asString() : null;
        return new TlsClient(URI.create(cluster.get("server").asString()), client(ca, cert, key), token);
    }

    /** A client that trusts {@code ca} and presents {@code cert} (null: no certificate). */
    static HttpClient client(X509Certificate ca, X509Certificate cert, PrivateKey key) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", ca);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        KeyManagerFactory kmf = null;
        if (cert != null) {
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            keys.setKeyEntry("client", key, new char[0], new Certificate[] {cert});
            kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, new char[0]);
        }
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        return HttpClient.newBuilder()
                .sslContext(ssl)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
    }

    Reply get(String path) throws Exception {
        return send(HttpRequest.newBuilder(server.resolve(path)).GET());
    }

    Reply send(HttpRequest.Builder request) throws Exception {
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        HttpResponse<String> r =
                http.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        return new Reply(r.statusCode(), r.body());
    }

    /** A request answered as {@link ApiClient} answers: the body parsed when it is JSON (null when empty). */
    ApiClient.Reply request(String method, String path, String contentType, String body) throws Exception {
        return request(method, path, contentType, body, java.util.Map.of());
    }

    /** A request with extra headers, answered as {@link ApiClient} answers. */
    ApiClient.Reply request(
            String method, String path, String contentType, String body, java.util.Map<String, String> headers)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(server.resolve(path))
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        headers.forEach(b::header);
        Reply r = send(b);
        JsonNode json = r.body().isEmpty() || !r.body().startsWith("{") ? null : ApiClient.JSON.readTree(r.body());
        return new ApiClient.Reply(r.code(), json, r.body());
    }

    /** A watch over TLS whose lines are read as {@link ApiClient#watch} reads them. */
    ApiClient.Watch watch(String path, java.util.Map<String, String> headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(server.resolve(path)).GET();
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        headers.forEach(b::header);
        return new ApiClient.Watch(http.send(b.build(), HttpResponse.BodyHandlers.ofLines()));
    }

    static byte[] decode(String base64Pem) {
        return Base64.getDecoder().decode(base64Pem);
    }

    static X509Certificate certificate(byte[] pem) throws Exception {
        return (X509Certificate)
                CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(pem));
    }

    /** A P-256 key from SEC 1 PEM ({@code EC PRIVATE KEY}): the 32-byte secret sits at offset 7. */
    static PrivateKey key(byte[] pem) throws Exception {
        String text = new String(pem, StandardCharsets.US_ASCII);
        assertThat(text).startsWith("-----BEGIN EC PRIVATE KEY-----");
        byte[] der = Base64.getMimeDecoder().decode(text.replaceAll("-----[A-Z ]+-----", ""));
        assertThat(new byte[] {der[2], der[3], der[4], der[5], der[6]}).containsExactly(0x02, 0x01, 0x01, 0x04, 0x20);
        AlgorithmParameters p256 = AlgorithmParameters.getInstance("EC");
        p256.init(new ECGenParameterSpec("secp256r1"));
        return KeyFactory.getInstance("EC")
                .generatePrivate(new ECPrivateKeySpec(
                        new BigInteger(1, Arrays.copyOfRange(der, 7, 39)),
                        p256.getParameterSpec(ECParameterSpec.class)));
    }
}
