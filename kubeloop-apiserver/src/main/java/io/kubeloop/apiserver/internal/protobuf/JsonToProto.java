package io.kubeloop.apiserver.internal.protobuf;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import io.kubeloop.model.Timestamps;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Encodes a JSON object as a protobuf message, the inverse of {@link ProtoToJson}: it writes what the JSON has
 * (an absent or null field stays absent, an explicit zero is written), fields in field-number order and map
 * entries sorted by key as Go does. JSON fields the message does not have are dropped. A value of the wrong JSON
 * type fails with a {@link ProtobufException} naming the field's path (never the value).
 *
 * <p>One instance encodes one object.
 */
final class JsonToProto {

    private static final String WATCH_EVENT_OBJECT = "k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent.object";

    private final DescriptorCodec codec;
    private final JsonMapper json;
    private final List<String> path = new ArrayList<>();
    private int depth;

    JsonToProto(DescriptorCodec codec, JsonMapper json) {
        this.codec = codec;
        this.json = json;
    }

    String path() {
        return path.isEmpty() ? "the object" : String.join(".", path).replace(".[", "[");
    }

    WireWriter message(Descriptor type, JsonNode object) {
        if (!(object instanceof ObjectNode fields)) {
            throw new ProtobufException("expected an object");
        }
        if (++depth > ProtoToJson.MAX_DEPTH) {
            throw new ProtobufException("objects are nested deeper than " + ProtoToJson.MAX_DEPTH + " levels");
        }
        WireWriter out = new WireWriter();
        for (FieldDescriptor field : DescriptorCodec.fieldsInOrder(type)) {
            if (EmbeddedStructs.isInline(field)) { // Go writes the embedded struct whole, from the parent's fields
                out.message(field.getNumber(), message(field.getMessageType(), fields));
                continue;
            }
            JsonNode value = fields.get(GoJsonNames.of(field));
            if (value == null || value.isNull()) {
                continue;
            }
            path.add(field.getName());
            if (field.isMapField()) {
                map(field, value, out);
            } else if (field.isRepeated()) {
                if (!value.isArray()) {
                    throw new ProtobufException("expected an array");
                }
                for (int i = 0; i < value.size(); i++) {
                    path.add("[" + i + "]");
                    value(field.getNumber(), field, value.get(i), out);
                    path.removeLast();
                }
            } else {
                value(field.getNumber(), field, value, out);
            }
            path.removeLast();
        }
        depth--;
        return out;
    }

    private void map(FieldDescriptor field, JsonNode value, WireWriter out) {
        if (!value.isObject()) {
            throw new ProtobufException("expected an object");
        }
        FieldDescriptor valueField = field.getMessageType().findFieldByNumber(2);
        Map<String, JsonNode> sorted = new TreeMap<>(); // Go marshals map entries sorted by key
        for (Map.Entry<String, JsonNode> entry : value.properties()) {
            sorted.put(entry.getKey(), entry.getValue());
        }
        for (Map.Entry<String, JsonNode> entry : sorted.entrySet()) {
            WireWriter pair = new WireWriter();
            pair.string(1, entry.getKey());
            if (!entry.getValue().isNull()) {
                value(2, valueField, entry.getValue(), pair);
            }
            out.message(field.getNumber(), pair);
        }
    }

    private void value(int number, FieldDescriptor field, JsonNode value, WireWriter out) {
        switch (field.getType()) {
            case MESSAGE -> {
                SpecialMessage special = SpecialMessage.of(field.getMessageType());
                if (special != null) {
                    out.message(number, special(special, field, value));
                } else if (value.isNull()) {
                    out.message(number, new WireWriter()); // a null element of an array of structs: the zero struct
                } else {
                    out.message(number, message(field.getMessageType(), value));
                }
            }
            case STRING -> out.string(number, string(value));
            case BYTES -> {
                try {
                    out.bytes(number, Base64.getDecoder().decode(string(value)));
                } catch (IllegalArgumentException e) {
                    throw new ProtobufException("expected base64 bytes");
                }
            }
            case BOOL -> {
                if (!value.isBoolean() && !value.isNull()) {
                    throw new ProtobufException("expected true or false");
                }
                out.varint(number, value.booleanValue() ? 1 : 0);
            }
            case INT32 -> out.varint(number, integer(value, Integer.MIN_VALUE, Integer.MAX_VALUE));
            case INT64 -> out.varint(number, integer(value, Long.MIN_VALUE, Long.MAX_VALUE));
            default -> throw new IllegalStateException("unmapped field type " + field.getType()); // Schemas checks
        }
    }

    private static String string(JsonNode value) {
        if (value.isNull()) {
            return "";
        }
        if (!value.isString()) {
            throw new ProtobufException("expected a string");
        }
        return value.asString();
    }

    private static long integer(JsonNode value, long min, long max) {
        if (value.isNull()) {
            return 0;
        }
        if (!value.isNumber()
                || !value.canConvertToExactIntegral()
                || !value.canConvertToLong()
                || value.longValue() < min
                || value.longValue() > max) {
            throw new ProtobufException("expected an integer between " + min + " and " + max);
        }
        return value.longValue();
    }

    private WireWriter special(SpecialMessage special, FieldDescriptor field, JsonNode value) {
        WireWriter out = new WireWriter();
        switch (special) {
            case TIME, MICRO_TIME -> {
                if (value.isNull()) {
                    return out; // Go's zero time: an empty message
                }
                try {
                    Instant time = Timestamps.parse(string(value));
                    out.varint(1, time.getEpochSecond());
                    out.varint(2, time.getNano());
                } catch (DateTimeParseException e) {
                    throw new ProtobufException("expected an RFC 3339 time such as 2025-01-01T00:00:00Z");
                }
            }
            case DURATION -> {
                try {
                    out.varint(1, GoDuration.parse(string(value)));
                } catch (IllegalArgumentException e) {
                    throw new ProtobufException("expected a duration such as 1h2m3s: " + e.getMessage());
                }
            }
            case QUANTITY -> {
                if (value.isNumber()) {
                    out.string(1, value.asString()); // Go's Quantity accepts a JSON number too
                } else {
                    out.string(1, string(value));
                }
            }
            case INT_OR_STRING -> {
                if (value.isString()) {
                    out.varint(1, 1);
                    out.varint(2, 0);
                    out.string(3, value.asString());
                } else {
                    out.varint(1, 0);
                    out.varint(2, integer(value, Integer.MIN_VALUE, Integer.MAX_VALUE));
                    out.string(3, "");
                }
            }
            case RAW_EXTENSION ->
                out.bytes(
                        1,
                        WATCH_EVENT_OBJECT.equals(field.getFullName()) && codec.supports(value)
                                ? codec.encode(value)
                                : jsonBytes(value));
            case FIELDS_V1 -> out.bytes(1, jsonBytes(value));
            case STRING_LIST -> {
                if (!value.isArray()) {
                    throw new ProtobufException("expected an array of strings");
                }
                for (JsonNode item : value) {
                    out.string(1, string(item));
                }
            }
        }
        return out;
    }

    private byte[] jsonBytes(JsonNode value) {
        try {
            return json.writeValueAsBytes(value);
        } catch (JacksonException e) {
            throw new ProtobufException(
                    "the embedded JSON cannot be written (" + e.getClass().getSimpleName() + ")");
        }
    }
}
