package io.kubeloop.client.watch;

/**
 * A watch failed: its stream could not be read, could not be decoded ({@link WatchDecodeException}) or went
 * silent for too long ({@link WatchIdleTimeoutException}). The caller should start a new watch (from the last
 * resourceVersion it saw). A server that ends the stream cleanly is not a failure.
 */
public class WatchException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public WatchException(String message) {
        super(message);
    }

    public WatchException(String message, Throwable cause) {
        super(message, cause);
    }
}
