package io.kubeloop.apiserver.internal.protobuf;

import static io.kubeloop.apiserver.internal.protobuf.RoundTripTest.CODEC;
import static io.kubeloop.apiserver.internal.protobuf.RoundTripTest.JSON;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.node.ObjectNode;

/** Every malformed body fails with a ProtobufException that says what was wrong, and never echoes the input. */
class MalformedBodiesTest {

    private static final String SECRET = "s3cr3t-value";

    static Stream<Arguments> malformedBodies() {
        ProtoWriter metaWithSecret = new ProtoWriter().string(1, SECRET);
        return Stream.of(
                Arguments.of("an empty body", new byte[0], "prefix"),
                Arguments.of(
                        "JSON instead of protobuf", "{\"kind\":\"Pod\"}".getBytes(StandardCharsets.UTF_8), "prefix"),
                Arguments.of("the prefix alone", new byte[] {'k', '8', 's', 0}, "names no kind"),
                Arguments.of(
                        "no apiVersion",
                        envelope(new ProtoWriter()
                                .message(1, new ProtoWriter().string(2, "Pod"))
                                .bytes(2, metaWithSecret.toByteArray())),
                        "names no apiVersion"),
                Arguments.of(
                        "a gzip content encoding",
                        envelope(typeMeta("v1", "Pod")
                                .bytes(2, pod(metaWithSecret))
                                .string(3, "gzip")),
                        "content encoding"),
                Arguments.of(
                        "a custom resource",
                        ProtoWriter.kubernetesBody("example.com/v1", "Widget", pod(metaWithSecret)),
                        "no protobuf schema for \"example.com/v1\" \"Widget\""),
                Arguments.of(
                        "a CustomResourceDefinition",
                        ProtoWriter.kubernetesBody(
                                "apiextensions.k8s.io/v1", "CustomResourceDefinition", pod(metaWithSecret)),
                        "custom resources are JSON only"),
                Arguments.of(
                        "a truncated object",
                        ProtoWriter.kubernetesBody("v1", "Pod", Arrays.copyOf(pod(metaWithSecret), 9)),
                        "at metadata"),
                Arguments.of(
                        "a length claiming 2 GB",
                        ProtoWriter.kubernetesBody("v1", "Pod", new byte[] {
                            0x0A, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x07, 1, 2
                        }),
                        "claims 2147483647 bytes"),
                Arguments.of(
                        "the envelope's raw claiming 2 GB",
                        new byte[] {'k', '8', 's', 0, 0x12, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x07, 1
                        },
                        "claims 2147483647 bytes"),
                Arguments.of(
                        "a message field sent as a varint",
                        ProtoWriter.kubernetesBody(
                                "apps/v1",
                                "Deployment",
                                new ProtoWriter()
                                        .message(1, metaWithSecret)
                                        .varint(2, 3)
                                        .toByteArray()),
                        "at spec: field 2 has wire type 0, expected 2"),
                Arguments.of(
                        "a number sent as a string",
                        ProtoWriter.kubernetesBody(
                                "apps/v1",
                                "Deployment",
                                new ProtoWriter()
                                        .message(2, new ProtoWriter().string(1, SECRET))
                                        .toByteArray()),
                        "at spec.replicas: field 1 has wire type 2, expected 0"),
                Arguments.of(
                        "a string that is not UTF-8",
                        ProtoWriter.kubernetesBody(
                                "v1",
                                "Pod",
                                new ProtoWriter()
                                        .message(1, new ProtoWriter().bytes(1, new byte[] {(byte) 0xC3}))
                                        .toByteArray()),
                        "at metadata.name: field 1 at offset 4 is not valid UTF-8"),
                Arguments.of(
                        "a group (deprecated wire type 3)",
                        ProtoWriter.kubernetesBody("v1", "Pod", new byte[] {(byte) 0x9B, 0x06}),
                        "unsupported wire type 3"),
                Arguments.of(
                        "an int-or-string of type 7",
                        ProtoWriter.kubernetesBody(
                                "v1",
                                "Service",
                                new ProtoWriter()
                                        .message(
                                                2,
                                                new ProtoWriter()
                                                        .message(
                                                                1,
                                                                new ProtoWriter()
                                                                        .varint(3, 80)
                                                                        .message(
                                                                                4,
                                                                                new ProtoWriter()
                                                                                        .varint(1, 7)
                                                                                        .string(3, SECRET))))
                                        .toByteArray()),
                        "at spec.ports[0].targetPort: an int-or-string has type 7"),
                Arguments.of(
                        "a time in the year 10000",
                        ProtoWriter.kubernetesBody(
                                "v1",
                                "Pod",
                                new ProtoWriter()
                                        .message(
                                                1,
                                                new ProtoWriter()
                                                        .message(8, new ProtoWriter().varint(1, 253_402_300_800L)))
                                        .toByteArray()),
                        "at metadata.creationTimestamp: a time is outside the years 1 to 9999"),
                Arguments.of(
                        "a quantity without a value",
                        ProtoWriter.kubernetesBody(
                                "v1",
                                "Node",
                                new ProtoWriter()
                                        .message(
                                                3,
                                                new ProtoWriter()
                                                        .message(
                                                                1,
                                                                new ProtoWriter()
                                                                        .string(1, "cpu")
                                                                        .message(2, new ProtoWriter())))
                                        .toByteArray()),
                        "at status.capacity: a quantity has no value"),
                Arguments.of(
                        "managed fields that are not JSON",
                        ProtoWriter.kubernetesBody(
                                "v1",
                                "Pod",
                                new ProtoWriter()
                                        .message(
                                                1,
                                                new ProtoWriter()
                                                        .message(
                                                                17,
                                                                new ProtoWriter()
                                                                        .message(
                                                                                7,
                                                                                new ProtoWriter()
                                                                                        .bytes(
                                                                                                1,
                                                                                                ("{\"" + SECRET)
                                                                                                        .getBytes(
                                                                                                                StandardCharsets
                                                                                                                        .UTF_8)))))
                                        .toByteArray()),
                        "at metadata.managedFields[0].fieldsV1: the embedded raw JSON is malformed"),
                Arguments.of(
                        "raw JSON nested 100000 deep",
                        watchEvent("[".repeat(100_000).getBytes(StandardCharsets.UTF_8)),
                        "the embedded raw JSON is malformed"),
                Arguments.of(
                        "watch events nested in watch events",
                        nestedWatchEvents(200),
                        "nested deeper than 100 levels"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedBodies")
    void aMalformedBodyFailsWithAMessageNamingTheProblem(String scenario, byte[] body, String expected) {
        assertThatThrownBy(() -> CODEC.decode(body))
                .isExactlyInstanceOf(ProtobufException.class)
                .hasMessageContaining(expected)
                .message()
                .doesNotContain(SECRET)
                .doesNotContain("s3cr3t");
    }

    static Stream<Arguments> unencodableObjects() {
        return Stream.of(
                Arguments.of(
                        "a custom resource",
                        "{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\"}",
                        "no protobuf schema"),
                Arguments.of("no kind", "{\"apiVersion\":\"v1\"}", "no protobuf schema"),
                Arguments.of(
                        "replicas as a string",
                        "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\"," + "\"spec\":{\"replicas\":\"" + SECRET
                                + "\"}}",
                        "at spec.replicas: expected an integer"),
                Arguments.of(
                        "replicas beyond int32",
                        "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\"," + "\"spec\":{\"replicas\":4294967296}}",
                        "at spec.replicas: expected an integer between"),
                Arguments.of(
                        "a fractional replicas",
                        "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\"," + "\"spec\":{\"replicas\":1.5}}",
                        "at spec.replicas: expected an integer"),
                Arguments.of(
                        "a label that is a number",
                        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\"," + "\"metadata\":{\"labels\":{\"a\":1}}}",
                        "at metadata.labels: expected a string"),
                Arguments.of(
                        "containers that are an object",
                        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\"," + "\"spec\":{\"containers\":{}}}",
                        "at spec.containers: expected an array"),
                Arguments.of(
                        "a bad time",
                        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\"," + "\"metadata\":{\"creationTimestamp\":\"" + SECRET
                                + "\"}}",
                        "at metadata.creationTimestamp: expected an RFC 3339 time"),
                Arguments.of(
                        "secret data that is not base64",
                        "{\"apiVersion\":\"v1\",\"kind\":\"Secret\"," + "\"data\":{\"k\":\"" + SECRET + "!\"}}",
                        "at data: expected base64 bytes"),
                Arguments.of(
                        "a port that is neither number nor string",
                        "{\"apiVersion\":\"v1\",\"kind\":\"Service\","
                                + "\"spec\":{\"ports\":[{\"port\":80,\"targetPort\":true}]}}",
                        "at spec.ports[0].targetPort: expected an integer"),
                Arguments.of(
                        "a spec that is a string",
                        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"spec\":\"x\"}",
                        "at spec: expected an object"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("unencodableObjects")
    void anObjectThatDoesNotFitItsSchemaFailsToEncodeNamingTheField(String scenario, String json, String expected) {
        ObjectNode object = (ObjectNode) JSON.readTree(json);
        assertThatThrownBy(() -> CODEC.encode(object))
                .isExactlyInstanceOf(ProtobufException.class)
                .hasMessageContaining(expected)
                .message()
                .doesNotContain(SECRET);
    }

    @Test
    void anEnvelopeWithoutRawIsTheEmptyObjectAsKubeReadsIt() {
        // proto.Unmarshal of no bytes is the message with every field at its zero value; encoding an object that
        // has nothing but apiVersion and kind gives such a body, so it must decode back (found by the fuzz test)
        assertThat(CODEC.decode(envelope(typeMeta("v1", "ServiceAccount"))).toString())
                .isEqualTo("{\"apiVersion\":\"v1\",\"kind\":\"ServiceAccount\"}");
    }

    @Test
    void unknownFieldsAreSkippedAsGoDoes() {
        byte[] raw = new ProtoWriter()
                .message(
                        1,
                        new ProtoWriter()
                                .string(1, "dev")
                                .varint(999, 5)
                                .fixed32(998, 1)
                                .fixed64(997, 2))
                .bytes(1000, new byte[] {1, 2, 3})
                .toByteArray();

        ObjectNode decoded = CODEC.decode(ProtoWriter.kubernetesBody("v1", "Namespace", raw));

        assertThat(decoded)
                .isEqualTo(JSON.readTree(
                        "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"dev\"}}"));
    }

    @Test
    void packedAndUnpackedRepeatedNumbersDecodeAlike() {
        ProtoWriter packed = new ProtoWriter().bytes(4, new byte[] {(byte) 0xB8, 0x17, (byte) 0xA0, 0x1F});
        ProtoWriter unpacked = new ProtoWriter().varint(4, 3000).varint(4, 4000);
        for (ProtoWriter securityContext : new ProtoWriter[] {packed, unpacked}) {
            byte[] raw = new ProtoWriter()
                    .message(2, new ProtoWriter().message(14, securityContext))
                    .toByteArray();
            assertThat(CODEC.decode(ProtoWriter.kubernetesBody("v1", "Pod", raw))
                            .at("/spec/securityContext"))
                    .isEqualTo(JSON.readTree("{\"supplementalGroups\":[3000,4000]}"));
        }
    }

    private static byte[] pod(ProtoWriter metadata) {
        return new ProtoWriter().message(1, metadata).toByteArray();
    }

    private static ProtoWriter typeMeta(String apiVersion, String kind) {
        return new ProtoWriter()
                .message(1, new ProtoWriter().string(1, apiVersion).string(2, kind));
    }

    private static byte[] envelope(ProtoWriter unknown) {
        byte[] bytes = unknown.toByteArray();
        byte[] body = new byte[bytes.length + 4];
        body[0] = 'k';
        body[1] = '8';
        body[2] = 's';
        System.arraycopy(bytes, 0, body, 4, bytes.length);
        return body;
    }

    private static byte[] watchEvent(byte[] raw) {
        return ProtoWriter.kubernetesBody(
                "v1",
                "WatchEvent",
                new ProtoWriter()
                        .string(1, "ADDED")
                        .message(2, new ProtoWriter().bytes(1, raw))
                        .toByteArray());
    }

    private static byte[] nestedWatchEvents(int depth) {
        byte[] body = ProtoWriter.kubernetesBody("v1", "Namespace", pod(new ProtoWriter().string(1, "dev")));
        for (int i = 0; i < depth; i++) {
            body = watchEvent(body);
        }
        return body;
    }
}
