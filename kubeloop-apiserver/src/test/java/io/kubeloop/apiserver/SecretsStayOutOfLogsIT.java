package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.apiserver.internal.auth.Authentication;
import io.kubeloop.apiserver.internal.auth.StaticTokens;
import io.kubeloop.apiserver.internal.tls.CertificateAuthority;
import io.kubeloop.apiserver.internal.tls.ServerTls;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tokens, private keys and certificates never show in logs, toString() or exception messages: every place
 * they pass through is exercised with recognisable secrets while the log output is captured, then searched.
 */
class SecretsStayOutOfLogsIT {

    @TempDir
    Path dir;

    @Test
    void noSecretInLogsToStringOrErrors() throws Exception {
        List<String> secrets = new ArrayList<>(List.of(
                "GOOD-tok3n-1", "FILE-tok3n-2", "WRONG-tok3n-3", "BAD,tok3n-4", "DUP-tok3n-5", "SHORT-tok3n-6"));
        List<String> seen = new ArrayList<>(); // messages and toString()s
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream err = System.err;
        PrintStream out = System.out;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            Path tokenFile = dir.resolve("tokens.csv");
            Files.writeString(tokenFile, "FILE-tok3n-2,frank,1,\"a,b\"\n");
            try (EmbeddedApiServer server = EmbeddedApiServer.builder()
                    .tls(dir.resolve("ca"))
                    .token("gina", "GOOD-tok3n-1", "devs")
                    .tokenFile(tokenFile)
                    .start()) {
                String kubeconfig = server.kubeconfig();
                for (String line : kubeconfig.split("\n")) {
                    if (line.contains("client-key-data") || line.contains("client-certificate-data")) {
                        String b64 = line.substring(line.indexOf(':') + 1).strip();
                        secrets.add(b64.substring(0, 40));
                        String pem = new String(Base64.getDecoder().decode(b64), StandardCharsets.US_ASCII);
                        secrets.add(pem.split("\n")[1]); // a line of the DER's base64
                    }
                }
                secrets.add(Files.readString(dir.resolve("ca/ca.key")).split("\n")[1]);

                HttpClient client = TlsClient.client(server.certificateAuthority(), null, null);
                for (String token : List.of("WRONG-tok3n-3", "GOOD-tok3n-1", "FILE-tok3n-2")) {
                    client.send(
                            HttpRequest.newBuilder(server.url().resolve("/api/v1/namespaces?x=1"))
                                    .header("Authorization", "Bearer " + token)
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
                }
                seen.add(message(() -> server.kubeconfigForToken("WRONG-tok3n-3")));
                seen.add(String.valueOf(server.certificateAuthority()));
            }
            seen.add(message(() -> EmbeddedApiServer.builder().token("h", "BAD,tok3n-4")));
            seen.add(message(
                    () -> EmbeddedApiServer.builder().token("h", "DUP-tok3n-5").token("i", "DUP-tok3n-5")));
            seen.add(message(() ->
                    EmbeddedApiServer.builder().token("h", "SHORT-tok3n-6").start()));
            Files.writeString(tokenFile, "SHORT-tok3n-6,only-two-columns\n");
            seen.add(message(() -> EmbeddedApiServer.builder().tokenFile(tokenFile)));
            Files.writeString(tokenFile, "DUP-tok3n-5,a,1\nDUP-tok3n-5,b,2\n");
            seen.add(message(() -> EmbeddedApiServer.builder().tokenFile(tokenFile)));
            Files.writeString(tokenFile, "\"DUP-tok3n-5,a,1\n");
            seen.add(message(() -> EmbeddedApiServer.builder().tokenFile(tokenFile)));
            // a key that does not belong to the certificate
            Path mixed = Files.createDirectories(dir.resolve("mixed"));
            Files.copy(dir.resolve("ca/ca.crt"), mixed.resolve("ca.crt"));
            CertificateAuthority.loadOrCreate(dir.resolve("other"), java.time.Instant.now());
            Files.copy(dir.resolve("other/ca.key"), mixed.resolve("ca.key"));
            secrets.add(Files.readString(mixed.resolve("ca.key")).split("\n")[1]);
            seen.add(message(() -> EmbeddedApiServer.builder().tls(mixed).start()));

            ServerTls tls = ServerTls.start(null, InetAddress.getLoopbackAddress());
            secrets.add(tls.admin().privateKeyPem().split("\n")[1]);
            secrets.add(tls.serving().privateKeyPem().split("\n")[1]);
            seen.add(tls.toString());
            seen.add(tls.admin().toString());
            seen.add(tls.authority().toString());
            StaticTokens tokens = StaticTokens.NONE.with("gina", "GOOD-tok3n-1", List.of());
            seen.add(tokens.toString());
            seen.add(Authentication.of(tls.authority().certificate(), tokens).toString());
        } finally {
            System.setErr(err);
            System.setOut(out);
        }
        String logs = captured.toString(StandardCharsets.UTF_8);
        assertThat(logs)
                .as("the 401 was logged, so the search below looks at real log lines")
                .contains("401 Unauthorized: GET /api/v1/namespaces: unknown bearer token");
        assertThat(seen).allSatisfy(s -> assertThat(s).isNotBlank());
        assertThat(seen).anySatisfy(s -> assertThat(s).contains("is not the private key of"));
        assertThat(seen).anySatisfy(s -> assertThat(s).contains("line 1: expected token,user,uid"));
        for (String secret : secrets) {
            assertThat(logs).as("logs").doesNotContain(secret);
            for (String s : seen) {
                assertThat(s).doesNotContain(secret);
            }
        }
        assertThat(String.join("\n", seen) + logs).doesNotContain("PRIVATE KEY").doesNotContain("BEGIN CERTIFICATE");
    }

    private static String message(Supplier<?> action) {
        try {
            action.get();
        } catch (RuntimeException e) {
            StringBuilder all = new StringBuilder();
            for (Throwable t = e; t != null; t = t.getCause()) {
                all.append(t).append('\n');
            }
            return all.toString();
        }
        throw new AssertionError("expected a failure");
    }
}
