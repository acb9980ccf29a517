package io.kubeloop.client.codec;

import java.io.ByteArrayOutputStream;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.json.JsonMapper;

/**
 * Captures a managedFields {@code fieldsV1} subtree as its compact JSON text (UTF-8 bytes) while parsing, so that
 * decoding never builds the tree's nested maps. The parser still reads every token; what is saved is a map node per
 * field (a pod's fieldsV1 trees are about half of its JSON and, as maps, most of its decoding time and heap).
 *
 * <p>Invariant: the text is what Jackson's generator writes for the tree (no whitespace, names and strings
 * escaped), so two trees have equal text exactly when they are equal, members in the same order.
 */
final class FieldsV1Text {

    static final JsonMapper PLAIN = JsonMapper.builder().build();
    /** A buffer per thread, reused: a capture allocates only its exact-size result. */
    private static final ThreadLocal<ByteArrayOutputStream> BUFFERS =
            ThreadLocal.withInitial(() -> new ByteArrayOutputStream(8192));

    private FieldsV1Text() {
    }

    /** The value at the parser's current token as compact JSON; leaves the parser on the value's last token. */
    static byte[] capture(JsonParser p) {
        ByteArrayOutputStream out = BUFFERS.get();
        out.reset();
        try (JsonGenerator g = PLAIN.createGenerator(out)) {
            g.copyCurrentStructure(p);
        }
        return out.toByteArray();
    }

    /** Whether {@code json} is the empty object. */
    static boolean isEmptyObject(byte[] json) {
        return json.length == 2 && json[0] == '{' && json[1] == '}';
    }
}
