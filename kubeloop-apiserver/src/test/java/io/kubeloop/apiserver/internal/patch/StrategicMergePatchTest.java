package io.kubeloop.apiserver.internal.patch;

import static io.kubeloop.apiserver.internal.patch.Trees.assertTree;
import static io.kubeloop.apiserver.internal.patch.Trees.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;

/** Strategic merge patch over upstream's {@code MergeItem} test struct, with upstream's case tables. */
class StrategicMergePatchTest {

    /** k8s.io/apimachinery's {@code RetainKeysMergeItem}. */
    static final SchemaType RETAIN_KEYS_MERGE_ITEM = SchemaType.struct("RetainKeysMergeItem");

    /** k8s.io/apimachinery's {@code MergeItem}, tag for tag. */
    static final SchemaType MERGE_ITEM = SchemaType.struct("MergeItem");

    static {
        MERGE_ITEM
                .mergeList("mergingList", "name", MERGE_ITEM)
                .atomicList("nonMergingList", MERGE_ITEM)
                .set("mergingIntList", true)
                .atomicList("nonMergingIntList", SchemaType.DEDUCED)
                .object("mergeItemPtr", MERGE_ITEM)
                .stringMap("simpleMap")
                .with("replacingItem", FieldMeta.plain(SchemaType.DEDUCED).withSmpReplace())
                .with("retainKeysMap", FieldMeta.plain(RETAIN_KEYS_MERGE_ITEM).withRetainKeys())
                .mergeList("retainKeysMergingList", "name", MERGE_ITEM)
                .modify("retainKeysMergingList", FieldMeta::withRetainKeys);
        RETAIN_KEYS_MERGE_ITEM
                .stringMap("simpleMap")
                .set("mergingIntList", true)
                .mergeList("mergingList", "name", MERGE_ITEM)
                .atomicList("nonMergingList", MERGE_ITEM);
    }

    static final PatchSchema SCHEMA = PatchSchema.of("MergeItem", MERGE_ITEM);

    static Stream<Arguments> upstreamCases() {
        List<Arguments> cases = new ArrayList<>();
        for (JsonNode c : Trees.resource("strategic-merge-patch-cases.json").values()) {
            cases.add(Arguments.of(c.get("d").stringValue(), c));
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("upstreamCases")
    void upstreamCase(String description, JsonNode c) {
        JsonNode original = c.get("o");
        JsonNode patch = c.get("p");
        String before = original.toString() + patch.toString();
        if (c.has("e")) {
            assertThatThrownBy(() -> StrategicMergePatch.apply(original, patch, SCHEMA))
                    .isInstanceOfSatisfying(PatchException.class, e -> {
                        assertThat(e.getMessage()).contains(c.get("e").stringValue());
                        assertThat(e.code()).isEqualTo(c.get("code").intValue());
                    });
        } else {
            assertTree(StrategicMergePatch.apply(original, patch, SCHEMA), c.get("r"));
        }
        assertThat(original.toString() + patch.toString())
                .as("inputs unchanged")
                .isEqualTo(before);
    }

    @Test
    void newItemsWithoutSetElementOrderGoFirst() {
        // Upstream: items only the patch names are not on the server, so they are not "less" than any
        // server-only item and the interleaving puts them first (what `kubectl patch` users see).
        assertTree(
                StrategicMergePatch.apply(
                        json("{mergingList:[{name:'a'},{name:'b'}]}"), json("{mergingList:[{name:'c'}]}"), SCHEMA),
                "{mergingList:[{name:'c'},{name:'a'},{name:'b'}]}");
        assertTree(
                StrategicMergePatch.apply(
                        json("{mergingList:[{name:'a'},{name:'b'}]}"),
                        json(
                                "{'$setElementOrder/mergingList':[{name:'a'},{name:'b'},{name:'c'}],mergingList:[{name:'c'}]}"),
                        SCHEMA),
                "{mergingList:[{name:'a'},{name:'b'},{name:'c'}]}");
    }

    @Test
    void untouchedItemsKeepTheirPlace() {
        assertTree(
                StrategicMergePatch.apply(
                        json("{mergingList:[{name:'a'},{name:'b',value:1},{name:'c'}]}"),
                        json("{mergingList:[{name:'b',value:2}]}"),
                        SCHEMA),
                "{mergingList:[{name:'a'},{name:'b',value:2},{name:'c'}]}");
    }

    @Test
    void nonObjectPatchIsABadRequest() {
        assertThatThrownBy(() -> StrategicMergePatch.apply(json("{}"), json("[1]"), SCHEMA))
                .isInstanceOfSatisfying(PatchException.class, e -> {
                    assertThat(e.code()).isEqualTo(400);
                    assertThat(e.getMessage())
                            .isEqualTo("json: cannot unmarshal array into Go value of type map[string]interface {}");
                });
    }

    @Test
    void kindsWithoutSchemaAreUnsupportedMediaType() {
        assertThatThrownBy(() -> StrategicMergePatch.apply(json("{spec:{}}"), json("{spec:{a:1}}"), PatchSchema.none()))
                .isInstanceOfSatisfying(PatchException.class, e -> {
                    assertThat(e.code()).isEqualTo(415);
                    assertThat(e.reason()).isEqualTo("UnsupportedMediaType");
                    assertThat(e.getMessage())
                            .startsWith(
                                    "the body of the request was in an unknown format - accepted media types include: ");
                });
        assertThat(PatchSchema.forKind("example.com", "v1", "Widget").supportsStrategicMergePatch())
                .isFalse();
    }
}
