package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.apiserver.ApiClient.Reply;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Requests built to hurt the server (issue 17 §4): each gets kube's Status, the stored object stays as it was, and
 * the server stays ready.
 */
class HostileInputIT {

    private static final String CONFIGMAPS = "/api/v1/namespaces/default/configmaps";
    private static final String DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments";
    private static final String DEPLOYMENT =
            "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":"
                    + "\"web\",\"labels\":{\"app\":\"web\"}},\"spec\":{\"replicas\":2,\"selector\":{\"matchLabels\":{\"app\":"
                    + "\"web\"}},\"template\":{\"metadata\":{\"labels\":{\"app\":\"web\"}},\"spec\":{\"containers\":["
                    + "{\"name\":\"nginx\",\"image\":\"nginx:1.25\"}],\"tolerations\":[{\"key\":\"a\",\"operator\":\"Exists\"}]}}}}";

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static EmbeddedApiServer server;
    private static ApiClient api;

    @BeforeAll
    static void start() {
        server = EmbeddedApiServer.builder().start();
        api = new ApiClient(server.url());
        api.create(
                CONFIGMAPS,
                "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"target\"},"
                        + "\"data\":{\"a\":\"1\"}}");
        api.create(DEPLOYMENTS, DEPLOYMENT);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static void assertUnchanged(String path, String before) {
        assertThat(api.get(path).raw()).as("stored object unchanged").isEqualTo(before);
        assertReady(server);
    }

    static void assertReady(EmbeddedApiServer server) {
        try {
            HttpResponse<String> ready = HTTP.send(
                    HttpRequest.newBuilder(server.url().resolve("/readyz"))
                            .timeout(Duration.ofSeconds(5))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(ready.statusCode()).isEqualTo(200);
            assertThat(ready.body()).isEqualTo("ok");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aJsonPatchThatDoublesAMapFortyTimesIsRefusedAtTheCopyLimit() {
        // CVE-2019-1002100: unbounded, this patch builds a map of 2^40 KiB.
        StringBuilder patch = new StringBuilder("[{\"op\":\"add\",\"path\":\"/data/x\",\"value\":\"")
                .append("y".repeat(1024))
                .append("\"}");
        for (int i = 0; i < 40; i++) {
            patch.append(",{\"op\":\"copy\",\"from\":\"/data\",\"path\":\"/data/c")
                    .append(i)
                    .append("\"}");
        }
        patch.append(']');
        String before = api.get(CONFIGMAPS + "/target").raw();
        Reply r = api.request("PATCH", CONFIGMAPS + "/target", "application/json-patch+json", patch.toString());
        assertThat(r.code()).as(r.raw()).isEqualTo(422);
        assertThat(r.body().get("reason").stringValue()).isEqualTo("Invalid");
        assertThat(r.body().get("details").get("causes").get(0).get("message").stringValue())
                .startsWith("Unable to complete the copy, the accumulated size increase of copy is ")
                .endsWith(", exceeding the limit 3145728");
        assertUnchanged(CONFIGMAPS + "/target", before);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"application/merge-patch+json", "application/strategic-merge-patch+json", "application/json-patch+json"
    }) // apply patches go through the same check; a 3 MiB YAML body takes ~30 s to parse, too slow for a test
    void aPatchWhoseResultIsLargerThanARequestMayBeIsTooLarge(String type) {
        String big = "x".repeat(3 * 1024 * 1024 - 100); // the patch itself is under the body limit
        String patch = type.equals("application/json-patch+json")
                ? "[{\"op\":\"add\",\"path\":\"/data/big\",\"value\":\"" + big + "\"}]"
                : "{\"data\":{\"big\":\"" + big + "\"}}";
        String before = api.get(CONFIGMAPS + "/target").raw();
        Reply r = api.request("PATCH", CONFIGMAPS + "/target", type, patch);
        assertThat(r.code())
                .as(r.raw().substring(0, Math.min(300, r.raw().length())))
                .isEqualTo(413);
        assertThat(r.body().get("reason").stringValue()).isEqualTo("RequestEntityTooLarge");
        assertThat(r.body().get("message").stringValue()).isEqualTo("Request entity too large: limit is 3145728");
        assertUnchanged(CONFIGMAPS + "/target", before);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "a bad $patch value | {\"spec\":{\"template\":{\"spec\":{\"$patch\":\"frob\"}}}}"
                        + " | unknown patch type: frob in map: map[$patch:frob]",
                "a bad $patch value in a list | {\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"nginx\","
                        + "\"$patch\":\"frob\"}]}}}} | unknown patch type: frob in map: map[$patch:frob name:nginx]",
                "$patch: delete without the merge key | {\"spec\":{\"template\":{\"spec\":{\"containers\":"
                        + "[{\"$patch\":\"delete\"}]}}}} | map: map[$patch:delete] does not contain declared merge key: name",
                "a list of maps without a merge key | {\"spec\":{\"template\":{\"spec\":{\"tolerations\":"
                        + "[{\"$patch\":\"delete\"}]}}}} | ",
                "a string $setElementOrder | {\"spec\":{\"template\":{\"spec\":{\"$setElementOrder/containers\":\"x\"}}}}"
                        + " | expected a []interface {}, but received a string",
            })
    void strategicMergePatchErrorsAreBadRequestsNotInternalErrors(String what, String patch, String message) {
        String before = api.get(DEPLOYMENTS + "/web").raw();
        Reply r = api.request("PATCH", DEPLOYMENTS + "/web", "application/strategic-merge-patch+json", patch);
        if (message == null) { // tolerations is an atomic list: the patch replaces it, as kube does
            assertThat(r.code()).as(r.raw()).isNotEqualTo(500);
            return;
        }
        assertThat(r.code()).as(r.raw()).isEqualTo(400);
        assertThat(r.body().get("kind").stringValue()).isEqualTo("Status");
        assertThat(r.body().get("reason").stringValue()).isEqualTo("BadRequest");
        assertThat(r.body().get("message").stringValue()).isEqualTo(message);
        assertUnchanged(DEPLOYMENTS + "/web", before);
    }

    /** Sends a request head only, then reads what the server answers before any byte of the body is sent. */
    private static String headOnly(String head) throws Exception {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            socket.setSoTimeout(5_000);
            OutputStream out = socket.getOutputStream();
            out.write(head.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1); // the server closes after the 413
        }
    }

    @Test
    void anOversizedContentLengthIsRefusedBeforeTheBodyIsSent() throws Exception {
        String answer = headOnly("POST " + CONFIGMAPS + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                + "Content-Length: 104857600\r\n\r\n");
        assertThat(answer).startsWith("HTTP/1.1 413 ");
        assertThat(answer)
                .contains("\"reason\":\"RequestEntityTooLarge\"", "Request entity too large: limit is 3145728");
        assertReady(server);
    }

    @Test
    void anOversizedContentLengthWithExpectContinueIsRefusedWithoutReadingTheBody() throws Exception {
        String answer =
                headOnly("PUT " + CONFIGMAPS + "/target HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        + "Expect: 100-continue\r\nContent-Length: 104857600\r\n\r\n");
        // The JDK server sends the interim 100 before any handler runs; the 413 follows at once.
        assertThat(answer.replaceFirst("^HTTP/1.1 100 Continue\r\n(Content-Length: 0\r\n)?\r\n", ""))
                .startsWith("HTTP/1.1 413 ")
                .contains("\"reason\":\"RequestEntityTooLarge\"");
    }
}
