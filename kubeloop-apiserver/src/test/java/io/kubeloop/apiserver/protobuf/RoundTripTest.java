package io.kubeloop.apiserver.protobuf;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
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
        return Stream.of("deployment", "replicaset", "statefulset", "daemonset", "pod", "node", "service",
                "endpoints", "configmap", "secret", "serviceaccount", "namespace", "event", "event-events-v1",
                "lease", "role", "clusterrole", "rolebinding", "clusterrolebinding", "selfsubjectaccessreview",
                "subjectaccessreview", "selfsubjectrulesreview", "selfsubjectreview", "scale", "status",
                "deleteoptions", "podlist", "deploymentlist", "leaselist");
    }

    @ParameterizedTest
    @MethodSource("objects")
    void jsonToProtobufToJsonGivesTheSameObject(String name) {
        ObjectNode original = read("protobuf/objects/" + name + ".json");
        assertThat(CODEC.supports(original.get("apiVersion").asString(), original.get("kind").asString())).isTrue();

        byte[] body = CODEC.encode(original);

        assertThat(body).startsWith('k', '8', 's', 0);
        assertThat(CODEC.decode(body)).isEqualTo(original);
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
