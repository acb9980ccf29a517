package io.kubeloop.apiserver.internal.protobuf;

/**
 * Malformed protobuf input: a truncated field, a varint longer than ten bytes, a length running past the
 * end of its message, or a wire type this reader does not know. The message names what was wrong and the
 * byte offset where it was found; it never echoes the input.
 */
public final class ProtobufException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ProtobufException(String message) {
        super(message, null, false, false);
    }
}
