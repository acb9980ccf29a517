package io.kubeloop.client.watch;

import java.time.Duration;

/**
 * A watch received no bytes for its idle timeout and was closed: the connection is presumed dead (a pulled
 * cable, a stalled server, a proxy that dropped the connection without closing it). The caller should start a
 * new watch from the last resourceVersion it saw, as after any other failure.
 */
public final class WatchIdleTimeoutException extends WatchException {
    private static final long serialVersionUID = 1L;

    private final Duration idleTimeout;

    WatchIdleTimeoutException(String message, Duration idleTimeout) {
        super(message);
        this.idleTimeout = idleTimeout;
    }

    /** The idle timeout that was exceeded. */
    public Duration idleTimeout() {
        return idleTimeout;
    }
}
