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
 * Answers sent before the request body is read (401, 403, 404, 415, 503, 413) leave the kept-alive connection
 * usable: the next request on the same client, which reuses the connection, is answered. Each case repeats a
 * refused POST with a body then a GET many times, as a race between the server draining the refused body and
 * the client sending its next request showed up only now and then.
 */
class EarlyAnswerIT {

    static final String ADMIN_TOKEN = "admin-token-0123456789";
    static final int ROUNDS = Integer.getInteger("earlyAnswer.rounds", 100);

    private EmbeddedApiServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aRefusedUnauthenticatedPostLeavesTheTlsConnectionUsable() throws Exception {
        server = EmbeddedApiServer.builder().tls().token("admin", ADMIN_TOKEN, "system:masters").start();
        HttpClient client = TlsClient.client(server.certificateAuthority(), null, null);
        refusedThenServed(client, "401", 401, b -> b.uri(server.url().resolve("/api/v1/namespaces"))
                .header("Content-Type", "application/json").POST(body(40)), true);
    }

    @Test
    void everyEarlyRefusalOfAPostLeavesTheTlsConnectionUsable() throws Exception {
        server = EmbeddedApiServer.builder().tls().token("admin", ADMIN_TOKEN, "system:masters").rbac(true).start();
        HttpClient client = TlsClient.client(server.certificateAuthority(), null, null);
        earlyRefusals(client, true);
    }

    @Test
    void everyEarlyRefusalOfAPostLeavesThePlainConnectionUsable() throws Exception {
        server = EmbeddedApiServer.builder().start();
        earlyRefusals(HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build(), false);
    }

    private void earlyRefusals(HttpClient client, boolean tls) throws Exception {
        refusedThenServed(client, "404 unknown route", 404, b -> b.uri(server.url().resolve("/nope"))
                .POST(body(40)), tls);
        refusedThenServed(client, "415", 415, b -> b.uri(server.url().resolve("/api/v1/namespaces/default/configmaps"))
                .header("Content-Type", "text/plain").POST(body(40)), tls);
        refusedThenServed(client, "401 with a body larger than the JDK's drain amount", tls ? 401 : 404,
                b -> b.uri(server.url().resolve(tls ? "/api/v1/namespaces" : "/nope"))
                        .header("Content-Type", "application/json").POST(body(200_000)), tls);
        if (tls) {
            refusedThenServed(client, "403 impersonated user", 403, b -> b.uri(server.url().resolve("/api/v1/namespaces"))
                    .header("Content-Type", "application/json").header("Impersonate-User", "bob").POST(body(40)), true);
        }
        server.faults().fail(Failure.status(503).verb("create").count(ROUNDS));
        refusedThenServed(client, "503 injected fault", 503, b -> b.uri(server.url().resolve(
                "/api/v1/namespaces/default/configmaps")).header("Content-Type", "application/json").POST(body(40)), tls);
        refusedThenServed(client, "413", 413, b -> b.uri(server.url().resolve("/api/v1/namespaces/default/configmaps"))
                .header("Content-Type", "application/json").POST(body(3 * 1024 * 1024 + 1)), tls, 3);
    }

    private void refusedThenServed(HttpClient client, String what, int code, UnaryOperator<HttpRequest.Builder> refused,
            boolean tls) throws Exception {
        refusedThenServed(client, what, code, refused, tls, ROUNDS);
    }

    /** {@code rounds} times: the refused request answers {@code code}, then a GET on the same client answers. */
    private void refusedThenServed(HttpClient client, String what, int code, UnaryOperator<HttpRequest.Builder> refused,
            boolean tls, int rounds) throws Exception {
        for (int i = 0; i < rounds; i++) {
            HttpRequest.Builder r = refused.apply(HttpRequest.newBuilder().timeout(Duration.ofSeconds(5)));
            if (tls && code != 401) {
                r.header("Authorization", "Bearer " + ADMIN_TOKEN);
            }
            HttpResponse<String> answer = send(client, r.build(), what + ", round " + i + ", the refused request");
            assertThat(answer.statusCode()).as("%s, round %d: %s", what, i, answer.body()).isEqualTo(code);
            HttpRequest.Builder get = HttpRequest.newBuilder(server.url().resolve("/api/v1/namespaces/default"))
                    .timeout(Duration.ofSeconds(5));
            if (tls) {
                get.header("Authorization", "Bearer " + ADMIN_TOKEN);
            }
            HttpResponse<String> next = send(client, get.build(), what + ", round " + i + ", the next request");
            assertThat(next.statusCode()).as("%s, round %d: %s", what, i, next.body()).isEqualTo(200);
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
