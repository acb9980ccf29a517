package io.kubeloop.apiserver.internal.protobuf;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Message;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * For a realistic object of every supported kind (src/test/resources/protobuf/objects): JSON → protobuf → JSON
 * gives back the same JSON, explicit zeros of pointer fields, empty structs, int-or-strings, quantities, times,
 * bytes and raw JSON included.
 */
class RoundTripTest {

    static final JsonMapper JSON = JsonMapper.builder().build();
    static final ProtobufCodec CODEC = ProtobufSupport.codec(JSON).orElseThrow();

    static Stream<String> objects() {
        return Stream.of(
                "deployment",
                "replicaset",
                "statefulset",
                "daemonset",
                "pod",
                "node",
                "service",
                "endpoints",
                "configmap",
                "secret",
                "serviceaccount",
                "namespace",
                "event",
                "event-events-v1",
                "lease",
                "role",
                "clusterrole",
                "rolebinding",
                "clusterrolebinding",
                "selfsubjectaccessreview",
                "subjectaccessreview",
                "selfsubjectrulesreview",
                "selfsubjectreview",
                "scale",
                "status",
                "deleteoptions",
                "podlist",
                "deploymentlist",
                "leaselist");
    }

    @ParameterizedTest
    @MethodSource("objects")
    void jsonToProtobufToJsonGivesTheSameObject(String name) {
        ObjectNode original = read("protobuf/objects/" + name + ".json");
        assertThat(CODEC.supports(
                        original.get("apiVersion").asString(),
                        original.get("kind").asString()))
                .isTrue();

        byte[] body = CODEC.encode(original);

        assertThat(body).startsWith('k', '8', 's', 0);
        assertThat(CODEC.decode(body)).isEqualTo(original);
    }

    /**
     * An independent check of the encoder's wire format: protobuf-java's own parser reads every encoded object
     * with the kind's descriptor and finds no field it does not know (a wrong field number or wire type would
     * land among the unknown fields).
     */
    @ParameterizedTest
    @MethodSource("objects")
    void protobufJavaParsesEveryEncodedObjectWithoutUnknownFields(String name) throws Exception {
        ObjectNode original = read("protobuf/objects/" + name + ".json");
        Descriptor type = new DescriptorCodec(JSON)
                .schemas()
                .find(
                        original.get("apiVersion").asString(),
                        original.get("kind").asString())
                .orElseThrow();

        DynamicMessage message = DynamicMessage.parseFrom(
                type, Envelope.decode(CODEC.encode(original)).raw());

        assertThat(unknownFields(message)).isEmpty();
        assertThat(message.getAllFields()).isNotEmpty();
    }

    private static List<String> unknownFields(Message message) {
        List<String> unknown = new ArrayList<>();
        if (!message.getUnknownFields().asMap().isEmpty()) {
            unknown.add(message.getDescriptorForType().getFullName() + " "
                    + message.getUnknownFields().asMap().keySet());
        }
        for (Map.Entry<FieldDescriptor, Object> field : message.getAllFields().entrySet()) {
            if (field.getKey().getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
                continue;
            }
            List<?> values = field.getKey().isRepeated() ? (List<?>) field.getValue() : List.of(field.getValue());
            for (Object value : values) {
                unknown.addAll(unknownFields((Message) value));
            }
        }
        return unknown;
    }

    static ObjectNode read(String resource) {
        try (InputStream in = RoundTripTest.class.getClassLoader().getResourceAsStream(resource)) {
            assertThat(in).as(resource).isNotNull();
            JsonNode node = JSON.readTree(in);
            return (ObjectNode) node;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
