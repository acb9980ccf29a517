package io.kubeloop.apiserver.internal.protobuf;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The independent check of the JSON mapping and the zero-value rule: protobuf bodies captured from the real
 * kubectl v1.32 decode to exactly what the same kubectl command prints with {@code --dry-run=client -o json}
 * (Go's encoding/json of the same object). How the files were made: src/test/resources/protobuf/kubectl/README.md.
 */
class GoldenBodiesTest {

    static Stream<String> bodies() {
        return Stream.of(
                "create-namespace",
                "create-deployment",
                "create-deployment-port-zero-replicas",
                "create-configmap",
                "create-configmap-from-file",
                "create-secret-generic",
                "create-secret-docker-registry",
                "create-serviceaccount",
                "create-role",
                "create-rolebinding",
                "create-clusterrole",
                "create-clusterrolebinding",
                "create-service-clusterip",
                "auth-can-i",
                "auth-whoami");
    }

    @ParameterizedTest
    @MethodSource("bodies")
    void kubectlsProtobufBodyDecodesToWhatKubectlPrintsAsJson(String name) {
        ObjectNode expected = withoutNullTimestamps(RoundTripTest.read("protobuf/kubectl/" + name + ".json"));

        ObjectNode decoded = RoundTripTest.CODEC.decode(bytes("protobuf/kubectl/" + name + ".bin"));

        assertThat(decoded).isEqualTo(expected);
        assertThat(RoundTripTest.CODEC.decode(RoundTripTest.CODEC.encode(decoded)))
                .isEqualTo(expected);
    }

    /** Go prints a zero metav1.Time as null; the codec leaves it out (the server would drop or set it anyway). */
    private static ObjectNode withoutNullTimestamps(ObjectNode node) {
        if (node.path("creationTimestamp").isNull()) {
            node.remove("creationTimestamp");
        }
        for (JsonNode child : node) {
            if (child instanceof ObjectNode object) {
                withoutNullTimestamps(object);
            } else if (child.isArray()) {
                child.forEach(item -> {
                    if (item instanceof ObjectNode object) {
                        withoutNullTimestamps(object);
                    }
                });
            }
        }
        return node;
    }

    static byte[] bytes(String resource) {
        try (InputStream in = GoldenBodiesTest.class.getClassLoader().getResourceAsStream(resource)) {
            assertThat(in).as(resource).isNotNull();
            return in.readAllBytes();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
