package io.kubeloop.apiserver.internal.patch;

import static io.kubeloop.apiserver.internal.patch.Trees.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

class PatchLimitsTest {

    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    private static long serialized(JsonNode n) {
        return MAPPER.writeValueAsBytes(n).length;
    }

    @Provide
    Arbitrary<JsonNode> documents() {
        Arbitrary<JsonNode> strings =
                Arbitraries.strings().all().ofMaxLength(8).map(s -> (JsonNode) JsonValues.NODES.stringNode(s));
        Arbitrary<JsonNode> doubles = Arbitraries.doubles().map(d -> (JsonNode) JsonValues.NODES.numberNode(d));
        return Arbitraries.oneOf(JsonArbitraries.objects(3), strings, doubles);
    }

    /** The measure is the byte length of what the server writes, so the limits mean what the docs say. */
    @Property(tries = 300)
    void lengthIsTheCompactJsonLength(@ForAll("documents") JsonNode doc) {
        assertThat(PatchLimits.compactJsonLength(doc, Long.MAX_VALUE, Integer.MAX_VALUE))
                .isEqualTo(serialized(doc));
    }

    @Test
    void lengthOfEscapesNullsAndUnicode() {
        ObjectNode o = JsonValues.object();
        o.put("q\"\\\n\u0001", "é€😀");
        o.putNull("n");
        o.putArray("a").add(1.5).add(true).add(-7).add("\ud800").add("x\udc00y");
        assertThat(PatchLimits.compactJsonLength(o, Long.MAX_VALUE, Integer.MAX_VALUE))
                .isEqualTo(serialized(o));
    }

    @Test
    void resultsOverTheRequestLimitAreTooLarge() {
        ObjectNode o = JsonValues.object();
        o.put("data", "x".repeat(PatchLimits.MAX_OBJECT_BYTES));
        assertThatThrownBy(() -> PatchLimits.checkResult(o)).isInstanceOfSatisfying(PatchException.class, e -> {
            assertThat(e.code()).isEqualTo(413);
            assertThat(e.reason()).isEqualTo("RequestEntityTooLarge");
            assertThat(e.getMessage()).isEqualTo("Request entity too large: limit is 3145728");
        });
        o.put("data", "x".repeat(PatchLimits.MAX_OBJECT_BYTES - 11)); // {"data":"…"} is 11 bytes more
        assertThat(serialized(o)).isEqualTo(PatchLimits.MAX_OBJECT_BYTES);
        PatchLimits.checkResult(o);
    }

    @Test
    void resultsNestedDeeperThanAReaderAcceptsAreInvalid() {
        ArrayNode root = JsonValues.array();
        ArrayNode a = root;
        for (int i = 1; i < PatchLimits.MAX_DEPTH; i++) {
            a = a.addArray();
        }
        PatchLimits.checkResult(root); // exactly the limit: readable back
        assertThat(MAPPER.readTree(MAPPER.writeValueAsString(root))).isEqualTo(root);
        a.addArray();
        assertThatThrownBy(() -> PatchLimits.checkResult(root)).isInstanceOfSatisfying(PatchException.class, e -> {
            assertThat(e.code()).isEqualTo(422);
            assertThat(e.detail()).isEqualTo("the patched object nests deeper than 500 levels");
        });
    }

    @Test
    void measuringStopsEarly() {
        JsonNode big = json("{a:'" + "x".repeat(100) + "',b:'" + "y".repeat(100) + "'}");
        assertThat(PatchLimits.compactJsonLength(big, 10, 100))
                .isGreaterThan(10)
                .isLessThan(serialized(big));
    }
}
