package io.kubeloop.client.watch;

/**
 * A watch or list response that is not what the API server sends: malformed or truncated JSON, an event without
 * a type or object, an unknown event type, an object that does not decode to the requested type. The message
 * names what was wrong, the event (or list item) and the byte offset in the response body.
 */
public final class WatchDecodeException extends WatchException {
    private static final long serialVersionUID = 1L;

    private final long byteOffset;
    private final long index;

    WatchDecodeException(String message, long index, long byteOffset, Throwable cause) {
        super(message, cause);
        this.index = index;
        this.byteOffset = byteOffset;
    }

    /** The offset in the response body, in bytes, where decoding failed; -1 when unknown. */
    public long byteOffset() {
        return byteOffset;
    }

    /** The 1-based number of the event (or list item) being decoded when it failed. */
    public long index() {
        return index;
    }
}
