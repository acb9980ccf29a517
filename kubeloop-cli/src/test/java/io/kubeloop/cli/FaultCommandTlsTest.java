package io.kubeloop.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.kubeloop.apiserver.fault.FaultInjector;
import io.kubeloop.clock.Clock;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code kubeloop fault} against an https server: it trusts the CA given by {@code --certificate-authority} or by
 * the kubeconfig, and sends the kubeconfig user's bearer token. The server is the fault admin handler behind
 * the JDK's HttpsServer with a certificate keytool makes for 127.0.0.1.
 */
class FaultCommandTlsTest {

    @TempDir
    Path dir;

    private final FaultInjector injector = new FaultInjector(
            Clock.system(), 5, true, () -> 0L, JsonMapper.builder().build());
    private final List<String> authorizations = new CopyOnWriteArrayList<>();
    private final PrintStream originalOut = System.out;
    private final PrintStream originalErr = System.err;
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private HttpsServer https;
    private Path caPem;
    private String url;

    @BeforeEach
    void start() throws Exception {
        Path keystore = dir.resolve("server.p12");
        caPem = dir.resolve("ca.pem");
        keytool(
                "-genkeypair",
                "-alias",
                "server",
                "-keyalg",
                "EC",
                "-dname",
                "CN=kubeloop-test",
                "-validity",
                "2",
                "-ext",
                "san=ip:127.0.0.1",
                "-keystore",
                keystore.toString(),
                "-storetype",
                "PKCS12",
                "-storepass",
                "changeit");
        keytool(
                "-exportcert",
                "-rfc",
                "-alias",
                "server",
                "-keystore",
                keystore.toString(),
                "-storetype",
                "PKCS12",
                "-storepass",
                "changeit",
                "-file",
                caPem.toString());
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            ks.load(in, "changeit".toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, "changeit".toCharArray());
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(kmf.getKeyManagers(), null, null);
        https = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        https.setHttpsConfigurator(new HttpsConfigurator(ssl));
        https.createContext("/", exchange -> {
            authorizations.add(String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")));
            injector.serveAdmin(exchange, exchange.getRequestURI().getPath());
        });
        https.start();
        url = "https://127.0.0.1:" + https.getAddress().getPort();
        System.setOut(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void stop() {
        System.setOut(originalOut);
        System.setErr(originalErr);
        https.stop(0);
        injector.close();
    }

    private static void keytool(String... args) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(output).isZero();
    }

    @Test
    void trustsTheGivenCertificateAuthorityOnly() {
        assertThat(Main.run("fault", "--server", url, "status"))
                .as("an unknown CA is refused")
                .isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("kubeloop: cannot reach " + url);
        assertThat(Main.run(
                        "fault", "--server", url, "--certificate-authority", caPem.toString(), "fail", "--code", "500"))
                .as(err.toString(StandardCharsets.UTF_8))
                .isZero();
        assertThat(injector.faults().active()).hasSize(1);
    }

    @Test
    void takesServerCertificateAuthorityAndTokenFromTheKubeconfig() throws Exception {
        String caData = Base64.getEncoder().encodeToString(Files.readAllBytes(caPem));
        Path kubeconfig = dir.resolve("kubeconfig");
        Files.writeString(kubeconfig, """
                apiVersion: v1
                kind: Config
                clusters:
                - name: other
                  cluster:
                    server: https://127.0.0.1:1
                - name: tls
                  cluster:
                    server: %s
                    certificate-authority-data: %s
                users:
                - name: admin
                  user:
                    token: test-token-value
                contexts:
                - name: tls
                  context:
                    cluster: tls
                    user: admin
                current-context: tls
                """.formatted(url, caData));
        assertThat(Main.run("fault", "--kubeconfig", kubeconfig.toString(), "compact"))
                .as(err.toString(StandardCharsets.UTF_8))
                .isZero();
        assertThat(authorizations).containsExactly("Bearer test-token-value");
    }
}
