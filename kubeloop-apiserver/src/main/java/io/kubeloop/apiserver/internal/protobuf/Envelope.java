package io.kubeloop.apiserver.internal.protobuf;

/**
 * A Kubernetes protobuf body ({@code application/vnd.kubernetes.protobuf}): the four magic bytes
 * {@code k8s\0}, then a {@code runtime.Unknown} message whose {@code raw} field holds the object's own
 * message.
 *
 * <pre>
 * message Unknown { TypeMeta typeMeta = 1; bytes raw = 2; string contentEncoding = 3; string contentType = 4; }
 * message TypeMeta { string apiVersion = 1; string kind = 2; }
 * </pre>
 *
 * @param apiVersion from typeMeta; "" when absent
 * @param kind from typeMeta; "" when absent
 * @param raw the object's message bytes; empty when absent
 * @param contentEncoding "" when absent (the only encoding Kubernetes writes)
 * @param contentType "" when absent
 */
public record Envelope(String apiVersion, String kind, byte[] raw, String contentEncoding, String contentType) {

    /** The media type of such bodies, as sent in Content-Type (parameters aside). */
    public static final String MEDIA_TYPE = "application/vnd.kubernetes.protobuf";

    private static final byte[] MAGIC = {'k', '8', 's', 0};

    /**
     * Decodes a whole request body.
     *
     * @throws ProtobufException if the magic prefix is missing or the envelope is malformed
     */
    public static Envelope decode(byte[] body) {
        for (int i = 0; i < MAGIC.length; i++) {
            if (body.length <= i || body[i] != MAGIC[i]) {
                throw new ProtobufException("the body does not start with the Kubernetes protobuf prefix \"k8s\\0\"");
            }
        }
        String apiVersion = "";
        String kind = "";
        byte[] raw = new byte[0];
        String contentEncoding = "";
        String contentType = "";
        WireReader unknown = new WireReader(body, MAGIC.length, body.length - MAGIC.length);
        while (unknown.next()) {
            switch (unknown.fieldNumber()) {
                case 1 -> {
                    WireReader typeMeta = unknown.readMessage();
                    while (typeMeta.next()) {
                        switch (typeMeta.fieldNumber()) {
                            case 1 -> apiVersion = typeMeta.readString();
                            case 2 -> kind = typeMeta.readString();
                            default -> typeMeta.skip();
                        }
                    }
                }
                case 2 -> raw = unknown.readBytes();
                case 3 -> contentEncoding = unknown.readString();
                case 4 -> contentType = unknown.readString();
                default -> unknown.skip();
            }
        }
        return new Envelope(apiVersion, kind, raw, contentEncoding, contentType);
    }
}
