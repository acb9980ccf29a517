package io.kubeloop.apiserver.internal.patch;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * One step of a server-side apply field path, as structured-merge-diff names it and FieldsV1 writes it:
 * {@code f:<field>}, {@code k:<json object of list map keys>} (a list item by its keys),
 * {@code v:<json value>} (a set item) or {@code i:<index>}.
 *
 * @param kind 0 field, 1 key, 2 value, 3 index (also the sort order of kinds)
 * @param text the FieldsV1 spelling, which is also the identity
 * @param value the field name (as a string node), the key object (members sorted by name), the set value, or
 *     the index
 */
record FieldPath(int kind, String text, JsonNode value) implements Comparable<FieldPath> {

    static FieldPath field(String name) {
        return new FieldPath(0, "f:" + name, JsonValues.NODES.stringNode(name));
    }

    /** A list item named by its key fields; {@code keys} is re-ordered by field name. */
    static FieldPath key(ObjectNode keys) {
        List<String> names = new ArrayList<>(keys.propertyNames());
        names.sort(null);
        ObjectNode sorted = JsonValues.object();
        for (String n : names) {
            sorted.set(n, keys.get(n));
        }
        return new FieldPath(1, "k:" + sorted, sorted);
    }

    static FieldPath setValue(JsonNode value) {
        return new FieldPath(2, "v:" + value, value);
    }

    static FieldPath index(int i) {
        return new FieldPath(3, "i:" + i, JsonValues.NODES.numberNode(i));
    }

    /** Parses a FieldsV1 key other than {@code "."}; {@code null} if it is not one. */
    static FieldPath parse(String text, tools.jackson.databind.ObjectMapper mapper) {
        if (text.length() < 2 || text.charAt(1) != ':') {
            return null;
        }
        String rest = text.substring(2);
        try {
            return switch (text.charAt(0)) {
                case 'f' -> field(rest);
                case 'k' -> {
                    JsonNode k = mapper.readTree(rest);
                    yield k.isObject() ? key((ObjectNode) k) : null;
                }
                case 'v' -> setValue(mapper.readTree(rest));
                case 'i' -> index(Integer.parseInt(rest));
                default -> null;
            };
        } catch (RuntimeException e) {
            return null;
        }
    }

    boolean isField() {
        return kind == 0;
    }

    String fieldName() {
        return value.stringValue();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FieldPath p && p.text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    /** structured-merge-diff's {@code PathElement.Compare}: fields, then keys, then values, then indexes. */
    @Override
    public int compareTo(FieldPath o) {
        if (kind != o.kind) {
            return Integer.compare(kind, o.kind);
        }
        return switch (kind) {
            case 0 -> fieldName().compareTo(o.fieldName());
            case 1 -> compareKeys(value, o.value);
            case 2 -> VALUE_ORDER.compare(value, o.value);
            default -> Integer.compare(value.intValue(), o.value.intValue());
        };
    }

    private static int compareKeys(JsonNode a, JsonNode b) {
        List<Map.Entry<String, JsonNode>> la = new ArrayList<>(a.properties());
        List<Map.Entry<String, JsonNode>> lb = new ArrayList<>(b.properties());
        for (int i = 0; ; i++) {
            if (i >= la.size() || i >= lb.size()) {
                return Integer.compare(la.size(), lb.size());
            }
            int c = la.get(i).getKey().compareTo(lb.get(i).getKey());
            if (c == 0) {
                c = VALUE_ORDER.compare(la.get(i).getValue(), lb.get(i).getValue());
            }
            if (c != 0) {
                return c;
            }
        }
    }

    /** structured-merge-diff's total order of values: numbers, strings, booleans, lists, maps, null. */
    static final Comparator<JsonNode> VALUE_ORDER = (a, b) -> {
        int ra = rank(a);
        int rb = rank(b);
        if (ra != rb) {
            return Integer.compare(ra, rb);
        }
        return switch (ra) {
            case 0 -> a.decimalValue().compareTo(b.decimalValue());
            case 1 -> a.stringValue().compareTo(b.stringValue());
            case 2 -> Boolean.compare(a.booleanValue(), b.booleanValue());
            default -> JsonValues.canonical(a).compareTo(JsonValues.canonical(b));
        };
    };

    private static int rank(JsonNode n) {
        if (n.isNumber()) {
            return 0;
        }
        if (n.isString()) {
            return 1;
        }
        if (n.isBoolean()) {
            return 2;
        }
        if (n.isArray()) {
            return 3;
        }
        if (n.isObject()) {
            return 4;
        }
        return 5;
    }

    @Override
    public String toString() {
        return text;
    }
}
