package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.apiserver.internal.protobuf.ProtobufSupport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The server of a user who left the optional {@code io.kubernetes:client-java-proto} out: JSON works as ever
 * (answers too, whatever the Accept), protobuf bodies get a 415 that names the missing artifact, and the review
 * kinds still read kubectl's protobuf bodies (so {@code kubectl auth can-i} and {@code whoami} keep working).
 *
 * <p>Runs only in its own surefire execution ({@code without-protobuf} in this module's pom), whose class path
 * excludes client-java-proto and protobuf-java; {@code mvn test} runs it, {@code -Dtest=...} does not select it.
 */
class WithoutProtobufIT extends EmbeddedServerTest {

    private static final String PROTOBUF = "application/vnd.kubernetes.protobuf";
    /** The body kubectl v1.32 sends for {@code kubectl auth can-i list pods} (as in {@link ReviewsIT}). */
    private static final byte[] KUBECTL_CAN_I_LIST_PODS = HexFormat.of()
            .parseHex("6b3873000a320a17617574686f72697a"
                    + "6174696f6e2e6b38732e696f2f7631121753656c665375626a656374416363657373526576696577123d0a100a0012001a002200"
                    + "2a00320038004200121f0a1d0a0764656661756c7412046c6973741a0022002a04706f647332003a001a08080012001a002000"
                    + "1a002200");

    private final HttpClient http = HttpClient.newHttpClient();

    private record Reply(int code, String contentType, JsonNode body) {}

    private Reply send(String method, String path, String contentType, byte[] body, String accept) {
        HttpRequest.Builder b = HttpRequest.newBuilder(server.url().resolve(path))
                .method(
                        method,
                        body == null
                                ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofByteArray(body));
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        b.header("Accept", accept);
        try {
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            return new Reply(
                    r.statusCode(),
                    r.headers().firstValue("Content-Type").orElse(""),
                    ApiClient.JSON.readTree(r.body()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Test
    void theClassPathReallyLacksTheCodec() {
        assertThat(ProtobufSupport.codec(ApiClient.JSON))
                .as("this test's execution excludes client-java-proto")
                .isEmpty();
    }

    @Test
    void protobufBodiesAreToldWhatIsMissingAndAnswersStayJson() {
        Reply body = send(
                "POST",
                "/api/v1/namespaces/default/configmaps",
                PROTOBUF,
                new byte[] {'k', '8', 's', 0},
                PROTOBUF + ",application/json");
        assertThat(body.code()).isEqualTo(415);
        assertThat(body.body().path("reason").asString()).isEqualTo("UnsupportedMediaType");
        assertThat(body.body().path("message").asString())
                .isEqualTo("the body of the request was in an unknown "
                        + "format - accepted media types include: application/json, application/yaml "
                        + "(application/vnd.kubernetes.protobuf bodies need io.kubernetes:client-java-proto on the server's "
                        + "class path)");
        Reply plain = send(
                "POST", "/api/v1/namespaces/default/configmaps", "text/plain", "{}".getBytes(), "application/json");
        assertThat(plain.body().path("message").asString())
                .as("protobuf is not offered")
                .isEqualTo(
                        "the body of the "
                                + "request was in an unknown format - accepted media types include: application/json, application/yaml");

        Reply answer = send("GET", "/api/v1/namespaces/default/configmaps", null, null, PROTOBUF);
        assertThat(answer.code())
                .as("answered in JSON as always: client-go decodes by Content-Type")
                .isEqualTo(200);
        assertThat(answer.contentType()).isEqualTo("application/json");
        assertThat(answer.body().path("kind").asString()).isEqualTo("ConfigMapList");

        assertThat(api.create("/api/v1/namespaces/default/configmaps", "{\"metadata\":{\"name\":\"json\"}}")
                        .at("/metadata/name")
                        .asString())
                .isEqualTo("json");
    }

    @Test
    void reviewsStillReadKubectlsProtobufBodies() {
        Reply review = send(
                "POST",
                "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
                PROTOBUF,
                KUBECTL_CAN_I_LIST_PODS,
                PROTOBUF + ",application/json");
        assertThat(review.code()).isEqualTo(201);
        assertThat(review.body().at("/spec/resourceAttributes/resource").asString())
                .isEqualTo("pods");
        assertThat(review.body().at("/status/allowed").asBoolean()).isTrue();
    }
}
