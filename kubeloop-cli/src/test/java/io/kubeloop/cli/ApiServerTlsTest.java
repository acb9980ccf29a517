package io.kubeloop.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.math.BigInteger;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.AlgorithmParameters;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.ECPrivateKeySpec;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kubeloop apiserver --tls} with tokens and user kubeconfigs, and {@code kubeloop mint-kubeconfig}. */
class ApiServerTlsTest {

    @TempDir
    Path dir;

    @Test
    void servesHttpsWithTokensAndClientCertificates() throws Exception {
        Path caDir = dir.resolve("ca");
        Path tokenFile = dir.resolve("tokens.csv");
        Files.writeString(tokenFile, "carol-token,carol,7,\"qa,ops\"\n");
        Path bob = dir.resolve("users/bob.kubeconfig");
        RunningApiServer server = RunningApiServer.start(
                Duration.ofSeconds(60),
                "--port",
                "0",
                "--tls",
                "--ca-dir",
                caDir.toString(),
                "--token",
                "alice=alice-token,devs",
                "--token-file",
                tokenFile.toString(),
                "--user",
                "bob,devs=" + bob,
                "--kubeconfig-out",
                dir.resolve("admin").toString());
        try {
            assertThat(server.printed())
                    .contains("kubeconfig for bob: " + bob.toAbsolutePath())
                    .doesNotContain("alice-token")
                    .doesNotContain("carol-token");
            URI base = server.url();
            assertThat(base.getScheme()).isEqualTo("https");
            X509Certificate ca =
                    certificate(Files.readString(caDir.resolve("ca.crt")).getBytes(StandardCharsets.US_ASCII));
            assertThat(Files.readString(dir.resolve("admin")))
                    .contains("server: " + base)
                    .contains("certificate-authority-data: "
                            + Base64.getEncoder()
                                    .encodeToString(Files.readString(caDir.resolve("ca.crt"))
                                            .getBytes(StandardCharsets.US_ASCII)));
            assertThat(Files.getPosixFilePermissions(bob)).isEqualTo(PosixFilePermissions.fromString("rw-------"));

            HttpClient anonymous = client(ca, null);
            assertThat(get(anonymous, base, "alice-token").statusCode()).isEqualTo(200);
            assertThat(get(anonymous, base, "carol-token").statusCode()).isEqualTo(200);
            assertThat(get(anonymous, base, "nobody-token").statusCode()).isEqualTo(401);
            assertThat(get(anonymous, base, null).statusCode()).isEqualTo(401);
            assertThat(get(client(ca, Files.readString(bob)), base, null).statusCode())
                    .isEqualTo(200);

            Path carol = dir.resolve("carol.kubeconfig");
            ByteArrayOutputStream minted = new ByteArrayOutputStream();
            PrintStream originalOut = System.out;
            System.setOut(new PrintStream(minted, true, StandardCharsets.UTF_8));
            int code;
            try {
                code = Main.run(
                        "mint-kubeconfig",
                        "--ca-dir",
                        caDir.toString(),
                        "--server",
                        base.toString(),
                        "--user",
                        "carol,qa",
                        "-o",
                        carol.toString());
            } finally {
                System.setOut(originalOut);
            }
            assertThat(code).isZero();
            assertThat(minted.toString(StandardCharsets.UTF_8))
                    .contains("kubeconfig for carol: " + carol.toAbsolutePath());
            assertThat(Files.readString(carol)).contains("server: " + base);
            assertThat(Files.getPosixFilePermissions(carol)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
            assertThat(get(client(ca, Files.readString(carol)), base, null).statusCode())
                    .isEqualTo(200);
        } finally {
            server.stop();
        }
        assertThat(server.isAlive()).isFalse();
        assertThat(server.exit()).isZero();
    }

    @Test
    void badFlagsAreReportedWithoutTheToken() {
        assertThat(fails("apiserver", "--port", "0", "--token", "a=s3cret-token"))
                .contains("--token needs --tls");
        assertThat(fails("apiserver", "--port", "0", "--ca-dir", dir.toString()))
                .contains("--ca-dir needs --tls");
        assertThat(fails("apiserver", "--port", "0", "--tls", "--token", "s3cret-token"))
                .contains("--token expects NAME=TOKEN[,GROUP...]")
                .doesNotContain("s3cret-token");
        assertThat(fails("apiserver", "--port", "0", "--tls", "--token", "a=s3cret token"))
                .contains("--token: token for user a: the token has a character that is not allowed")
                .doesNotContain("s3cret");
        assertThat(fails("apiserver", "--port", "0", "--tls", "--user", "bob"))
                .contains("--user expects NAME[,GROUP...]=FILE");
        assertThat(fails(
                        "mint-kubeconfig",
                        "--ca-dir",
                        dir.resolve("none").toString(),
                        "--user",
                        "u",
                        "-o",
                        dir.resolve("k").toString()))
                .contains("--ca-dir: no certificate authority in");
        assertThat(dir.resolve("k")).doesNotExist();
    }

    private String fails(String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream originalErr = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        int code;
        try {
            code = Main.run(args);
        } finally {
            System.setErr(originalErr);
        }
        String printed = err.toString(StandardCharsets.UTF_8);
        assertThat(code).as(printed).isEqualTo(2);
        return printed;
    }

    private static HttpResponse<String> get(HttpClient client, URI base, String token) throws Exception {
        HttpRequest.Builder b =
                HttpRequest.newBuilder(base.resolve("/api/v1/namespaces")).timeout(Duration.ofSeconds(30));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Trusts {@code ca}; presents the client certificate of {@code kubeconfig} when given. */
    private static HttpClient client(X509Certificate ca, String kubeconfig) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", ca);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        KeyManagerFactory kmf = null;
        if (kubeconfig != null) {
            X509Certificate cert = certificate(data(kubeconfig, "client-certificate-data"));
            String keyPem = new String(data(kubeconfig, "client-key-data"), StandardCharsets.US_ASCII);
            byte[] sec1 = Base64.getMimeDecoder().decode(keyPem.replaceAll("-----[A-Z ]+-----", ""));
            AlgorithmParameters p256 = AlgorithmParameters.getInstance("EC");
            p256.init(new ECGenParameterSpec("secp256r1"));
            // SEC 1 for P-256: SEQUENCE { INTEGER 1, OCTET STRING (32 bytes from offset 7), ... }
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            keys.setKeyEntry(
                    "client",
                    KeyFactory.getInstance("EC")
                            .generatePrivate(new ECPrivateKeySpec(
                                    new BigInteger(1, Arrays.copyOfRange(sec1, 7, 39)),
                                    p256.getParameterSpec(ECParameterSpec.class))),
                    new char[0],
                    new Certificate[] {cert});
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

    private static byte[] data(String kubeconfig, String field) {
        Matcher m = Pattern.compile(field + ": (\\S+)").matcher(kubeconfig);
        assertThat(m.find()).as(field).isTrue();
        return Base64.getDecoder().decode(m.group(1));
    }

    private static X509Certificate certificate(byte[] pem) throws Exception {
        return (X509Certificate)
                CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(pem));
    }
}
