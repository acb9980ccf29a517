package io.kubeloop.apiserver.internal.patch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

class JsonPatchProperties {

    @Provide
    Arbitrary<JsonNode> documents() {
        return JsonArbitraries.objects(3);
    }

    @Provide
    Arbitrary<JsonNode> values() {
        return JsonArbitraries.values(2);
    }

    @Provide
    Arbitrary<String> keys() {
        return JsonArbitraries.keys();
    }

    /** Every object in the document, as JSON pointers. */
    private static List<String> objectPointers(JsonNode node, String pointer, List<String> out) {
        if (node.isObject()) {
            out.add(pointer);
            node.properties().forEach(e -> objectPointers(e.getValue(), pointer + "/" + escape(e.getKey()), out));
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                objectPointers(node.get(i), pointer + "/" + i, out);
            }
        }
        return out;
    }

    private static String escape(String key) {
        return key.replace("~", "~0").replace("/", "~1");
    }

    private static JsonNode op(String op, String path, JsonNode value) {
        ObjectNode o = JsonValues.object().put("op", op).put("path", path);
        if (value != null) {
            o.set("value", value);
        }
        return o;
    }

    /** {@code test} of what {@code add} just wrote succeeds, at any object in the document, for any key. */
    @Property(tries = 300)
    void testAfterAddSucceeds(
            @ForAll("documents") JsonNode doc,
            @ForAll("keys") String key,
            @ForAll("values") JsonNode value,
            @ForAll int pick) {
        List<String> parents = objectPointers(doc, "", new ArrayList<>());
        String parent = parents.get(Math.floorMod(pick, parents.size()));
        String path = parent + "/" + escape(key);
        ArrayNode patch = JsonValues.array().add(op("add", path, value)).add(op("test", path, value));
        JsonNode result = JsonPatch.apply(doc, patch);
        assertThat(JsonValues.jsonEquals(JsonPatch.find(result, Pointer.parse(path)), value))
                .isTrue();
    }

    /** Appending with {@code -} then testing the last index succeeds, and removing it restores the document. */
    @Property(tries = 300)
    void appendTestRemoveRoundTrip(
            @ForAll("documents") JsonNode doc, @ForAll("keys") String key, @ForAll("values") JsonNode value) {
        String list = "/" + escape(key);
        ObjectNode base = (ObjectNode) doc.deepCopy();
        ArrayNode existing = JsonValues.array().add(1).add("x");
        base.set(key, existing);
        ArrayNode patch = JsonValues.array()
                .add(op("add", list + "/-", value))
                .add(op("test", list + "/2", value))
                .add(op("remove", list + "/2", null));
        assertThat(JsonValues.canonical(JsonPatch.apply(base, patch))).isEqualTo(JsonValues.canonical(base));
    }
}
