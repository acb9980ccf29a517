package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.apiserver.fault.Failure;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Answers that refuse a request before its body is looked at (401, 403, 404, 415, 503, 413) leave the kept-alive
 * connection usable: the next request on the same client, which reuses the connection, is answered.
 *
 * <p>Each case repeats "refused POST with a body, then a create" on one client: the failure this guards against was
 * a race (the JDK HttpsServer pulling the client's next request off the socket while draining the refused body,
 * then waiting for it forever), which without the fix showed up within a few dozen rounds. Every request has a
 * 5 s timeout, so a hang fails the test quickly.
 */
class EarlyAnswerIT {

    static final String ADMIN_TOKEN = "admin-token-0123456789";
    static final int ROUNDS = Integer.getInteger("earlyAnswer.rounds", 30);

    private EmbeddedApiServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aRefusedUnauthenticatedPostLeavesTheTlsConnectionUsable() throws Exception {
        server = EmbeddedApiServer.builder()
                .tls()
                .token("admin", ADMIN_TOKEN, "system:masters")
                .start();
        HttpClient client = TlsClient.client(server.certificateAuthority(), null, null);
        refusedThenServed(
                client,
                "401",
                401,
                b -> b.uri(server.url().resolve("/api/v1/namespaces"))
                        .header("Content-Type", "application/json")
                        .POST(body(40)),
                true);
    }

    @Test
    void everyEarlyRefusalOfAPostLeavesTheTlsConnectionUsable() throws Exception {
        server = EmbeddedApiServer.builder()
                .tls()
                .token("admin", ADMIN_TOKEN, "system:masters")
                .rbac(true)
                .start();
        HttpClient client = TlsClient.client(server.certificateAuthority(), null, null);
        earlyRefusals(client, true);
    }

    @Test
    void everyEarlyRefusalOfAPostLeavesThePlainConnectionUsable() throws Exception {
        server = EmbeddedApiServer.builder().start();
        earlyRefusals(
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build(), false);
    }

    private void earlyRefusals(HttpClient client, boolean tls) throws Exception {
        refusedThenServed(
                client,
                "404 unknown route",
                404,
                b -> b.uri(server.url().resolve("/nope")).POST(body(40)),
                tls);
        refusedThenServed(
                client,
                "415",
                415,
                b -> b.uri(server.url().resolve("/api/v1/namespaces/default/configmaps"))
                        .header("Content-Type", "text/plain")
                        .POST(body(40)),
                tls);
        refusedThenServed(
                client,
                "a body larger than the JDK server's drain amount (64 KiB)",
                tls ? 401 : 404,
                b -> b.uri(server.url().resolve(tls ? "/api/v1/namespaces" : "/nope"))
                        .header("Content-Type", "application/json")
                        .POST(body(200_000)),
                tls,
                10);
        if (tls) {
            refusedThenServed(
                    client,
                    "403 impersonated user",
                    403,
                    b -> b.uri(server.url().resolve("/api/v1/namespaces"))
                            .header("Content-Type", "application/json")
                            .header("Impersonate-User", "bob")
                            .POST(body(40)),
                    true);
        }
        server.faults().fail(Failure.status(503).resource("secrets").count(ROUNDS));
        refusedThenServed(
                client,
                "503 injected fault",
                503,
                b -> b.uri(server.url().resolve("/api/v1/namespaces/default/secrets"))
                        .header("Content-Type", "application/json")
                        .POST(body(40)),
                tls);
        refusedThenServed(
                client,
                "413 (the connection closes, the next request gets a new one)",
                413,
                b -> b.uri(server.url().resolve("/api/v1/namespaces/default/configmaps"))
                        .header("Content-Type", "application/json")
                        .POST(body(TOO_LARGE)),
                tls,
                2);

        HttpRequest.Builder tooLarge = HttpRequest.newBuilder(
                        server.url().resolve("/api/v1/namespaces/default/configmaps"))
                .timeout(Duration.ofSeconds(5))
                .header("Content-Type", "application/json")
                .POST(body(TOO_LARGE));
        if (tls) {
            tooLarge.header("Authorization", "Bearer " + ADMIN_TOKEN);
        }
        HttpResponse<String> refused = send(client, tooLarge.build(), "413");
        assertThat(refused.statusCode()).isEqualTo(413);
        assertThat(refused.headers().firstValue("Connection"))
                .as("the unread rest of the body ends the connection")
                .hasValue("close");
    }

    /** Over kube-apiserver's 3 MiB limit, by less than the JDK server drains after an answer (64 KiB). */
    static final int TOO_LARGE = 3 * 1024 * 1024 + 32 * 1024;

    private void refusedThenServed(
            HttpClient client, String what, int code, UnaryOperator<HttpRequest.Builder> refused, boolean tls)
            throws Exception {
        refusedThenServed(client, what, code, refused, tls, ROUNDS);
    }

    /** {@code rounds} times: the refused request answers {@code code}, then a create on the same client succeeds. */
    private void refusedThenServed(
            HttpClient client,
            String what,
            int code,
            UnaryOperator<HttpRequest.Builder> refused,
            boolean tls,
            int rounds)
            throws Exception {
        for (int i = 0; i < rounds; i++) {
            HttpRequest.Builder r = refused.apply(HttpRequest.newBuilder().timeout(Duration.ofSeconds(5)));
            if (tls && code != 401) {
                r.header("Authorization", "Bearer " + ADMIN_TOKEN);
            }
            HttpResponse<String> answer = send(client, r.build(), what + ", round " + i + ", the refused request");
            assertThat(answer.statusCode())
                    .as("%s, round %d: %s", what, i, answer.body())
                    .isEqualTo(code);
            // a POST, which the client never retries on another connection, so a lost request fails the test
            HttpRequest.Builder create = HttpRequest.newBuilder(
                            server.url().resolve("/api/v1/namespaces/default/configmaps"))
                    .timeout(Duration.ofSeconds(5))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"metadata\":{\"generateName\":\"next-\"}}"));
            if (tls) {
                create.header("Authorization", "Bearer " + ADMIN_TOKEN);
            }
            HttpResponse<String> next = send(client, create.build(), what + ", round " + i + ", the next request");
            assertThat(next.statusCode())
                    .as("%s, round %d: %s", what, i, next.body())
                    .isEqualTo(201);
        }
    }

    private static HttpResponse<String> send(HttpClient client, HttpRequest request, String what) {
        try {
            return client.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new AssertionError(what + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(what, e);
        }
    }

    /** A JSON namespace of about {@code size} bytes. */
    private static HttpRequest.BodyPublisher body(int size) {
        StringBuilder s = new StringBuilder("{\"metadata\":{\"name\":\"x\",\"annotations\":{\"a\":\"");
        while (s.length() < size - 4) {
            s.append('a');
        }
        return HttpRequest.BodyPublishers.ofString(s.append("\"}}}").toString());
    }
}
