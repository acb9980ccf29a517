package io.kubeloop.apiserver;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A loopback TCP proxy in front of a server, so that a test can cut a client's connections (and its open
 * watches) at a moment of its choosing and keep new ones from getting through for a while.
 */
final class TcpProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final InetSocketAddress target;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile boolean blocked;
    private volatile boolean closed;

    TcpProxy(URI target) {
        this.target = new InetSocketAddress(target.getHost(), target.getPort());
        try {
            this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Thread.ofVirtual().name("tcp-proxy-accept").start(this::acceptLoop);
    }

    /** The proxy's address, {@code http://127.0.0.1:PORT}. */
    URI url() {
        return URI.create("http://127.0.0.1:" + listener.getLocalPort());
    }

    /** Closes every open connection and closes new ones at once until {@link #unblock()}. */
    void cutAndBlock() {
        blocked = true; // set before cutting: a connection accepted meanwhile is either cut here or refused there
        for (Socket s : open) {
            closeQuietly(s);
        }
    }

    void unblock() {
        blocked = false;
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return; // closed
            }
            open.add(client);
            if (blocked) {
                closeQuietly(client);
                continue;
            }
            Socket upstream = new Socket();
            try {
                upstream.connect(target, 5_000);
            } catch (IOException e) {
                closeQuietly(client);
                continue;
            }
            open.add(upstream);
            if (blocked) { // cut while connecting
                closeQuietly(client);
                closeQuietly(upstream);
                continue;
            }
            Thread.ofVirtual().start(() -> pump(client, upstream));
            Thread.ofVirtual().start(() -> pump(upstream, client));
        }
    }

    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // either side went away
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private void closeQuietly(Socket s) {
        open.remove(s);
        try {
            s.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException ignored) {
            // already closed
        }
        for (Socket s : open) {
            closeQuietly(s);
        }
    }
}
