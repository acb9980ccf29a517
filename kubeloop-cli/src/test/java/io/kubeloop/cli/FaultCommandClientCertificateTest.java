package io.kubeloop.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubeloop.apiserver.EmbeddedApiServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kubeloop fault} logging in with the kubeconfig's client certificate, against the real HTTPS server: the
 * admin kubeconfig kubeloop writes (an {@code EC PRIVATE KEY}), the same key as PKCS#8, and a non-admin user.
 */
class FaultCommandClientCertificateTest {

    @TempDir
    Path dir;

    private final PrintStream originalOut = System.out;
    private final PrintStream originalErr = System.err;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private EmbeddedApiServer server;

    @BeforeEach
    void capture() {
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restore() {
        System.setOut(originalOut);
        System.setErr(originalErr);
        if (server != null) {
            server.close();
        }
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    private Path kubeconfig(String name, String content) throws Exception {
        return Files.writeString(dir.resolve(name), content);
    }

    @Test
    void theAdminKubeconfigOfApiserverTlsFaultsWorksAsIs() throws Exception {
        Path kubeconfig = dir.resolve("served/kubeconfig");
        AtomicInteger exit = new AtomicInteger(-1);
        Thread apiserver = Thread.ofPlatform()
                .start(() -> exit.set(Main.run(
                        "apiserver",
                        "--port",
                        "0",
                        "--tls",
                        "--rbac",
                        "--faults",
                        "--fault-seed",
                        "11",
                        "--kubeconfig-out",
                        kubeconfig.toString())));
        try {
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> out().contains("stop with Ctrl-C"));
            assertThat(Files.readString(kubeconfig))
                    .contains("server: https://")
                    .contains("client-key-data: ")
                    .doesNotContain("token:");
            out.reset();
            assertThat(Main.run("fault", "--kubeconfig", kubeconfig.toString(), "status"))
                    .as(err())
                    .isZero();
            assertThat(out()).contains("\"seed\" : 11").contains("\"faults\" : [ ]");
            out.reset();
            assertThat(Main.run("fault", "--kubeconfig", kubeconfig.toString(), "stall", "--seconds", "30"))
                    .as(err())
                    .isZero();
            assertThat(Main.run("fault", "--kubeconfig", kubeconfig.toString(), "clear"))
                    .as(err())
                    .isZero();
            assertThat(out()).contains("\"cleared\" : 1");
        } finally {
            apiserver.interrupt();
            apiserver.join(Duration.ofSeconds(30));
        }
        assertThat(exit.get()).isZero();
    }

    @Test
    void aPkcs8KeyWorksTooAndAUserOutsideSystemMastersIsRefused() throws Exception {
        server = EmbeddedApiServer.builder()
                .tls()
                .rbac(true)
                .faultInjection(true)
                .start();
        String admin = server.kubeconfig();
        String pkcs8 = "-----BEGIN PRIVATE KEY-----\n"
                + Base64.getMimeEncoder()
                        .encodeToString(ClientCredentials.privateKey(data(admin, "client-key-data"), "test")
                                .getEncoded())
                + "\n-----END PRIVATE KEY-----\n";
        Path adminPkcs8 = kubeconfig(
                "admin-pkcs8",
                admin.replaceFirst(
                        "client-key-data: \\S+",
                        "client-key-data: "
                                + Base64.getEncoder().encodeToString(pkcs8.getBytes(StandardCharsets.US_ASCII))));
        assertThat(Main.run("fault", "--kubeconfig", adminPkcs8.toString(), "fail", "--code", "500", "--count", "1"))
                .as(err())
                .isZero();
        assertThat(server.faults().active()).hasSize(1);

        Path alice = kubeconfig("alice", server.kubeconfigFor("alice", "devs"));
        assertThat(Main.run("fault", "--kubeconfig", alice.toString(), "clear")).isEqualTo(1);
        assertThat(err()).contains("kubeloop: the server answered 403: forbidden: User \"alice\"");
        assertThat(server.faults().active()).as("alice cleared nothing").hasSize(1);
    }

    @Test
    void withoutTheClientCertificateTheServerAsksForCredentials() throws Exception {
        server = EmbeddedApiServer.builder().tls().faultInjection(true).start();
        Path anonymous = kubeconfig(
                "anonymous", server.kubeconfig().replaceAll("\\n\\s+client-(certificate|key)-data: \\S+", ""));
        assertThat(Files.readString(anonymous)).doesNotContain("client-key-data");
        assertThat(Main.run("fault", "--kubeconfig", anonymous.toString(), "status"))
                .isEqualTo(1);
        assertThat(err()).contains("the server answered 401: Unauthorized");
    }

    @Test
    void aBrokenKeyIsNamedButNeverPrinted() throws Exception {
        server = EmbeddedApiServer.builder().tls().faultInjection(true).start();
        String admin = server.kubeconfig();
        String key = new String(data(admin, "client-key-data"), StandardCharsets.US_ASCII);
        String body =
                key.lines().filter(l -> !l.startsWith("-----")).findFirst().orElseThrow();
        String broken = key.replace(body, "AAAA" + body.substring(4)); // no longer a DER SEQUENCE
        Path kubeconfig = kubeconfig(
                "broken",
                admin.replaceFirst(
                        "client-key-data: \\S+",
                        "client-key-data: "
                                + Base64.getEncoder().encodeToString(broken.getBytes(StandardCharsets.US_ASCII))));
        assertThat(Main.run("fault", "--kubeconfig", kubeconfig.toString(), "status"))
                .isEqualTo(1);
        assertThat(err())
                .contains("the kubeconfig's user: the client key is not a valid EC PRIVATE KEY")
                .doesNotContain(body.substring(4, 16))
                .doesNotContain(body.substring(30, 42));

        Path noKey = kubeconfig("no-key", admin.replaceFirst("\\s+client-key-data: \\S+", ""));
        err.reset();
        assertThat(Main.run("fault", "--kubeconfig", noKey.toString(), "status"))
                .isEqualTo(1);
        assertThat(err()).contains("the kubeconfig's user has a client certificate but no client-key-data");
    }

    @Test
    void anRsaKeyInPkcs1IsRead() throws Exception {
        KeyPairGenerator rsa = KeyPairGenerator.getInstance("RSA");
        rsa.initialize(2048);
        PrivateKey key = rsa.generateKeyPair().getPrivate();
        byte[] pkcs8 = key.getEncoded();
        // PKCS#8 for a 2048-bit key: 30 82 LL LL | 02 01 00 | 30 0d <rsaEncryption, NULL> | 04 82 LL LL <PKCS#1>
        assertThat(pkcs8[22]).isEqualTo((byte) 0x04);
        byte[] pkcs1 = Arrays.copyOfRange(pkcs8, 26, pkcs8.length);
        String pem = "-----BEGIN RSA PRIVATE KEY-----\n"
                + Base64.getMimeEncoder().encodeToString(pkcs1) + "\n-----END RSA PRIVATE KEY-----\n";
        assertThat(ClientCredentials.privateKey(pem.getBytes(StandardCharsets.US_ASCII), "test")
                        .getEncoded())
                .isEqualTo(pkcs8);
        assertThatThrownBy(() -> ClientCredentials.privateKey("not a key".getBytes(StandardCharsets.US_ASCII), "k"))
                .hasMessage(
                        "k: the client key is not a PEM private key (EC PRIVATE KEY, RSA PRIVATE KEY or PRIVATE KEY)");
    }

    private static byte[] data(String kubeconfig, String field) {
        Matcher m = Pattern.compile(field + ": (\\S+)").matcher(kubeconfig);
        assertThat(m.find()).as(field).isTrue();
        return Base64.getDecoder().decode(m.group(1));
    }
}
