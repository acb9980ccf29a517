package io.kubeloop.apiserver.internal.types;

import java.math.BigDecimal;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.IntNode;
import tools.jackson.databind.node.LongNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Checks a JSON object against its kind's {@link GoType} the way Go's {@code encoding/json} (kube-apiserver's
 * decoder, sigs.k8s.io/json) reads it into the kind's struct, in one walk of the tree:
 *
 * <ul>
 *   <li>a value Go cannot store in its field is a {@link Mismatch} carrying Go's own message ({@code json: cannot
 *       unmarshal string into Go struct field ObjectMeta.metadata.annotations of type map[string]string}) — the
 *       first one in document order, as Go reports the earliest;
 *   <li>a number an integer field cannot hold (a fraction, out of int32/int64 range, {@code 1e400}) is one too;
 *       an integral floating-point value ({@code 3.0}, what YAML and merge patches produce) is stored as the
 *       integer Go would store;
 *   <li>fields the struct does not have are removed from the object and their paths returned
 *       ({@code spec.template.spec.containers[0].foo}), as Go drops them and sigs.k8s.io/json reports them.
 * </ul>
 *
 * Invariant: after a walk without a Mismatch, every value in the object decodes into its Go field, so typed
 * clients (kubectl, client-go, kubeloop's own) can read it back. {@code null} is accepted everywhere, as Go does.
 */
public final class TypeCheck {

    private static final Pattern QUANTITY = Pattern.compile("^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$");
    private static final Pattern SUFFIX = Pattern.compile("^(|Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][-+]?[0-9]+)$");
    private static final Pattern DURATION =
            Pattern.compile("^[-+]?(0|((\\d+(\\.\\d*)?|\\.\\d+)(ns|us|µs|μs|ms|s|m|h))+)$");
    static final String QUANTITY_FORMAT =
            "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

    /**
     * A value its Go field cannot hold. {@code goMessage} is what Go's decoder says; {@code path} and
     * {@code expected}/{@code got} say the same the way server-side apply's typed conversion does.
     */
    public static final class Mismatch extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final String path;
        private final String expectation;

        Mismatch(String goMessage, String path, String expectation) {
            super(goMessage, null, false, false);
            this.path = path;
            this.expectation = expectation;
        }

        /** Go's message. */
        public String goMessage() {
            return getMessage();
        }

        /** {@code .spec.replicas: expected numeric (int or float), got string}, as structured-merge-diff says it. */
        public String typedMessage() {
            return "." + path + ": " + expectation;
        }
    }

    /** Segments of the current path: ".name" for a struct field, "[i]" for an element, "[key]" for a map entry. */
    private final List<String> path = new ArrayList<>();
    /** The struct names of the fields in {@link #path}, null for elements and entries (Go's error context). */
    private final List<String> structs = new ArrayList<>();

    private final List<String> unknown = new ArrayList<>();

    private TypeCheck() {}

    /**
     * Checks {@code object} against {@code type} (a kind's top-level struct), removing unknown fields and
     * normalising integral numbers in place; returns the paths of the unknown fields it removed.
     *
     * @throws Mismatch for the first value Go could not decode
     */
    public static List<String> check(GoType type, ObjectNode object) {
        TypeCheck walk = new TypeCheck();
        walk.struct(type, object);
        return walk.unknown;
    }

    /** Returns the value to store instead of {@code value}, or null to keep it. */
    private JsonNode value(GoType type, JsonNode value) {
        if (value.isNull()) {
            return null;
        }
        switch (type.kind()) {
            case STRING -> {
                if (!value.isString()) {
                    throw mismatch(value, type, "expected string, got " + jsonType(value));
                }
            }
            case BOOL -> {
                if (!value.isBoolean()) {
                    throw mismatch(value, type, "expected boolean, got " + jsonType(value));
                }
            }
            case INT32 -> {
                return integer(type, value, Integer.MIN_VALUE, Integer.MAX_VALUE, true);
            }
            case INT64 -> {
                return integer(type, value, Long.MIN_VALUE, Long.MAX_VALUE, true);
            }
            case BYTES -> {
                if (!value.isString()) {
                    throw mismatch(value, type, "expected string, got " + jsonType(value));
                }
                base64(value.asString());
            }
            case QUANTITY -> quantity(value);
            case INT_OR_STRING -> {
                if (!value.isString()) {
                    // Go's IntOrString.UnmarshalJSON decodes a non-string into an int32, without field context
                    return integer(
                            GoType.scalar(GoType.Kind.INT32, "int32"),
                            value,
                            Integer.MIN_VALUE,
                            Integer.MAX_VALUE,
                            false);
                }
            }
            case TIME -> {
                if (!value.isString()) {
                    throw new Mismatch(
                            "json: cannot unmarshal " + jsonType(value) + " into Go value of type string",
                            strictPath(),
                            "expected string, got " + jsonType(value));
                }
                time(value.asString());
            }
            case DURATION -> {
                if (!value.isString()) {
                    throw new Mismatch(
                            "json: cannot unmarshal " + jsonType(value) + " into Go value of type string",
                            strictPath(),
                            "expected string, got " + jsonType(value));
                }
                if (!DURATION.matcher(value.asString()).matches()) {
                    throw new Mismatch(
                            "time: invalid duration \"" + value.asString() + "\"", strictPath(), "invalid duration");
                }
            }
            case ANY -> {}
            case STRUCT -> {
                if (!(value instanceof ObjectNode object)) {
                    throw mismatch(value, type, "expected map, got " + jsonType(value));
                }
                struct(type, object);
            }
            case ARRAY -> {
                if (!(value instanceof ArrayNode array)) {
                    throw mismatch(value, type, "expected list, got " + jsonType(value));
                }
                GoType element = type.element();
                for (int i = 0; i < array.size(); i++) {
                    push("[" + i + "]", null);
                    JsonNode replaced = value(element, array.get(i));
                    if (replaced != null) {
                        array.set(i, replaced);
                    }
                    pop();
                }
            }
            case MAP -> {
                if (!(value instanceof ObjectNode map)) {
                    throw mismatch(value, type, "expected map, got " + jsonType(value));
                }
                GoType element = type.element();
                for (Map.Entry<String, JsonNode> entry : map.properties()) {
                    push("[" + entry.getKey() + "]", null);
                    JsonNode replaced = value(element, entry.getValue());
                    if (replaced != null) {
                        entry.setValue(replaced);
                    }
                    pop();
                }
            }
        }
        return null;
    }

    private void struct(GoType type, ObjectNode object) {
        Iterator<Map.Entry<String, JsonNode>> fields = object.properties().iterator();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> entry = fields.next();
            GoType.Field field = type.field(entry.getKey());
            if (field == null) {
                push("." + entry.getKey(), null);
                unknown.add(strictPath());
                pop();
                fields.remove();
                continue;
            }
            push("." + entry.getKey(), field.struct());
            JsonNode replaced = value(field.type(), entry.getValue());
            if (replaced != null) {
                entry.setValue(replaced);
            }
            pop();
        }
    }

    /**
     * An integer of a Go int field: Go parses the literal with ParseInt, so a fraction or an out-of-range value
     * fails with the literal in the message; an integral floating-point value is stored as an integer.
     */
    private JsonNode integer(GoType type, JsonNode value, long min, long max, boolean withContext) {
        if (!value.isNumber()) {
            throw withContext
                    ? mismatch(value, type, "expected numeric (int or float), got " + jsonType(value))
                    : new Mismatch(
                            "json: cannot unmarshal " + jsonType(value) + " into Go value of type " + type.goName(),
                            strictPath(),
                            "expected numeric (int or float), got " + jsonType(value));
        }
        boolean fits = value.canConvertToExactIntegral()
                && value.canConvertToLong()
                && value.longValue() >= min
                && value.longValue() <= max;
        if (!fits) {
            String literal = "number " + literal(value);
            throw withContext
                    ? mismatch(literal, type, "expected " + type.goName() + ", got " + literal(value))
                    : new Mismatch(
                            "json: cannot unmarshal " + literal + " into Go value of type " + type.goName(),
                            strictPath(),
                            "expected " + type.goName() + ", got " + literal(value));
        }
        if (value.isIntegralNumber()) {
            return null;
        }
        long n = value.longValue();
        return n >= Integer.MIN_VALUE && n <= Integer.MAX_VALUE ? IntNode.valueOf((int) n) : LongNode.valueOf(n);
    }

    /** A number as Go would quote it: integers in full, {@code 1e400} rather than Java's {@code 1E+400}. */
    private static String literal(JsonNode number) {
        if (number.isIntegralNumber()) {
            return number.asString();
        }
        if (number.isBigDecimal()) {
            return number.decimalValue().toString().replace("E+", "e").replace("E", "e");
        }
        double d = number.doubleValue();
        return Double.isFinite(d)
                ? BigDecimal.valueOf(d).toString().replace("E+", "e").replace("E", "e")
                : "1e400";
    }

    private void quantity(JsonNode value) {
        String text;
        if (value.isString()) {
            text = value.asString().strip();
        } else if (value.isNumber()) {
            text = literal(value);
        } else {
            throw new Mismatch(QUANTITY_FORMAT, strictPath(), "expected string, got " + jsonType(value));
        }
        var m = QUANTITY.matcher(text);
        if (text.isEmpty() || !m.matches()) {
            throw new Mismatch(QUANTITY_FORMAT, strictPath(), QUANTITY_FORMAT);
        }
        String number = m.group(1);
        int dot = number.indexOf('.');
        if (number.replace("+", "").replace("-", "").replace(".", "").isEmpty()
                || (dot >= 0 && number.indexOf('.', dot + 1) >= 0)) {
            throw new Mismatch(
                    "unable to parse numeric part of quantity",
                    strictPath(),
                    "unable to parse numeric part of quantity");
        }
        if (!SUFFIX.matcher(m.group(2)).matches()) {
            throw new Mismatch("unable to parse quantity's suffix", strictPath(), "unable to parse quantity's suffix");
        }
    }

    private void time(String text) {
        try {
            OffsetDateTime.parse(text);
        } catch (DateTimeParseException e) {
            throw new Mismatch(
                    "parsing time \"" + text + "\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"" + text
                            + "\" as \"2006\"",
                    strictPath(),
                    "invalid RFC 3339 time");
        }
    }

    private void base64(String text) {
        String data = text.indexOf('\n') >= 0 || text.indexOf('\r') >= 0
                ? text.replace("\n", "").replace("\r", "")
                : text;
        try {
            Base64.getDecoder().decode(data);
        } catch (IllegalArgumentException e) {
            int at = 0;
            while (at < data.length() && isBase64(data.charAt(at))) {
                at++;
            }
            if (at == data.length()) {
                at = Math.max(0, data.length() - data.length() % 4);
            }
            throw new Mismatch("illegal base64 data at input byte " + at, strictPath(), "illegal base64 data");
        }
    }

    private static boolean isBase64(char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
    }

    private Mismatch mismatch(JsonNode value, GoType type, String expectation) {
        return mismatch(jsonType(value), type, expectation);
    }

    /** Go's UnmarshalTypeError: the innermost struct and the field names from the root (no indexes, no keys). */
    private Mismatch mismatch(String what, GoType type, String expectation) {
        String struct = null;
        StringBuilder fields = new StringBuilder();
        for (int i = 0; i < path.size(); i++) {
            if (structs.get(i) != null) {
                struct = structs.get(i);
                if (!fields.isEmpty()) {
                    fields.append('.');
                }
                fields.append(path.get(i), 1, path.get(i).length());
            }
        }
        String message = struct == null
                ? "json: cannot unmarshal " + what + " into Go value of type " + type.goName()
                : "json: cannot unmarshal " + what + " into Go struct field " + struct + "." + fields + " of type "
                        + type.goName();
        return new Mismatch(message, strictPath(), expectation);
    }

    private static String jsonType(JsonNode value) {
        if (value.isObject()) {
            return "object";
        }
        if (value.isArray()) {
            return "array";
        }
        if (value.isString()) {
            return "string";
        }
        if (value.isBoolean()) {
            return "bool";
        }
        if (value.isNumber()) {
            return "number";
        }
        return "null";
    }

    private void push(String segment, String struct) {
        path.add(segment);
        structs.add(struct);
    }

    private void pop() {
        path.removeLast();
        structs.removeLast();
    }

    /** {@code spec.template.spec.containers[0].image}: sigs.k8s.io/json's path of strict errors. */
    private String strictPath() {
        StringBuilder out = new StringBuilder();
        for (String segment : path) {
            out.append(segment);
        }
        return out.length() > 0 && out.charAt(0) == '.' ? out.substring(1) : out.toString();
    }
}
