package io.kubeloop.demo.internal.link;

import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * A TCP relay on loopback between one operator instance and the API server: the operator's network cable. The
 * demo points the instance's client at {@link #port()}; {@link #cut()} pulls the cable (open connections are closed,
 * so watches end and in-flight requests fail; new connections are accepted and closed at once, so requests fail
 * fast) until {@link #restore()}; {@link #reset()} closes the open connections once and keeps relaying (watches end
 * and resume). Thread-safe; one virtual thread per direction per connection.
 */
public final class NetworkLink implements AutoCloseable {

    private NetworkLink() {}

    /** Starts relaying 127.0.0.1:(a free port) to {@code target}; {@code name} names its threads and log lines. */
    public static NetworkLink open(String name, InetSocketAddress target) throws IOException {
        throw new UnsupportedOperationException("issue 19, work package 'view'");
    }

    /** The local port the operator's client connects to. */
    public int port() {
        throw new UnsupportedOperationException();
    }

    public void cut() {
        throw new UnsupportedOperationException();
    }

    public void restore() {
        throw new UnsupportedOperationException();
    }

    public void reset() {
        throw new UnsupportedOperationException();
    }

    public boolean isCut() {
        throw new UnsupportedOperationException();
    }

    /** Connections open now. */
    public int openConnections() {
        throw new UnsupportedOperationException();
    }

    @Override
    public void close() {
        throw new UnsupportedOperationException();
    }
}
