package io.kubeloop.client.codec;

import io.fabric8.kubernetes.api.model.FieldsV1;
import java.util.Collections;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.deser.std.StdDeserializer;

/**
 * {@code managedFields[].fieldsV1} for {@link Decoding#compact()}: the subtree is read once into its compact JSON
 * text and looked up in a table of trees seen before ({@link TextParts}); a tree not found becomes a FieldsV1 that
 * keeps just that text ({@link JsonTextMap}). No map node is built for any tree — building them dominated decoding
 * a pod with managedFields, and kept several KB per pod for the status manager's tree, which names each pod's IP and
 * so is unique to the pod. Trees that repeat (a Deployment's spec manager; a pod's own tree from one update to the
 * next) are shared.
 */
final class CompactFieldsV1 extends StdDeserializer<FieldsV1> {

    private static final Map<String, Object> EMPTY = Collections.emptyMap();

    /** From text to the shared FieldsV1 of that text. */
    private final TextParts trees;

    CompactFieldsV1(TextParts trees) {
        super(FieldsV1.class);
        this.trees = trees;
    }

    @Override
    public FieldsV1 deserialize(JsonParser p, DeserializationContext ctxt) throws JacksonException {
        if (p.currentToken() != JsonToken.START_OBJECT) {
            return (FieldsV1) ctxt.handleUnexpectedToken(FieldsV1.class, p);
        }
        return (FieldsV1) trees.share(FieldsV1.class, p, null, (json, unused) -> build(json));
    }

    /**
     * A tree not in the table: its FieldsV1 keeps the text itself, nothing is parsed; {} is the shared empty map.
     * The FieldsV1 is frozen ({@link FrozenParts}): it is shared by every object whose tree is written alike.
     */
    private static Object build(byte[] json) {
        FieldsV1 fields = new FieldsV1();
        fields.setAdditionalProperties(JsonText.isEmptyObject(json) ? EMPTY : new JsonTextMap(json));
        try {
            return FrozenParts.freeze(fields);
        } catch (FrozenParts.NotFreezable e) {
            return new TextParts.Unshared(fields);
        }
    }
}
