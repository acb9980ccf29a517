package io.kubeloop.apiserver.internal.protobuf;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Writes the protobuf wire format, the encoder side of {@link WireReader}. Fields are appended in the order they
 * are written; an embedded message is written whole, after its own bytes are known ({@link #message}).
 * Not thread-safe.
 */
final class WireWriter {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    void varint(int field, long value) {
        tag(field, WireReader.VARINT);
        rawVarint(value);
    }

    void fixed32(int field, int value) {
        tag(field, WireReader.FIXED32);
        for (int i = 0; i < 4; i++) {
            out.write(value >>> (8 * i));
        }
    }

    void fixed64(int field, long value) {
        tag(field, WireReader.FIXED64);
        for (int i = 0; i < 8; i++) {
            out.write((int) (value >>> (8 * i)));
        }
    }

    void string(int field, String value) {
        bytes(field, value.getBytes(StandardCharsets.UTF_8));
    }

    void bytes(int field, byte[] value) {
        tag(field, WireReader.LENGTH_DELIMITED);
        rawVarint(value.length);
        out.writeBytes(value);
    }

    void message(int field, WireWriter message) {
        tag(field, WireReader.LENGTH_DELIMITED);
        rawVarint(message.out.size());
        out.writeBytes(message.out.toByteArray());
    }

    /** Appends bytes as they are, without a tag (the {@code k8s\0} prefix, a frame's length). */
    void raw(byte[] bytes) {
        out.writeBytes(bytes);
    }

    int size() {
        return out.size();
    }

    byte[] toByteArray() {
        return out.toByteArray();
    }

    private void tag(int field, int wireType) {
        rawVarint(((long) field << 3) | wireType);
    }

    /** Negative int32 and int64 values take ten bytes, as protobuf requires (they are sign-extended to 64 bits). */
    private void rawVarint(long value) {
        while ((value & ~0x7FL) != 0) {
            out.write((int) ((value & 0x7F) | 0x80));
            value >>>= 7;
        }
        out.write((int) value);
    }
}
