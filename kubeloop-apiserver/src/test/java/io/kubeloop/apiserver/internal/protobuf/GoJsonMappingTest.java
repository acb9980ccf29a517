package io.kubeloop.apiserver.internal.protobuf;

import static io.kubeloop.apiserver.internal.protobuf.RoundTripTest.CODEC;
import static io.kubeloop.apiserver.internal.protobuf.RoundTripTest.JSON;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Protobuf bodies written the way Go writes them (every non-pointer field, zero or not; pointer fields only
 * when set) decode to what Go's encoding/json prints for the same object.
 */
class GoJsonMappingTest {

    static Stream<Arguments> zeroValues() {
        return Stream.of(
                Arguments.of(
                        "a Deployment's replicas: 0 (a pointer) is kept; minReadySeconds and paused are not",
                        "apps/v1",
                        "Deployment",
                        new ProtoWriter()
                                .message(
                                        2,
                                        new ProtoWriter()
                                                .varint(1, 0)
                                                .varint(5, 0)
                                                .varint(7, 0)
                                                .message(4, new ProtoWriter())),
                        "{\"spec\":{\"replicas\":0,\"strategy\":{}}}"),
                Arguments.of(
                        "a Deployment without replicas has none (the server defaults it to 1)",
                        "apps/v1",
                        "Deployment",
                        new ProtoWriter().message(2, new ProtoWriter().varint(5, 0)),
                        "{\"spec\":{}}"),
                Arguments.of(
                        "a ConfigMap's immutable: false is kept",
                        "v1",
                        "ConfigMap",
                        new ProtoWriter().varint(4, 0),
                        "{\"immutable\":false}"),
                Arguments.of(
                        "terminationGracePeriodSeconds: 0 is kept, hostNetwork: false is not",
                        "v1",
                        "Pod",
                        new ProtoWriter()
                                .message(
                                        2,
                                        new ProtoWriter()
                                                .varint(4, 0)
                                                .varint(11, 0)
                                                .string(3, "")),
                        "{\"spec\":{\"terminationGracePeriodSeconds\":0}}"),
                Arguments.of(
                        "a container's name (no omitempty) is kept empty, its imagePullPolicy is not",
                        "v1",
                        "Pod",
                        new ProtoWriter()
                                .message(
                                        2,
                                        new ProtoWriter()
                                                .message(
                                                        2,
                                                        new ProtoWriter()
                                                                .string(1, "")
                                                                .string(14, "")
                                                                .varint(16, 0)
                                                                .message(8, new ProtoWriter()))),
                        "{\"spec\":{\"containers\":[{\"name\":\"\",\"resources\":{}}]}}"),
                Arguments.of(
                        "a review's allowed: false (no omitempty) is kept, denied: false is not",
                        "authorization.k8s.io/v1",
                        "SelfSubjectAccessReview",
                        new ProtoWriter()
                                .message(
                                        3,
                                        new ProtoWriter()
                                                .varint(1, 0)
                                                .varint(4, 0)
                                                .string(2, "")),
                        "{\"status\":{\"allowed\":false}}"),
                Arguments.of(
                        "DeleteOptions' gracePeriodSeconds: 0 and orphanDependents: false are kept",
                        "v1",
                        "DeleteOptions",
                        new ProtoWriter().varint(1, 0).varint(3, 0),
                        "{\"gracePeriodSeconds\":0,\"orphanDependents\":false}"),
                Arguments.of(
                        "a service port's port: 0 is kept, nodePort: 0 is not; targetPort 0 is a number",
                        "v1",
                        "Service",
                        new ProtoWriter()
                                .message(
                                        2,
                                        new ProtoWriter()
                                                .message(
                                                        1,
                                                        new ProtoWriter()
                                                                .string(1, "")
                                                                .varint(3, 0)
                                                                .varint(5, 0)
                                                                .message(
                                                                        4,
                                                                        new ProtoWriter()
                                                                                .varint(1, 0)
                                                                                .varint(2, 0)
                                                                                .string(3, "")))),
                        "{\"spec\":{\"ports\":[{\"port\":0,\"targetPort\":0}]}}"),
                Arguments.of(
                        "a Lease's holderIdentity \"\" and leaseTransitions 0 (pointers) are kept",
                        "coordination.k8s.io/v1",
                        "Lease",
                        new ProtoWriter()
                                .message(2, new ProtoWriter().string(1, "").varint(5, 0)),
                        "{\"spec\":{\"holderIdentity\":\"\",\"leaseTransitions\":0}}"),
                Arguments.of(
                        "empty label values and finalizers are kept: map values and array elements always are",
                        "v1",
                        "Namespace",
                        new ProtoWriter()
                                .message(
                                        1,
                                        new ProtoWriter()
                                                .message(
                                                        11,
                                                        new ProtoWriter()
                                                                .string(1, "a")
                                                                .string(2, ""))
                                                .message(11, new ProtoWriter().string(1, "b"))
                                                .string(14, "")
                                                .varint(7, 0)),
                        "{\"metadata\":{\"labels\":{\"a\":\"\",\"b\":\"\"},\"finalizers\":[\"\"]}}"),
                Arguments.of(
                        "an empty Time is Go's zero time, left out; seconds 0 is the epoch",
                        "v1",
                        "Namespace",
                        new ProtoWriter()
                                .message(
                                        1,
                                        new ProtoWriter()
                                                .message(8, new ProtoWriter())
                                                .message(
                                                        9,
                                                        new ProtoWriter()
                                                                .varint(1, 0)
                                                                .varint(2, 0))),
                        "{\"metadata\":{\"deletionTimestamp\":\"1970-01-01T00:00:00Z\"}}"),
                Arguments.of(
                        "a Time drops its nanoseconds, a MicroTime keeps six digits",
                        "events.k8s.io/v1",
                        "Event",
                        new ProtoWriter()
                                .message(
                                        2,
                                        new ProtoWriter()
                                                .varint(1, 1_735_689_600L)
                                                .varint(2, 123_456_789))
                                .message(
                                        13,
                                        new ProtoWriter()
                                                .varint(1, 1_735_689_600L)
                                                .varint(2, 999_999_999)),
                        "{\"eventTime\":\"2025-01-01T00:00:00.123456Z\","
                                + "\"deprecatedFirstTimestamp\":\"2025-01-01T00:00:00Z\"}"),
                Arguments.of(
                        "a repeated occurrence of a struct merges into the first, a scalar's last value wins",
                        "apps/v1",
                        "Deployment",
                        new ProtoWriter()
                                .message(2, new ProtoWriter().varint(1, 2).varint(5, 7))
                                .message(2, new ProtoWriter().varint(1, 3).varint(5, 0)),
                        "{\"spec\":{\"replicas\":3}}"),
                Arguments.of(
                        "a Job's completions: 0 and suspend: false (pointers) are kept",
                        "batch/v1",
                        "Job",
                        new ProtoWriter()
                                .message(2, new ProtoWriter().varint(2, 0).varint(10, 0)),
                        "{\"spec\":{\"completions\":0,\"suspend\":false}}"),
                Arguments.of(
                        "an EndpointSlice endpoint's ready: false (a pointer) is kept",
                        "discovery.k8s.io/v1",
                        "EndpointSlice",
                        new ProtoWriter().message(2, new ProtoWriter().message(2, new ProtoWriter().varint(1, 0))),
                        "{\"endpoints\":[{\"conditions\":{\"ready\":false}}]}"),
                Arguments.of(
                        "IngressClass parameters' aPIGroup (protobuf name) is apiGroup in JSON",
                        "networking.k8s.io/v1",
                        "IngressClass",
                        new ProtoWriter()
                                .message(
                                        2,
                                        new ProtoWriter()
                                                .message(
                                                        2,
                                                        new ProtoWriter()
                                                                .string(1, "example.com")
                                                                .string(2, "Params"))),
                        "{\"spec\":{\"parameters\":{\"apiGroup\":\"example.com\",\"kind\":\"Params\"}}}"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("zeroValues")
    void goBodiesDecodeToGosJson(String scenario, String apiVersion, String kind, ProtoWriter raw, String expected) {
        ObjectNode decoded = CODEC.decode(ProtoWriter.kubernetesBody(apiVersion, kind, raw.toByteArray()));

        ObjectNode want = (ObjectNode) JSON.readTree(expected);
        want.put("apiVersion", apiVersion);
        want.put("kind", kind);
        assertThat(decoded).isEqualTo(want);
    }

    @Test
    void timesAreWrittenInUtcToTheSecondWhateverTheirOffset() {
        ObjectNode pod = (ObjectNode) JSON.readTree("{\"apiVersion\":\"v1\",\"kind\":\"Pod\","
                + "\"metadata\":{\"creationTimestamp\":\"2025-01-01T01:30:00.75+02:00\"}}");

        JsonNode decoded = CODEC.decode(CODEC.encode(pod));

        assertThat(decoded.at("/metadata/creationTimestamp").asString()).isEqualTo("2024-12-31T23:30:00Z");
    }

    @Test
    void aQuantityWrittenAsAJsonNumberIsEncodedAsItsText() {
        ObjectNode node = (ObjectNode)
                JSON.readTree("{\"apiVersion\":\"v1\",\"kind\":\"Node\"," + "\"status\":{\"capacity\":{\"cpu\":4}}}");

        assertThat(CODEC.decode(CODEC.encode(node)).at("/status/capacity/cpu").asString())
                .isEqualTo("4");
    }

    @Test
    void aWatchFrameIsALengthThenAWatchEventEnvelopeHoldingTheObjectsProtobufBody() {
        ObjectNode deployment = RoundTripTest.read("protobuf/objects/deployment.json");

        byte[] frame = CODEC.encodeWatchEvent("MODIFIED", deployment);

        int length = ByteBuffer.wrap(frame, 0, 4).getInt();
        assertThat(length).isEqualTo(frame.length - 4);
        byte[] body = Arrays.copyOfRange(frame, 4, frame.length);
        Envelope envelope = Envelope.decode(body);
        assertThat(envelope.apiVersion()).isEqualTo("apps/v1");
        assertThat(envelope.kind()).isEqualTo("WatchEvent");
        WireReader event = new WireReader(envelope.raw());
        assertThat(event.next()).isTrue();
        assertThat(event.readString()).isEqualTo("MODIFIED");
        assertThat(event.next()).isTrue();
        WireReader rawExtension = event.readMessage();
        assertThat(rawExtension.next()).isTrue();
        assertThat(CODEC.decode(rawExtension.readBytes())).isEqualTo(deployment);
        ObjectNode decoded = CODEC.decode(body);
        assertThat(decoded.get("type").asString()).isEqualTo("MODIFIED");
        assertThat(decoded.get("object")).isEqualTo(deployment);
    }

    @Test
    void anErrorEventCarriesAStatusInAV1Envelope() {
        ObjectNode status = RoundTripTest.read("protobuf/objects/status.json");

        byte[] frame = CODEC.encodeWatchEvent("ERROR", status);

        byte[] body = Arrays.copyOfRange(frame, 4, frame.length);
        assertThat(Envelope.decode(body).apiVersion()).isEqualTo("v1");
        assertThat(CODEC.decode(body).get("object")).isEqualTo(status);
    }

    @Test
    void aWatchEventOfAnUnknownTypeOrAnUnsupportedObjectIsRefused() {
        ObjectNode namespace = (ObjectNode) JSON.readTree("{\"apiVersion\":\"v1\",\"kind\":\"Namespace\"}");
        ObjectNode widget = (ObjectNode) JSON.readTree("{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\"}");

        assertThatThrownBy(() -> CODEC.encodeWatchEvent("CHANGED", namespace))
                .isInstanceOf(ProtobufException.class)
                .hasMessageContaining("ADDED");
        assertThatThrownBy(() -> CODEC.encodeWatchEvent("ADDED", widget))
                .isInstanceOf(ProtobufException.class)
                .hasMessageContaining("no protobuf schema");
    }

    @ParameterizedTest
    @CsvSource({
        "0, 0s",
        "5, 5ns",
        "1000, 1µs",
        "1500, 1.5µs",
        "300000000, 300ms",
        "1500000000, 1.5s",
        "60000000000, 1m0s",
        "3600000000000, 1h0m0s",
        "5430500000000, 1h30m30.5s",
        "-90000000000, -1m30s",
        "-9223372036854775808, -2562047h47m16.854775808s",
        "9223372036854775807, 2562047h47m16.854775807s"
    })
    void goDurationsPrintAndParseAsGoDoes(long nanos, String text) {
        assertThat(GoDuration.format(nanos)).isEqualTo(text);
        assertThat(GoDuration.parse(text)).isEqualTo(nanos);
    }

    @ParameterizedTest
    @CsvSource({
        "1h30m, 5400000000000",
        ".5s, 500000000",
        "1.5h, 5400000000000",
        "0, 0",
        "+2us, 2000",
        "1m1ms, 60001000000"
    })
    void goDurationsParseEveryFormGoAccepts(String text, long nanos) {
        assertThat(GoDuration.parse(text)).isEqualTo(nanos);
    }

    @ParameterizedTest
    @CsvSource({"''", "1", "1x", "h", "1..5s", "-", "3000000h"})
    void malformedDurationsAreRefused(String text) {
        assertThatThrownBy(() -> GoDuration.parse(text)).isInstanceOf(IllegalArgumentException.class);
    }
}
