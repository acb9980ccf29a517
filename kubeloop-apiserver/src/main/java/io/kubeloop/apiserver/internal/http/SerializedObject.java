package io.kubeloop.apiserver.internal.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Map;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * One stored object serialized as compact JSON, with the byte range of each top-level field, so that the three
 * forms the server sends are cut from the same bytes without serializing again: the object itself (a GET, a
 * watch event's {@code object}), the object under another {@code apiVersion} (a custom resource served at a
 * version other than the one it was stored at), and a list item (without {@code apiVersion} and {@code kind}).
 *
 * <p>Invariant: {@link #bytes} is exactly what the server's mapper writes for the tree (the same generator, the
 * same fields in the same order), and every form is byte for byte what that mapper writes for the tree the
 * form stands for. This holds because the fields of a compact JSON object are its members joined by commas,
 * with nothing in between: dropping a member or replacing one member's text leaves the others' bytes as they
 * were. Immutable; {@link #bytes} is shared and must not be changed.
 */
final class SerializedObject {

    private final byte[] bytes;
    /** Where top-level field {@code i} starts (its name's opening quote) and ends (just past its value). */
    private final int[] starts;

    private final int[] ends;
    /** The index of the top-level {@code apiVersion} field, -1 if there is none; likewise {@code kind}. */
    private final int apiVersion;

    private final int kind;

    private SerializedObject(byte[] bytes, int[] starts, int[] ends, int apiVersion, int kind) {
        this.bytes = bytes;
        this.starts = starts;
        this.ends = ends;
        this.apiVersion = apiVersion;
        this.kind = kind;
    }

    /** Serializes {@code object} with {@code json}, noting where each top-level field lies. */
    static SerializedObject of(JsonMapper json, ObjectNode object) {
        int size = object.size();
        int[] starts = new int[size];
        int[] ends = new int[size];
        int apiVersion = -1;
        int kind = -1;
        Buffer out = new Buffer();
        try (JsonGenerator gen = json.createGenerator(out)) {
            gen.writeStartObject();
            int i = 0;
            for (Map.Entry<String, JsonNode> field : object.properties()) {
                // Compact output: the next field begins right after the previous one's comma.
                starts[i] = out.size() + gen.streamWriteOutputBuffered() + (i == 0 ? 0 : 1);
                gen.writeName(field.getKey());
                gen.writeTree(field.getValue());
                ends[i] = out.size() + gen.streamWriteOutputBuffered();
                if (field.getKey().equals("apiVersion")) {
                    apiVersion = i;
                } else if (field.getKey().equals("kind")) {
                    kind = i;
                }
                i++;
            }
            gen.writeEndObject();
        }
        byte[] bytes = out.toByteArray();
        for (int i = 0; i < size; i++) {
            // Guards the layout the forms rely on; a pretty printer or a mapper feature that drops fields breaks it.
            if (bytes[starts[i]] != '"' || (i > 0 && bytes[starts[i] - 1] != ',')) {
                throw new IllegalStateException("the mapper does not write compact JSON");
            }
        }
        return new SerializedObject(bytes, starts, ends, apiVersion, kind);
    }

    /**
     * A top-level field as the mapper writes it inside an object: {@code "name":value}, e.g. the {@code apiVersion}
     * field to pass to {@link #writeTo(OutputStream, byte[])}.
     */
    static byte[] field(JsonMapper json, String name, String value) {
        ObjectNode holder = json.createObjectNode().put(name, value);
        byte[] object = json.writeValueAsBytes(holder);
        return java.util.Arrays.copyOfRange(object, 1, object.length - 1);
    }

    /** Writes the object as stored. */
    void writeTo(OutputStream out) throws IOException {
        out.write(bytes);
    }

    /**
     * Writes the object with its {@code apiVersion} field replaced by {@code apiVersionField} (from
     * {@link #field}), in the same place; an object without an {@code apiVersion} is written as stored.
     */
    void writeTo(OutputStream out, byte[] apiVersionField) throws IOException {
        if (apiVersion < 0) {
            out.write(bytes);
            return;
        }
        out.write(bytes, 0, starts[apiVersion]);
        out.write(apiVersionField);
        out.write(bytes, ends[apiVersion], bytes.length - ends[apiVersion]);
    }

    /** Writes the object as a list item: without its {@code apiVersion} and {@code kind} fields. */
    void writeListItemTo(OutputStream out) throws IOException {
        out.write('{');
        boolean first = true;
        for (int i = 0; i < starts.length; i++) {
            if (i == apiVersion || i == kind) {
                continue;
            }
            if (!first) {
                out.write(',');
            }
            out.write(bytes, starts[i], ends[i] - starts[i]);
            first = false;
        }
        out.write('}');
    }

    /** A byte buffer whose size is readable while the generator writes, without the synchronized accessors. */
    private static final class Buffer extends ByteArrayOutputStream {
        Buffer() {
            super(1024);
        }

        @Override
        public int size() {
            return count;
        }
    }
}
