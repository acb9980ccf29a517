package io.kubeloop.client.codec;

import io.fabric8.kubernetes.api.model.FieldsV1;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.deser.std.StdDeserializer;

/**
 * {@code managedFields[].fieldsV1} for {@link Decoding#compact()}: the subtree is read once into its compact JSON
 * text, which is looked up in a table of trees seen before; a tree not found becomes a FieldsV1 that keeps just
 * that text ({@link JsonTextMap}). No map node is built for any tree — building them dominated decoding a pod with
 * managedFields, and kept several KB per pod for the status manager's tree, which names each pod's IP and so is
 * unique to the pod. Trees that repeat (a Deployment's spec manager) are shared.
 *
 * <p>The text is exact JSON (names and strings escaped), so equal text means an equal tree, including order.
 */
final class CompactFieldsV1 extends StdDeserializer<FieldsV1> {

    private static final Map<String, Object> EMPTY = java.util.Collections.emptyMap();

    /** The JSON text of a tree and its shared FieldsV1 (null in a lookup probe); equality by text only. */
    record Tree(String json, FieldsV1 value) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Tree t && t.json.equals(json);
        }

        @Override
        public int hashCode() {
            return json.hashCode();
        }
    }

    /** From text to the shared FieldsV1 of that text. */
    private final InternTable<Tree> trees;
    private final ThreadLocal<StringBuilder> buffers = ThreadLocal.withInitial(() -> new StringBuilder(4096));

    CompactFieldsV1(InternTable<Tree> trees) {
        super(FieldsV1.class);
        this.trees = trees;
    }

    @Override
    public FieldsV1 deserialize(JsonParser p, DeserializationContext ctxt) throws JacksonException {
        if (p.currentToken() != JsonToken.START_OBJECT) {
            return (FieldsV1) ctxt.handleUnexpectedToken(FieldsV1.class, p);
        }
        StringBuilder json = buffers.get();
        json.setLength(0);
        copy(p, json);
        return trees.intern(new Tree(json.toString(), null), this::build).value();
    }

    /** Appends the value at the current token (and its children) as compact JSON; leaves p on its last token. */
    private static void copy(JsonParser p, StringBuilder out) {
        JsonToken t = p.currentToken();
        switch (t) {
            case START_OBJECT -> {
                out.append('{');
                boolean first = true;
                for (String name = p.nextName(); name != null; name = p.nextName()) {
                    if (!first) {
                        out.append(',');
                    }
                    first = false;
                    quote(name, out);
                    out.append(':');
                    p.nextToken();
                    copy(p, out);
                }
                out.append('}');
            }
            case START_ARRAY -> {
                out.append('[');
                boolean first = true;
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    if (!first) {
                        out.append(',');
                    }
                    first = false;
                    copy(p, out);
                }
                out.append(']');
            }
            case VALUE_STRING -> quote(p.getString(), out);
            default -> out.append(p.getString()); // numbers, true, false, null: their text is their JSON
        }
    }

    private static void quote(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        out.append('"');
    }

    /**
     * A tree not in the text cache: its FieldsV1 keeps the text itself ({@link JsonTextMap}), nothing is parsed.
     * An empty tree is the shared empty map.
     */
    private Tree build(Tree probe) {
        FieldsV1 fields = new FieldsV1();
        fields.setAdditionalProperties(probe.json().equals("{}") ? EMPTY : new JsonTextMap(probe.json()));
        return new Tree(probe.json(), fields);
    }
}
