package io.kubeloop.apiserver.internal.protobuf;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Reads the protobuf wire format (proto2 and proto3 encode alike) from a byte array, one field at a time:
 *
 * <pre>{@code
 * WireReader r = new WireReader(bytes);
 * while (r.next()) {
 *     switch (r.fieldNumber()) {
 *         case 1 -> name = r.readString();
 *         case 2 -> spec = r.readMessage();   // a reader over the embedded message
 *         default -> r.skip();                // unknown fields are skipped, as protobuf requires
 *     }
 * }
 * }</pre>
 *
 * <p>Invariant: every read is bounds-checked against the end of the current message; malformed input ends in
 * a {@link ProtobufException} naming the field and offset, never in an index error, a huge allocation or a
 * loop. A nested reader from {@link #readMessage()} sees only its own bytes. Not thread-safe.
 */
public final class WireReader {

    public static final int VARINT = 0;
    public static final int FIXED64 = 1;
    public static final int LENGTH_DELIMITED = 2;
    public static final int START_GROUP = 3;
    public static final int END_GROUP = 4;
    public static final int FIXED32 = 5;

    private final byte[] buf;
    /** The end (exclusive) of this message within {@link #buf}; never beyond buf.length. */
    private final int limit;

    private int pos;
    private int fieldNumber;
    private int wireType = -1;

    public WireReader(byte[] bytes) {
        this(bytes, 0, bytes.length);
    }

    /** Reads {@code bytes[offset, offset + length)}. */
    public WireReader(byte[] bytes, int offset, int length) {
        if (offset < 0 || length < 0 || offset > bytes.length - length) {
            throw new IllegalArgumentException(
                    "range [" + offset + ", +" + length + ") is outside the " + bytes.length + " bytes given");
        }
        this.buf = bytes;
        this.pos = offset;
        this.limit = offset + length;
    }

    /**
     * Advances to the next field's tag; false at the end of the message. The previous field's value must
     * have been read or {@link #skip() skipped}.
     */
    public boolean next() {
        if (pos >= limit) {
            return false;
        }
        int at = pos;
        long tag = readRawVarint("a field tag");
        fieldNumber = (int) (tag >>> 3);
        wireType = (int) (tag & 7);
        if (tag >>> 3 > 0x1FFF_FFFF || fieldNumber == 0) {
            throw new ProtobufException("invalid field number " + (tag >>> 3) + " at offset " + at);
        }
        return true;
    }

    /** The field number of the current field. */
    public int fieldNumber() {
        return fieldNumber;
    }

    /** The wire type of the current field ({@link #VARINT}, {@link #LENGTH_DELIMITED}, ...). */
    public int wireType() {
        return wireType;
    }

    /** The current field as a varint (int32, int64, uint, bool, enum). */
    public long readVarint() {
        expect(VARINT);
        return readRawVarint("field " + fieldNumber);
    }

    public boolean readBool() {
        return readVarint() != 0;
    }

    /** The current length-delimited field's bytes (a copy). */
    public byte[] readBytes() {
        int length = readLength();
        byte[] out = Arrays.copyOfRange(buf, pos, pos + length);
        pos += length;
        return out;
    }

    /** The current length-delimited field as strict UTF-8, as protobuf requires of {@code string} fields. */
    public String readString() {
        int length = readLength();
        int at = pos;
        pos += length;
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(buf, at, length))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new ProtobufException("field " + fieldNumber + " at offset " + at + " is not valid UTF-8");
        }
    }

    /** The current length-delimited field as an embedded message, read by a reader of its own. */
    public WireReader readMessage() {
        int length = readLength();
        WireReader nested = new WireReader(buf, pos, length);
        pos += length;
        return nested;
    }

    /** Whether unread bytes remain in this message (for packed repeated fields, read with {@link #readPackedVarint}). */
    boolean hasRemaining() {
        return pos < limit;
    }

    /** One varint of a packed repeated field: a reader from {@link #readMessage()} over the field's bytes. */
    long readPackedVarint() {
        return readRawVarint("a packed value");
    }

    /** Skips the current field's value, whatever its wire type. Groups (deprecated) are refused. */
    public void skip() {
        switch (wireType) {
            case VARINT -> readRawVarint("field " + fieldNumber);
            case FIXED64 -> advance(8);
            case LENGTH_DELIMITED -> {
                int length = readLength(); // advances past the length itself, so not "pos += readLength()"
                pos += length;
            }
            case FIXED32 -> advance(4);
            default ->
                throw new ProtobufException(
                        "field " + fieldNumber + " has unsupported wire type " + wireType + " before offset " + pos);
        }
    }

    private void expect(int type) {
        if (wireType != type) {
            throw new ProtobufException("field " + fieldNumber + " has wire type " + wireType + ", expected " + type
                    + " (before offset " + pos + ")");
        }
    }

    private int readLength() {
        expect(LENGTH_DELIMITED);
        int at = pos;
        long length = readRawVarint("the length of field " + fieldNumber);
        if (length < 0 || length > limit - pos) {
            throw new ProtobufException("field " + fieldNumber + " at offset " + at + " claims " + length
                    + " bytes but only " + (limit - pos) + " remain");
        }
        return (int) length;
    }

    private void advance(int n) {
        if (limit - pos < n) {
            throw new ProtobufException("field " + fieldNumber + " is truncated: needs " + n + " bytes at offset " + pos
                    + ", " + (limit - pos) + " remain");
        }
        pos += n;
    }

    private long readRawVarint(String what) {
        int at = pos;
        long result = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (pos >= limit) {
                throw new ProtobufException(what + " at offset " + at + " is truncated");
            }
            byte b = buf[pos++];
            result |= (long) (b & 0x7F) << shift;
            if (b >= 0) {
                return result;
            }
        }
        throw new ProtobufException(what + " at offset " + at + " is a varint longer than 10 bytes");
    }
}
