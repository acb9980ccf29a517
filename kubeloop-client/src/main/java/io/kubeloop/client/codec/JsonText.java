package io.kubeloop.client.codec;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.json.UTF8StreamJsonParser;
import tools.jackson.databind.json.JsonMapper;

/**
 * Captures the value at a parser's current token (an object with all its children, or a scalar) as its compact JSON
 * text, UTF-8, while parsing: how {@code fieldsV1} trees are kept without building their maps ({@link LazyFieldsV1},
 * {@link CompactFieldsV1}) and how parts are shared by their text ({@link TextParts}).
 *
 * <p>Invariant: the text parses back to the value, so two values with the same text are equal (the converse need
 * not hold: the same value may arrive written two ways). When the parser reads a {@link RawInput} (every parser a
 * {@link Decoding} makes from bytes or a stream), the text of an object or array is the bytes it arrived in, found
 * by skipping over the value; otherwise it is what Jackson's generator writes for it (no whitespace, names and
 * strings escaped).
 *
 * <p>Each thread captures into its own buffer (through its own generator, reused), so a capture allocates nothing
 * but the copy it is asked for.
 */
final class JsonText {

    /** Reads and writes plain JSON; writes no separator between root values (captures follow each other). */
    static final JsonMapper PLAIN = JsonMapper.builder(
                    JsonFactory.builder().rootValueSeparator((String) null).build())
            .build();

    private static final ThreadLocal<Capture> CAPTURES = ThreadLocal.withInitial(Capture::new);

    private JsonText() {}

    /**
     * The value at {@code p}'s current token, in this thread's buffer: valid until the thread's next capture.
     * Leaves {@code p} on the value's last token.
     */
    static Capture capture(JsonParser p) {
        Capture c = CAPTURES.get();
        c.reset();
        if (raw(p, c)) {
            return c;
        }
        try {
            c.generator.copyCurrentStructure(p);
            c.generator.flush();
        } catch (RuntimeException | Error e) {
            CAPTURES.remove(); // the generator may be left inside the value: never write with it again
            throw e;
        }
        return c;
    }

    /**
     * Copies the object or array at {@code p}'s current token into {@code c} from the bytes {@code p} read, when
     * {@code p} is Jackson's UTF-8 parser reading a {@link RawInput}; false, with nothing read, otherwise.
     */
    private static boolean raw(JsonParser p, Capture c) {
        JsonToken token = p.currentToken();
        if (token != JsonToken.START_OBJECT && token != JsonToken.START_ARRAY
                || p.getClass() != UTF8StreamJsonParser.class
                || !(p.streamReadInputSource() instanceof RawInput in)) {
            return false;
        }
        // This parser has read exactly up to and including the value's first byte, so the value starts one byte
        // before its current location (pin checks that byte).
        boolean object = token == JsonToken.START_OBJECT;
        if (!in.pin(p.currentLocation().getByteOffset() - 1, (byte) (object ? '{' : '['))) {
            return false;
        }
        try {
            p.skipChildren();
            in.copyPinned(p.currentLocation().getByteOffset(), (byte) (object ? '}' : ']'), c);
        } finally {
            in.unpin();
        }
        return true;
    }

    /** The value at {@code p}'s current token as a new array. Leaves {@code p} on the value's last token. */
    static byte[] copy(JsonParser p) {
        Capture c = capture(p);
        return Arrays.copyOf(c.array(), c.length());
    }

    /** Whether {@code json} is the empty object. */
    static boolean isEmptyObject(byte[] json) {
        return json.length == 2 && json[0] == '{' && json[1] == '}';
    }

    /** A thread's buffer and the generator writing into it. */
    static final class Capture extends ByteArrayOutputStream {
        private final JsonGenerator generator = PLAIN.createGenerator(this);

        private Capture() {
            super(8192);
        }

        /** The buffer; the text is its first {@link #length()} bytes. */
        byte[] array() {
            return buf;
        }

        int length() {
            return count;
        }
    }
}
