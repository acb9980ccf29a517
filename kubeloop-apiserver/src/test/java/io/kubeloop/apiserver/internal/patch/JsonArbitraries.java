package io.kubeloop.apiserver.internal.patch;

import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** jqwik generators of JSON trees without nulls, with few distinct keys so that documents overlap. */
final class JsonArbitraries {

    private JsonArbitraries() {}

    static Arbitrary<String> keys() {
        return Arbitraries.of("a", "b", "c", "d", "a/b", "m~n", "~1", "");
    }

    static Arbitrary<JsonNode> scalars() {
        return Arbitraries.oneOf(
                Arbitraries.strings().alpha().ofMaxLength(3).map(s -> (JsonNode) JsonValues.NODES.stringNode(s)),
                Arbitraries.integers().between(-3, 3).map(i -> (JsonNode) JsonValues.NODES.numberNode(i)),
                Arbitraries.of(true, false).map(b -> (JsonNode) JsonValues.NODES.booleanNode(b)));
    }

    static Arbitrary<JsonNode> values(int depth) {
        if (depth <= 0) {
            return scalars();
        }
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(3, scalars()),
                net.jqwik.api.Tuple.of(2, objects(depth - 1)),
                net.jqwik.api.Tuple.of(1, values(depth - 1).list().ofMaxSize(3).map(l -> {
                    var a = JsonValues.array();
                    l.forEach(a::add);
                    return (JsonNode) a;
                })));
    }

    static Arbitrary<JsonNode> objects(int depth) {
        return Arbitraries.maps(keys(), values(depth)).ofMaxSize(4).map(JsonArbitraries::toObject);
    }

    private static JsonNode toObject(Map<String, JsonNode> m) {
        ObjectNode o = JsonValues.object();
        m.forEach((k, v) -> o.set(k, v.deepCopy()));
        return o;
    }
}
