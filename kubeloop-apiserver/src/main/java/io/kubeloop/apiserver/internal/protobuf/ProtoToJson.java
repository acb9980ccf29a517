package io.kubeloop.apiserver.internal.protobuf;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import io.kubeloop.model.Timestamps;
import java.time.DateTimeException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.function.Consumer;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Decodes one protobuf message to the JSON Go's encoding/json would write for the same Go value, walking the
 * message's descriptor: field names are the JSON names, maps become objects, repeated fields arrays, bytes base64
 * strings; {@link SpecialMessage special messages} take their Go JSON form, {@link EmbeddedStructs embedded
 * structs} are merged into their parent, and a singular scalar that is zero is dropped unless
 * {@link ExplicitZeros} says Go's JSON keeps it. Unknown fields are skipped, as Go does.
 *
 * <p>One instance decodes one body (it tracks the path of the field being read, for error messages). Nesting is
 * bounded by {@link #MAX_DEPTH}; every read is bounds-checked by {@link WireReader}.
 */
final class ProtoToJson {

    static final int MAX_DEPTH = 100;

    private static final byte[] MAGIC = {'k', '8', 's', 0};
    private static final String WATCH_EVENT_OBJECT = "k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent.object";

    private final DescriptorCodec codec;
    private final JsonMapper json;
    private final JsonNodeFactory nodes;
    /** The path of the field being read; left as it was when an error is thrown, to name where it happened. */
    private final List<String> path = new ArrayList<>();

    private int depth;

    /** Told the path of every field the schema does not know (it is skipped). */
    private final Consumer<String> dropped;

    ProtoToJson(DescriptorCodec codec, JsonMapper json, Consumer<String> dropped) {
        this.codec = codec;
        this.dropped = dropped;
        this.json = json;
        this.nodes = json.getNodeFactory();
    }

    /** Where the last error happened: a dotted JSON path such as {@code spec.template.spec.containers[0].image}. */
    String path() {
        return path.isEmpty() ? "the object" : String.join(".", path).replace(".[", "[");
    }

    /** Decodes {@code type}'s fields from {@code in} into {@code out}, merging into what is there. */
    void message(Descriptor type, WireReader in, ObjectNode out) {
        if (++depth > MAX_DEPTH) {
            throw new ProtobufException("messages are nested deeper than " + MAX_DEPTH + " levels");
        }
        while (in.next()) {
            FieldDescriptor field = type.findFieldByNumber(in.fieldNumber());
            if (field == null) {
                dropped.accept((path.isEmpty() ? "" : path() + ".") + "<field " + in.fieldNumber() + ">");
                in.skip();
                continue;
            }
            path.add(field.getName());
            String name = GoJsonNames.of(field);
            if (field.isMapField()) {
                ObjectNode map = out.get(name) instanceof ObjectNode existing ? existing : out.putObject(name);
                mapEntry(field, in.readMessage(), map);
            } else if (field.isRepeated()) {
                ArrayNode array = out.get(name) instanceof ArrayNode existing ? existing : out.putArray(name);
                repeated(field, in, array);
            } else if (field.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
                singularMessage(field, in, out);
            } else {
                JsonNode value = scalar(field, in);
                if (isZero(value) && !ExplicitZeros.keepsZero(field)) {
                    out.remove(name); // the last occurrence wins, as in Go
                } else {
                    out.set(name, value);
                }
            }
            path.removeLast();
        }
        depth--;
    }

    private void singularMessage(FieldDescriptor field, WireReader in, ObjectNode out) {
        Descriptor type = field.getMessageType();
        if (EmbeddedStructs.isInline(field)) {
            message(type, in.readMessage(), out);
            return;
        }
        SpecialMessage special = SpecialMessage.of(type);
        if (special == null) {
            ObjectNode target =
                    out.get(field.getName()) instanceof ObjectNode existing ? existing : out.putObject(field.getName());
            message(type, in.readMessage(), target); // a repeated occurrence merges, as in Go
            return;
        }
        JsonNode value = special(special, field, in.readMessage());
        if (value == null) {
            out.remove(field.getName());
        } else {
            out.set(field.getName(), value);
        }
    }

    private void repeated(FieldDescriptor field, WireReader in, ArrayNode array) {
        if (field.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
            path.add("[" + array.size() + "]");
            array.add(element(field, in.readMessage()));
            path.removeLast();
        } else if (in.wireType() == WireReader.LENGTH_DELIMITED && isVarint(field)) {
            WireReader packed = in.readMessage(); // Go writes repeated numbers unpacked but reads both forms
            while (packed.hasRemaining()) {
                array.add(varint(field, packed.readPackedVarint()));
            }
        } else {
            array.add(scalar(field, in));
        }
    }

    /** An array element or a map value: always written by Go, so never dropped (a zero time is null). */
    private JsonNode element(FieldDescriptor field, WireReader message) {
        Descriptor type = field.getMessageType();
        SpecialMessage special = SpecialMessage.of(type);
        if (special == null) {
            ObjectNode out = nodes.objectNode();
            message(type, message, out);
            return out;
        }
        JsonNode value = special(special, field, message);
        return value == null ? nodes.nullNode() : value;
    }

    private void mapEntry(FieldDescriptor field, WireReader entry, ObjectNode map) {
        FieldDescriptor valueField = field.getMessageType().findFieldByNumber(2);
        String key = "";
        JsonNode value = null;
        while (entry.next()) {
            switch (entry.fieldNumber()) {
                case 1 -> key = entry.readString();
                case 2 ->
                    value = valueField.getJavaType() == FieldDescriptor.JavaType.MESSAGE
                            ? element(valueField, entry.readMessage())
                            : scalar(valueField, entry);
                default -> entry.skip();
            }
        }
        if (value == null) { // an absent value is the zero value of its type
            value = valueField.getJavaType() == FieldDescriptor.JavaType.MESSAGE
                    ? element(valueField, new WireReader(new byte[0]))
                    : zero(valueField);
        }
        map.set(key, value);
    }

    private JsonNode scalar(FieldDescriptor field, WireReader in) {
        return switch (field.getType()) {
            case STRING -> nodes.stringNode(in.readString());
            case BYTES -> nodes.stringNode(Base64.getEncoder().encodeToString(in.readBytes()));
            case BOOL, INT32, INT64 -> varint(field, in.readVarint());
            default -> throw new IllegalStateException("unmapped field type " + field.getType()); // Schemas checks
        };
    }

    private JsonNode varint(FieldDescriptor field, long value) {
        return switch (field.getType()) {
            case BOOL -> nodes.booleanNode(value != 0);
            case INT32 -> nodes.numberNode((int) value); // int32 is sign-extended on the wire; the low bits are it
            default -> (int) value == value ? nodes.numberNode((int) value) : nodes.numberNode(value);
        };
    }

    private JsonNode zero(FieldDescriptor field) {
        return switch (field.getType()) {
            case STRING, BYTES -> nodes.stringNode("");
            case BOOL -> nodes.booleanNode(false);
            default -> nodes.numberNode(0);
        };
    }

    private static boolean isVarint(FieldDescriptor field) {
        return switch (field.getType()) {
            case BOOL, INT32, INT64 -> true;
            default -> false;
        };
    }

    private static boolean isZero(JsonNode value) {
        return value.isString()
                ? value.asString().isEmpty()
                : value.isBoolean() ? !value.booleanValue() : value.isNumber() && value.longValue() == 0;
    }

    /** The Go JSON form of a special message, or null when Go writes null (which JSON then omits). */
    private JsonNode special(SpecialMessage special, FieldDescriptor field, WireReader in) {
        return switch (special) {
            case TIME, MICRO_TIME -> time(in, special == SpecialMessage.MICRO_TIME);
            case DURATION -> {
                long nanos = 0;
                while (in.next()) {
                    if (in.fieldNumber() == 1) {
                        nanos = in.readVarint();
                    } else {
                        in.skip();
                    }
                }
                yield nodes.stringNode(GoDuration.format(nanos));
            }
            case QUANTITY -> {
                String value = null;
                while (in.next()) {
                    if (in.fieldNumber() == 1) {
                        value = in.readString();
                    } else {
                        in.skip();
                    }
                }
                if (value == null || value.isEmpty()) {
                    throw new ProtobufException("a quantity has no value");
                }
                yield nodes.stringNode(value);
            }
            case INT_OR_STRING -> intOrString(in);
            case RAW_EXTENSION -> rawJson(in, WATCH_EVENT_OBJECT.equals(field.getFullName()));
            case FIELDS_V1 -> rawJson(in, false);
            case STRING_LIST -> {
                ArrayNode items = nodes.arrayNode();
                while (in.next()) {
                    if (in.fieldNumber() == 1) {
                        items.add(in.readString());
                    } else {
                        in.skip();
                    }
                }
                yield items;
            }
        };
    }

    /** Go's metav1.Time: an empty message is the zero time (JSON null); any field present makes a real time. */
    private JsonNode time(WireReader in, boolean micro) {
        boolean present = false;
        long seconds = 0;
        long nanos = 0;
        while (in.next()) {
            switch (in.fieldNumber()) {
                case 1 -> seconds = in.readVarint();
                case 2 -> nanos = (int) in.readVarint();
                default -> {
                    in.skip();
                    continue;
                }
            }
            present = true;
        }
        if (!present) {
            return null;
        }
        try {
            Instant instant = Instant.ofEpochSecond(seconds, nanos);
            return nodes.stringNode(micro ? Timestamps.formatMicro(instant) : Timestamps.format(instant));
        } catch (DateTimeException | ArithmeticException | IllegalArgumentException e) {
            throw new ProtobufException("a time is outside the years 1 to 9999");
        }
    }

    private JsonNode intOrString(WireReader in) {
        long type = 0;
        int intVal = 0;
        String strVal = "";
        while (in.next()) {
            switch (in.fieldNumber()) {
                case 1 -> type = in.readVarint();
                case 2 -> intVal = (int) in.readVarint();
                case 3 -> strVal = in.readString();
                default -> in.skip();
            }
        }
        if (type == 0) {
            return nodes.numberNode(intVal);
        }
        if (type == 1) {
            return nodes.stringNode(strVal);
        }
        throw new ProtobufException("an int-or-string has type " + type + ", neither 0 (int) nor 1 (string)");
    }

    /**
     * A RawExtension's or FieldsV1's bytes: a JSON document (Go writes the bytes as they are, so they must be
     * JSON), or in a WatchEvent's object a whole protobuf body, as a protobuf watch stream carries it.
     */
    private JsonNode rawJson(WireReader in, boolean mayBeProtobuf) {
        byte[] raw = null;
        while (in.next()) {
            if (in.fieldNumber() == 1) {
                raw = in.readBytes();
            } else {
                in.skip();
            }
        }
        if (raw == null || raw.length == 0) {
            return null;
        }
        if (mayBeProtobuf
                && raw.length >= MAGIC.length
                && Arrays.equals(raw, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
            depth++;
            ObjectNode object = codec.decode(raw, this);
            depth--;
            return object;
        }
        try {
            JsonNode tree = json.readTree(raw);
            return tree.isNull() || tree.isMissingNode() ? null : tree; // null: as if absent
        } catch (JacksonException e) {
            throw new ProtobufException("the embedded raw JSON is malformed: " + e.getOriginalMessage());
        }
    }

    int depth() {
        return depth;
    }
}
