package io.kubeloop.apiserver.internal.patch;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Small helpers over Jackson trees shared by the patch engines: construction, the two notions of value
 * equality the engines need, and Go-style rendering of values for error messages that match
 * kube-apiserver's.
 */
final class JsonValues {

    static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private JsonValues() {}

    static ObjectNode object() {
        return NODES.objectNode();
    }

    static ArrayNode array() {
        return NODES.arrayNode();
    }

    static boolean isNull(JsonNode node) {
        return node == null || node.isNull() || node.isMissingNode();
    }

    /**
     * Equality as Go's {@code ==} on decoded JSON values, which is what strategic merge patch uses for merge
     * keys and primitive list items: integers and floats are different types (kube-apiserver decodes
     * integers as int64), so {@code 1} and {@code 1.0} differ; containers compare deeply.
     */
    static boolean sameValue(JsonNode a, JsonNode b) {
        return scalarKey(a).equals(scalarKey(b));
    }

    /** A hashable key with the equality of {@link #sameValue}. */
    static Object scalarKey(JsonNode n) {
        if (isNull(n)) {
            return "n:";
        }
        if (n.isString()) {
            return "s:" + n.stringValue();
        }
        if (n.isIntegralNumber()) {
            return "i:" + n.bigIntegerValue();
        }
        if (n.isNumber()) {
            return "f:" + n.doubleValue();
        }
        if (n.isBoolean()) {
            return "b:" + n.booleanValue();
        }
        return "j:" + canonical(n);
    }

    /**
     * JSON equality as RFC 6902 {@code test} defines it: numbers are equal when numerically equal, objects
     * regardless of member order, arrays element by element.
     */
    static boolean jsonEquals(JsonNode a, JsonNode b) {
        if (isNull(a) || isNull(b)) {
            return isNull(a) && isNull(b);
        }
        if (a.isNumber() && b.isNumber()) {
            return decimal(a).compareTo(decimal(b)) == 0;
        }
        if (a.isObject() && b.isObject()) {
            if (a.size() != b.size()) {
                return false;
            }
            for (Map.Entry<String, JsonNode> e : a.properties()) {
                JsonNode other = b.get(e.getKey());
                if (other == null || !jsonEquals(e.getValue(), other)) {
                    return false;
                }
            }
            return true;
        }
        if (a.isArray() && b.isArray()) {
            if (a.size() != b.size()) {
                return false;
            }
            for (int i = 0; i < a.size(); i++) {
                if (!jsonEquals(a.get(i), b.get(i))) {
                    return false;
                }
            }
            return true;
        }
        if (a.isString() && b.isString()) {
            return a.stringValue().equals(b.stringValue());
        }
        if (a.isBoolean() && b.isBoolean()) {
            return a.booleanValue() == b.booleanValue();
        }
        return false;
    }

    private static BigDecimal decimal(JsonNode n) {
        try {
            return n.decimalValue();
        } catch (RuntimeException e) {
            return BigDecimal.valueOf(n.doubleValue());
        }
    }

    /** Go's {@code reflect.TypeOf} equality on decoded JSON: map, slice, string, int64, float64, bool, nil. */
    static boolean sameGoType(JsonNode a, JsonNode b) {
        return goType(a) == goType(b);
    }

    private static char goType(JsonNode n) {
        if (isNull(n)) {
            return 'n';
        }
        if (n.isObject()) {
            return 'm';
        }
        if (n.isArray()) {
            return 'a';
        }
        if (n.isString()) {
            return 's';
        }
        if (n.isIntegralNumber()) {
            return 'i';
        }
        if (n.isNumber()) {
            return 'f';
        }
        return 'b';
    }

    /** A compact rendering with object members sorted, used as a canonical key. */
    static String canonical(JsonNode n) {
        StringBuilder sb = new StringBuilder();
        canonical(n, sb);
        return sb.toString();
    }

    private static void canonical(JsonNode n, StringBuilder sb) {
        if (n.isObject()) {
            List<String> names = new ArrayList<>(n.propertyNames());
            names.sort(null);
            sb.append('{');
            for (int i = 0; i < names.size(); i++) {
                if (i > 0) {
                    sb.append(',');
                }
                sb.append(NODES.stringNode(names.get(i)).toString()).append(':');
                canonical(n.get(names.get(i)), sb);
            }
            sb.append('}');
        } else if (n.isArray()) {
            sb.append('[');
            for (int i = 0; i < n.size(); i++) {
                if (i > 0) {
                    sb.append(',');
                }
                canonical(n.get(i), sb);
            }
            sb.append(']');
        } else {
            sb.append(n.toString());
        }
    }

    /** Renders a value as Go's {@code fmt.Sprintf("%v")} does for decoded JSON, for upstream-like messages. */
    static String go(JsonNode n) {
        if (isNull(n)) {
            return "<nil>";
        }
        if (n.isString()) {
            return n.stringValue();
        }
        if (n.isObject()) {
            List<String> names = new ArrayList<>(n.propertyNames());
            names.sort(null);
            StringBuilder sb = new StringBuilder("map[");
            for (int i = 0; i < names.size(); i++) {
                if (i > 0) {
                    sb.append(' ');
                }
                sb.append(names.get(i)).append(':').append(go(n.get(names.get(i))));
            }
            return sb.append(']').toString();
        }
        if (n.isArray()) {
            StringBuilder sb = new StringBuilder("[");
            Iterator<JsonNode> it = n.values().iterator();
            while (it.hasNext()) {
                sb.append(go(it.next()));
                if (it.hasNext()) {
                    sb.append(' ');
                }
            }
            return sb.append(']').toString();
        }
        return n.toString();
    }

    /** Go's type name of a decoded JSON value, for "expected a X, but received a Y" messages. */
    static String goTypeName(JsonNode n) {
        return switch (goType(n)) {
            case 'n' -> "<nil>";
            case 'm' -> "map[string]interface {}";
            case 'a' -> "[]interface {}";
            case 's' -> "string";
            case 'i' -> "int64";
            case 'f' -> "float64";
            default -> "bool";
        };
    }
}
