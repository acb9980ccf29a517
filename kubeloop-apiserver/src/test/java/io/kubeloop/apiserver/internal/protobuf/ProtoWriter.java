package io.kubeloop.apiserver.internal.protobuf;

/**
 * Writes protobuf wire format for tests, fluently and from any package: the codec's own {@link WireWriter} behind a
 * public face. (The encoder is checked independently, by protobuf-java's parser, in {@code RoundTripTest}.)
 */
public final class ProtoWriter {

    private final WireWriter out = new WireWriter();

    public ProtoWriter varint(int field, long value) {
        out.varint(field, value);
        return this;
    }

    public ProtoWriter string(int field, String value) {
        out.string(field, value);
        return this;
    }

    public ProtoWriter message(int field, ProtoWriter message) {
        out.message(field, message.out);
        return this;
    }

    public ProtoWriter bytes(int field, byte[] value) {
        out.bytes(field, value);
        return this;
    }

    public ProtoWriter fixed32(int field, int value) {
        out.fixed32(field, value);
        return this;
    }

    public ProtoWriter fixed64(int field, long value) {
        out.fixed64(field, value);
        return this;
    }

    public byte[] toByteArray() {
        return out.toByteArray();
    }

    /** {@code k8s\0} + runtime.Unknown{typeMeta{apiVersion, kind}, raw}: a client-go request body. */
    public static byte[] kubernetesBody(String apiVersion, String kind, byte[] raw) {
        WireWriter body = new WireWriter();
        body.raw(new byte[] {'k', '8', 's', 0});
        body.raw(new ProtoWriter()
                .message(1, new ProtoWriter().string(1, apiVersion).string(2, kind))
                .bytes(2, raw)
                .string(3, "")
                .string(4, "")
                .toByteArray());
        return body.toByteArray();
    }
}
