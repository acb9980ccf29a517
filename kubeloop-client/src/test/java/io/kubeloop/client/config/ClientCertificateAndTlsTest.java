package io.kubeloop.client.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Client keys of every format kubectl reads, generated now, given by the builder, as kubeconfig {@code -data}
 * and as files relative to the kubeconfig — each proven by a real TLS handshake in which the server sees the
 * certificate. And the server-side checks: CA, no CA, insecure, tls-server-name.
 */
class ClientCertificateAndTlsTest {

    static TlsTestServer server;

    @BeforeAll
    static void start() throws Exception {
        server = new TlsTestServer();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    /** One generated key in one encoding, with a certificate for it. */
    record KeyCase(String label, String keyPem, String certPem, String cn) {
        @Override
        public String toString() {
            return label;
        }
    }

    private static final List<KeyCase> KEYS = generateKeys();

    static List<KeyCase> keys() {
        return KEYS;
    }

    private static List<KeyCase> generateKeys() {
        List<KeyCase> out = new ArrayList<>();
        KeyPair rsa = TestPki.rsa();
        X509Certificate rsaCert = TestPki.selfSigned(rsa, "rsa-user", List.of(), List.of());
        out.add(new KeyCase("RSA PKCS#8", TestPki.pkcs8(rsa.getPrivate()), TestPki.pem(rsaCert), "rsa-user"));
        out.add(new KeyCase("RSA PKCS#1", TestPki.pkcs1(rsa.getPrivate()), TestPki.pem(rsaCert), "rsa-user"));
        for (String[] curve : new String[][] {{"secp256r1", "1.2.840.10045.3.1.7"}, {"secp384r1", "1.3.132.0.34"}}) {
            KeyPair ec = TestPki.ec(curve[0]);
            String cn = "ec-" + curve[0];
            X509Certificate cert = TestPki.selfSigned(ec, cn, List.of(), List.of());
            out.add(new KeyCase("EC " + curve[0] + " PKCS#8", TestPki.pkcs8(ec.getPrivate()), TestPki.pem(cert), cn));
            out.add(new KeyCase("EC " + curve[0] + " SEC1", TestPki.sec1(ec, curve[1]), TestPki.pem(cert), cn));
            // openssl ecparam -genkey writes an EC PARAMETERS block before the key
            out.add(new KeyCase(
                    "EC " + curve[0] + " SEC1 after EC PARAMETERS",
                    TestPki.pem("EC PARAMETERS", TestPki.oid(curve[1])) + TestPki.sec1(ec, curve[1]),
                    TestPki.pem(cert),
                    cn));
        }
        KeyPair ed = TestPki.ed25519();
        X509Certificate edCert = TestPki.selfSigned(ed, "ed-user", List.of(), List.of());
        out.add(new KeyCase("Ed25519 PKCS#8", TestPki.pkcs8(ed.getPrivate()), TestPki.pem(edCert), "ed-user"));
        out.add(new KeyCase(
                "RSA PKCS#1 with CRLF line ends",
                TestPki.pkcs1(rsa.getPrivate()).replace("\n", "\r\n"),
                TestPki.pem(rsaCert).replace("\n", "\r\n"),
                "rsa-user"));
        return List.copyOf(out);
    }

    static Stream<KeyCase> keyCases() {
        return keys().stream();
    }

    @ParameterizedTest(name = "{0} via builder")
    @MethodSource("keyCases")
    void builderClientCertificateIsShownInTheHandshake(KeyCase k) throws Exception {
        ClientConfig config = ClientConfig.builder()
                .server(server.url("127.0.0.1"))
                .certificateAuthorityPem(server.caPem())
                .clientCertificate(k.certPem(), k.keyPem())
                .build();
        assertThat(TlsTestServer.call(config)).isEqualTo("client=CN=" + k.cn() + " auth=none");
        assertThat(config.toString())
                .contains("client certificate CN=" + k.cn())
                .doesNotContain(body(k.keyPem()));
    }

    @ParameterizedTest(name = "{0} via kubeconfig -data")
    @MethodSource("keyCases")
    void kubeconfigDataClientCertificate(KeyCase k, @TempDir Path dir) throws Exception {
        Path file = dir.resolve("config");
        Files.writeString(
                file,
                Kubeconfigs.single(
                        server.url("127.0.0.1").toString(),
                        "    certificate-authority-data: " + b64(server.caPem()) + "\n",
                        "    client-certificate-data: " + b64(k.certPem()) + "\n    client-key-data: " + b64(k.keyPem())
                                + "\n"));
        ClientConfig config = ClientConfig.fromKubeconfig(file);
        assertThat(TlsTestServer.call(config)).isEqualTo("client=CN=" + k.cn() + " auth=none");
    }

    @ParameterizedTest(name = "{0} via files relative to the kubeconfig")
    @MethodSource("keyCases")
    void kubeconfigRelativeFiles(KeyCase k, @TempDir Path dir) throws Exception {
        Path sub = Files.createDirectories(dir.resolve("kube/pki"));
        Files.writeString(sub.resolve("ca.crt"), server.caPem());
        Files.writeString(sub.resolve("client.crt"), k.certPem());
        Files.writeString(sub.resolve("client.key"), k.keyPem());
        Path file = dir.resolve("kube/config");
        Files.writeString(
                file,
                Kubeconfigs.single(
                        server.url("localhost").toString(),
                        "    certificate-authority: pki/ca.crt\n",
                        "    client-certificate: pki/client.crt\n    client-key: ./pki/../pki/client.key\n"));
        // loaded from another working directory's point of view: paths resolve against the file's folder
        ClientConfig config = ConfigLoader.of(
                        Map.of("KUBECONFIG", file.toString()),
                        dir,
                        dir.resolve("none"),
                        io.kubeloop.clock.Clock.system())
                .kubeconfig(null, null);
        assertThat(TlsTestServer.call(config)).isEqualTo("client=CN=" + k.cn() + " auth=none");
    }

    @Test
    void withoutClientCertificateTheServerSeesNone() throws Exception {
        ClientConfig config = ClientConfig.builder()
                .server(server.url("127.0.0.1"))
                .certificateAuthorityPem(server.caPem())
                .token("tok-123")
                .build();
        assertThat(TlsTestServer.call(config)).isEqualTo("client=none auth=Bearer tok-123");
    }

    @Test
    void verificationIsOnByDefault() {
        ClientConfig config =
                ClientConfig.builder().server(server.url("127.0.0.1")).build(); // JVM roots only
        assertThat(config.insecureSkipTlsVerify()).isFalse();
        assertThatThrownBy(() -> TlsTestServer.call(config)).isInstanceOf(SSLHandshakeException.class);
    }

    @Test
    void insecureSkipTlsVerifyTrustsAnyServer() throws Exception {
        ClientConfig config = ClientConfig.builder()
                .server(server.url("127.0.0.1"))
                .insecureSkipTlsVerify(true)
                .build();
        assertThat(TlsTestServer.call(config)).startsWith("client=none");
        assertThat(config.toString()).contains("insecure-skip-tls-verify");
    }

    @Test
    void tlsServerNameIsWhatTheCertificateIsCheckedAgainst() throws Exception {
        ClientConfig good = ClientConfig.builder()
                .server(server.url("127.0.0.1"))
                .certificateAuthorityPem(server.caPem())
                .tlsServerName("kube.example")
                .build();
        assertThat(TlsTestServer.call(good)).startsWith("client=none");
        // the URI host (127.0.0.1) is in the certificate, but tls-server-name is not: refused
        ClientConfig bad = ClientConfig.builder()
                .server(server.url("127.0.0.1"))
                .certificateAuthorityPem(server.caPem())
                .tlsServerName("other.example")
                .build();
        assertThatThrownBy(() -> TlsTestServer.call(bad)).isInstanceOf(SSLHandshakeException.class);
        // and the chain is still checked: an untrusted server with the right name is refused
        ClientConfig untrusted = ClientConfig.builder()
                .server(server.url("127.0.0.1"))
                .tlsServerName("kube.example")
                .build();
        assertThatThrownBy(() -> TlsTestServer.call(untrusted)).isInstanceOf(SSLHandshakeException.class);
    }

    @Test
    void kubeconfigTlsServerNameAndInsecure(@TempDir Path dir) throws Exception {
        String url = server.url("127.0.0.1").toString();
        String ca = "    certificate-authority-data: " + b64(server.caPem()) + "\n";
        Path good = Files.writeString(
                dir.resolve("good"), Kubeconfigs.single(url, ca + "    tls-server-name: kube.example\n", ""));
        ClientConfig c = ClientConfig.fromKubeconfig(good);
        assertThat(c.tlsServerName()).contains("kube.example");
        assertThat(TlsTestServer.call(c)).startsWith("client=none");
        Path bad = Files.writeString(
                dir.resolve("bad"), Kubeconfigs.single(url, ca + "    tls-server-name: other.example\n", ""));
        assertThatThrownBy(() -> TlsTestServer.call(ClientConfig.fromKubeconfig(bad)))
                .isInstanceOf(SSLHandshakeException.class);
        Path insecure = Files.writeString(
                dir.resolve("insecure"), Kubeconfigs.single(url, "    insecure-skip-tls-verify: true\n", ""));
        ClientConfig i = ClientConfig.fromKubeconfig(insecure);
        assertThat(i.insecureSkipTlsVerify()).isTrue();
        assertThat(TlsTestServer.call(i)).startsWith("client=none");
        Path none = Files.writeString(dir.resolve("none"), Kubeconfigs.single(url, "", ""));
        assertThatThrownBy(() -> TlsTestServer.call(ClientConfig.fromKubeconfig(none)))
                .isInstanceOf(SSLHandshakeException.class);
    }

    @Test
    void wildcardAndIpMatching() {
        KeyPair pair = TestPki.ec("secp256r1");
        X509Certificate cert = TestPki.selfSigned(pair, "x", List.of("*.svc.example"), List.of("10.0.0.1", "::1"));
        assertThat(Tls.matches(cert, "api.svc.example")).isTrue();
        assertThat(Tls.matches(cert, "API.SVC.example")).isTrue();
        assertThat(Tls.matches(cert, "a.b.svc.example")).isFalse();
        assertThat(Tls.matches(cert, "svc.example")).isFalse();
        assertThat(Tls.matches(cert, "10.0.0.1")).isTrue();
        assertThat(Tls.matches(cert, "0:0:0:0:0:0:0:1")).isTrue();
        assertThat(Tls.matches(cert, "10.0.0.2")).isFalse();
    }

    // ---- errors: each names the field, none shows the key ----

    @Test
    void encryptedKeysAreRefused() {
        KeyCase k = keys().get(2);
        String encrypted = "-----BEGIN EC PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00\n\n"
                + body(k.keyPem()) + "\n-----END EC PRIVATE KEY-----\n";
        assertError(
                () -> ClientConfig.builder()
                        .server("https://x")
                        .clientCertificate(k.certPem(), encrypted)
                        .build(),
                "client-key-data",
                "encrypted",
                k.keyPem());
        assertError(
                () -> ClientConfig.builder()
                        .server("https://x")
                        .clientCertificate(k.certPem(), TestPki.pem("ENCRYPTED PRIVATE KEY", new byte[] {0x30, 0}))
                        .build(),
                "client-key-data",
                "ENCRYPTED PRIVATE KEY",
                k.keyPem());
    }

    @Test
    void unreadableKeysNameTheField() {
        KeyCase k = keys().get(2);
        byte[] secretBytes = "top-secret-key-material".getBytes(StandardCharsets.US_ASCII);
        assertError(
                () -> ClientConfig.builder()
                        .server("https://x")
                        .clientCertificate(k.certPem(), TestPki.pem("EC PRIVATE KEY", secretBytes))
                        .build(),
                "client-key-data",
                "EC PRIVATE KEY cannot be read",
                "top-secret");
        assertError(
                () -> ClientConfig.builder()
                        .server("https://x")
                        .clientCertificate(
                                k.certPem(),
                                TestPki.pem("RSA PRIVATE KEY", TestPki.seq(TestPki.integer(java.math.BigInteger.ZERO))))
                        .build(),
                "client-key-data",
                "PKCS#1",
                k.keyPem());
        assertError(
                () -> ClientConfig.builder()
                        .server("https://x")
                        .clientCertificate(k.certPem(), "not a key at all")
                        .build(),
                "client-key-data",
                "not PEM",
                "not a key at all");
        assertError(
                () -> ClientConfig.builder()
                        .server("https://x")
                        .clientCertificate(k.certPem(), k.certPem())
                        .build(),
                "client-key-data",
                "no PEM private key block",
                body(k.certPem()));
        // a DSA-like unknown algorithm in a PKCS#8 envelope
        byte[] unknown = TestPki.seq(
                TestPki.integer(java.math.BigInteger.ZERO),
                TestPki.seq(TestPki.oid("1.2.3.4")),
                TestPki.tlv(4, secretBytes));
        assertError(
                () -> ClientConfig.builder()
                        .server("https://x")
                        .clientCertificate(k.certPem(), TestPki.pem("PRIVATE KEY", unknown))
                        .build(),
                "client-key-data",
                "unsupported key algorithm 1.2.3.4",
                "top-secret");
        // SEC 1 without its curve
        byte[] noCurve = TestPki.seq(TestPki.integer(java.math.BigInteger.ONE), TestPki.tlv(4, new byte[32]));
        assertError(
                () -> ClientConfig.builder()
                        .server("https://x")
                        .clientCertificate(k.certPem(), TestPki.pem("EC PRIVATE KEY", noCurve))
                        .build(),
                "client-key-data",
                "names no curve",
                k.keyPem());
    }

    @Test
    void aKeyThatDoesNotMatchItsCertificateIsAnError() {
        List<KeyCase> all = keys();
        KeyCase rsa = all.get(0);
        KeyCase ec = all.get(2);
        assertError(
                () -> ClientConfig.builder()
                        .server("https://x")
                        .clientCertificate(rsa.certPem(), ec.keyPem())
                        .build(),
                "client-key-data",
                "does not match",
                ec.keyPem());
        KeyCase otherEc = all.get(5); // the P-384 key
        assertError(
                () -> ClientConfig.builder()
                        .server("https://x")
                        .clientCertificate(ec.certPem(), otherEc.keyPem())
                        .build(),
                "client-key-data",
                "does not match",
                otherEc.keyPem());
    }

    @Test
    void aCaThatIsNotPemIsAnError(@TempDir Path dir) throws Exception {
        assertError(
                () -> ClientConfig.builder()
                        .server("https://x")
                        .certificateAuthorityPem("MIIB-not-pem")
                        .build(),
                "certificate-authority-data",
                "not PEM",
                "MIIB-not-pem");
        Path ca = Files.writeString(dir.resolve("ca.der"), "garbage");
        assertError(
                () -> ClientConfig.builder()
                        .server("https://x")
                        .certificateAuthority(ca)
                        .build(),
                "certificate-authority " + ca,
                "not PEM",
                "garbage");
        assertError(
                () -> ClientConfig.builder()
                        .server("https://x")
                        .certificateAuthorityPem(TestPki.pem("CERTIFICATE", "not-a-cert".getBytes()))
                        .build(),
                "certificate-authority-data",
                "not a valid X.509 certificate",
                "not-a-cert");
        assertError(
                () -> ClientConfig.builder()
                        .server("https://x")
                        .certificateAuthority(dir.resolve("missing.crt"))
                        .build(),
                "missing.crt",
                "no such file",
                "\u0000");
        assertError(
                () -> ClientConfig.builder()
                        .server("https://x")
                        .certificateAuthorityPem(server.caPem())
                        .insecureSkipTlsVerify(true)
                        .build(),
                "certificate-authority-data",
                "cannot both be set",
                "\u0000");
    }

    static void assertError(
            org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String field, String problem, String secret) {
        assertThatThrownBy(call)
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(field)
                .hasMessageContaining(problem)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(secret));
    }

    /** The base64 body of a PEM, which must never appear in a message. */
    static String body(String pem) {
        return pem.lines().filter(l -> !l.startsWith("-----")).findFirst().orElseThrow();
    }

    static String b64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.US_ASCII));
    }
}
