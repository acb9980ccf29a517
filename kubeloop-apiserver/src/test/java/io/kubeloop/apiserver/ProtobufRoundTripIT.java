package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.model.ResourceRegistry;
import io.kubeloop.model.ResourceType;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * For every built-in kind the server stores: the same object created in JSON on one server and in protobuf on
 * another reads back (as JSON) identically, so a protobuf body is stored exactly as its JSON would be (field
 * names, int-or-string, quantities, times, bytes, raw extensions, explicit zeros, empty structs). The objects are
 * the codec's realistic samples ({@code src/test/resources/protobuf/objects/<kind>.json}).
 */
class ProtobufRoundTripIT extends EmbeddedServerTest {

    /** The built-in kinds that are stored (not the create-only reviews) and have a protobuf form. */
    static Stream<ResourceType> storedKinds() {
        return ResourceRegistry.builtIn().types().stream()
                .filter(t -> t.verbs().contains("get"))
                .filter(t -> ProtobufClient.CODEC.supports(t.gvk().apiVersion(), t.kind()));
    }

    @Test
    void everyStoredBuiltInKindButCustomResourceDefinitionsHasProtobuf() {
        assertThat(ResourceRegistry.builtIn().types().stream()
                        .filter(t -> t.verbs().contains("get"))
                        .filter(t -> !ProtobufClient.CODEC.supports(t.gvk().apiVersion(), t.kind()))
                        .map(ResourceType::kind))
                .containsExactly("CustomResourceDefinition");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("storedKinds")
    void aProtobufBodyIsStoredAsItsJson(ResourceType type) {
        ObjectNode sample = creatable(sample(type));
        String collection = collection(type, sample.at("/metadata/namespace").asString(""));
        try (EmbeddedApiServer twin = EmbeddedApiServer.builder().start()) {
            ApiClient jsonApi = new ApiClient(twin.url());
            ProtobufClient protobufApi = new ProtobufClient(server.url());
            String namespace = sample.at("/metadata/namespace").asString("");
            if (type.namespaced() && !namespace.isEmpty()) {
                for (ApiClient each : List.of(jsonApi, api)) {
                    if (each.get("/api/v1/namespaces/" + namespace).code() == 404) {
                        each.create("/api/v1/namespaces", "{\"metadata\":{\"name\":\"" + namespace + "\"}}");
                    }
                }
            }
            ApiClient.Reply viaJson = jsonApi.post(collection, sample.toString());
            assertThat(viaJson.code()).as("JSON create: %s", viaJson.raw()).isEqualTo(201);
            ProtobufClient.Reply viaProtobuf =
                    protobufApi.send("POST", collection, ProtobufClient.encode(sample.toString()));
            assertThat(viaProtobuf.code())
                    .as("protobuf create: %s", viaProtobuf.body())
                    .isEqualTo(201);

            String name = sample.at("/metadata/name").asString();
            JsonNode storedFromJson = jsonApi.get(collection + "/" + name).body();
            JsonNode storedFromProtobuf = api.get(collection + "/" + name).body();
            assertThat(serverIndependent(storedFromProtobuf)).isEqualTo(serverIndependent(storedFromJson));
            assertThat(KubectlImperativeIT.defaultedOnly(
                            serverIndependent(storedFromProtobuf).path("spec"), sample.path("spec"), "spec"))
                    .as("the sample's own spec, plus the server's defaults")
                    .isEmpty();
        }
    }

    /** The sample of {@code type}: {@code <kind>.json}, or {@code <kind>-<group>-<version>.json} for a kind in two groups. */
    private static ObjectNode sample(ResourceType type) {
        String kind = type.kind().toLowerCase(Locale.ROOT);
        String qualified = kind + "-" + type.group().split("\\.")[0] + "-" + type.version() + ".json";
        for (String file : List.of(qualified, kind + ".json")) {
            ObjectNode sample = read("protobuf/objects/" + file);
            if (sample != null
                    && sample.path("apiVersion").asString().equals(type.gvk().apiVersion())) {
                return sample;
            }
        }
        throw new AssertionError("no sample object for " + type.gvk() + " in src/test/resources/protobuf/objects");
    }

    private static ObjectNode read(String resource) {
        try (InputStream in = ProtobufRoundTripIT.class.getClassLoader().getResourceAsStream(resource)) {
            return in == null ? null : (ObjectNode) ApiClient.JSON.readTree(in);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The sample as a client would create it: without what only the server sets (uid, resourceVersion,
     * creationTimestamp, generation, managedFields, deletion marks) and without ownerReferences (the garbage
     * collector would delete an object whose owner does not exist while the test reads it); a pod without its
     * priority class.
     */
    private static ObjectNode creatable(ObjectNode sample) {
        ObjectNode copy = sample.deepCopy();
        ((ObjectNode) copy.get("metadata"))
                .remove(List.of(
                        "uid",
                        "resourceVersion",
                        "creationTimestamp",
                        "generation",
                        "managedFields",
                        "deletionTimestamp",
                        "deletionGracePeriodSeconds",
                        "ownerReferences"));
        if (copy.path("kind").asString("").equals("Pod") && copy.get("spec") instanceof ObjectNode spec) {
            // a cluster refuses a pod naming a PriorityClass it does not have: the sample's is not served here
            spec.remove(List.of("priorityClassName", "priority", "preemptionPolicy"));
        }
        return copy;
    }

    /** The stored object without what differs between two servers: uid, resourceVersion, times of the write. */
    private static JsonNode serverIndependent(JsonNode stored) {
        ObjectNode copy = (ObjectNode) stored.deepCopy();
        ((ObjectNode) copy.get("metadata"))
                .remove(List.of("uid", "resourceVersion", "creationTimestamp", "managedFields"));
        return copy;
    }

    private static String collection(ResourceType type, String namespace) {
        String base = type.group().isEmpty() ? "/api/v1" : "/apis/" + type.group() + "/" + type.version();
        return base + (type.namespaced() ? "/namespaces/" + (namespace.isEmpty() ? "default" : namespace) : "") + "/"
                + type.plural();
    }
}
