package io.kubeloop.client.codec;

import io.fabric8.kubernetes.api.model.FieldsV1;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.deser.std.StdDeserializer;

/**
 * {@code managedFields[].fieldsV1} for {@link Decoding#compact()}: the subtree is read once into its compact JSON
 * text ({@link JsonText}), which is looked up in a table of trees seen before; a tree not found becomes a
 * FieldsV1 that keeps just that text ({@link JsonTextMap}). No map node is built for any tree — building them dominated decoding a pod with
 * managedFields, and kept several KB per pod for the status manager's tree, which names each pod's IP and so is
 * unique to the pod. Trees that repeat (a Deployment's spec manager) are shared.
 *
 * <p>Equal text means an equal tree, including order ({@link JsonText}'s invariant).
 */
final class CompactFieldsV1 extends StdDeserializer<FieldsV1> {

    private static final Map<String, Object> EMPTY = java.util.Collections.emptyMap();

    /** The JSON text of a tree and its shared FieldsV1 (null in a lookup probe); equality by text only. */
    record Tree(byte[] json, FieldsV1 value) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Tree t && Arrays.equals(t.json, json);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(json);
        }

        @Override
        public String toString() {
            return "Tree[" + new String(json, StandardCharsets.UTF_8) + "]";
        }
    }

    /** From text to the shared FieldsV1 of that text. */
    private final InternTable<Tree> trees;

    CompactFieldsV1(InternTable<Tree> trees) {
        super(FieldsV1.class);
        this.trees = trees;
    }

    @Override
    public FieldsV1 deserialize(JsonParser p, DeserializationContext ctxt) throws JacksonException {
        if (p.currentToken() != JsonToken.START_OBJECT) {
            return (FieldsV1) ctxt.handleUnexpectedToken(FieldsV1.class, p);
        }
        return trees.intern(new Tree(JsonText.copy(p), null), this::build).value();
    }

    /**
     * A tree not in the text cache: its FieldsV1 keeps the text itself ({@link JsonTextMap}), nothing is parsed.
     * An empty tree is the shared empty map.
     */
    private Tree build(Tree probe) {
        FieldsV1 fields = new FieldsV1();
        fields.setAdditionalProperties(JsonText.isEmptyObject(probe.json()) ? EMPTY : new JsonTextMap(probe.json()));
        return new Tree(probe.json(), fields);
    }
}
