package io.kubeloop.client.codec;

import io.fabric8.kubernetes.api.model.FieldsV1;
import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.deser.std.StdDeserializer;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code managedFields[].fieldsV1} for {@link Decoding#compact()}: the subtree is read once into its compact JSON
 * text, which is looked up in a table of trees seen before; only a tree not found is built (as nested maps with
 * shared empty leaves) and stored. Pods of one template have the same few trees, so most objects get a shared
 * {@code FieldsV1} without building the hundreds of map nodes the generic path allocates for each — which is what
 * dominated decoding a pod with managedFields.
 *
 * <p>The text is exact JSON (names and strings escaped), so equal text means an equal tree, including order.
 */
final class CompactFieldsV1 extends StdDeserializer<FieldsV1> {

    private static final JsonMapper PLAIN = JsonMapper.builder().build();
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

    /** A small cache from text to tree: a hit costs no tree building at all. */
    private final InternTable<Tree> trees;
    /**
     * The shared table of equal values: a tree missed above is built, then shared with an equal one built
     * before (without pinning its text), so a larger set of distinct trees than {@code trees} holds is still
     * stored once each.
     */
    private final InternTable<Object> values;
    private final ThreadLocal<StringBuilder> buffers = ThreadLocal.withInitial(() -> new StringBuilder(4096));

    CompactFieldsV1(InternTable<Tree> trees, InternTable<Object> values) {
        super(FieldsV1.class);
        this.trees = trees;
        this.values = values;
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

    @SuppressWarnings("unchecked")
    private Tree build(Tree probe) {
        Map<String, Object> map = PLAIN.readValue(probe.json(), LinkedHashMap.class);
        FieldsV1 fields = new FieldsV1();
        fields.setAdditionalProperties(map.isEmpty() ? EMPTY : new LinkedHashMap<>(shareEmpty(map)));
        return new Tree(probe.json(), (FieldsV1) values.intern(fields));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> shareEmpty(Map<String, Object> map) {
        for (Map.Entry<String, Object> e : map.entrySet()) {
            if (e.getValue() instanceof Map<?, ?> m) {
                e.setValue(m.isEmpty() ? EMPTY : shareEmpty((Map<String, Object>) m));
            }
        }
        if (map.size() == 1) {
            // one entry has no order to keep: an immutable one-entry map is a fraction of a LinkedHashMap
            Map.Entry<String, Object> only = map.entrySet().iterator().next();
            if (only.getValue() != null) {
                return Map.of(only.getKey(), only.getValue());
            }
        }
        return map;
    }
}
