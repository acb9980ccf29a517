package io.kubeloop.apiserver.protobuf;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** Writes protobuf wire format for tests: the encoder side of {@link WireReader}. */
public final class ProtoWriter {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    public ProtoWriter varint(int field, long value) {
        tag(field, WireReader.VARINT);
        raw(value);
        return this;
    }

    public ProtoWriter string(int field, String value) {
        return bytes(field, value.getBytes(StandardCharsets.UTF_8));
    }

    public ProtoWriter message(int field, ProtoWriter message) {
        return bytes(field, message.toByteArray());
    }

    public ProtoWriter bytes(int field, byte[] value) {
        tag(field, WireReader.LENGTH_DELIMITED);
        raw(value.length);
        out.writeBytes(value);
        return this;
    }

    public ProtoWriter fixed32(int field, int value) {
        tag(field, WireReader.FIXED32);
        for (int i = 0; i < 4; i++) {
            out.write(value >>> (8 * i));
        }
        return this;
    }

    public ProtoWriter fixed64(int field, long value) {
        tag(field, WireReader.FIXED64);
        for (int i = 0; i < 8; i++) {
            out.write((int) (value >>> (8 * i)));
        }
        return this;
    }

    public byte[] toByteArray() {
        return out.toByteArray();
    }

    /** {@code k8s\0} + runtime.Unknown{typeMeta{apiVersion, kind}, raw}: a client-go request body. */
    public static byte[] kubernetesBody(String apiVersion, String kind, byte[] raw) {
        ProtoWriter unknown = new ProtoWriter()
                .message(1, new ProtoWriter().string(1, apiVersion).string(2, kind))
                .bytes(2, raw).string(3, "").string(4, "");
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes(new byte[] {'k', '8', 's', 0});
        body.writeBytes(unknown.toByteArray());
        return body.toByteArray();
    }

    private void tag(int field, int wireType) {
        raw(((long) field << 3) | wireType);
    }

    private void raw(long value) {
        while ((value & ~0x7FL) != 0) {
            out.write((int) ((value & 0x7F) | 0x80));
            value >>>= 7;
        }
        out.write((int) value);
    }
}
