package io.kubeloop.demo.internal.link;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TCP relay on loopback between one operator instance and the API server: the operator's network cable. The
 * demo points the instance's client at {@link #port()}; {@link #cut()} pulls the cable (open connections are closed,
 * so watches end and in-flight requests fail; new connections are accepted and closed at once, so requests fail
 * fast) until {@link #restore()}; {@link #reset()} closes the open connections once and keeps relaying (watches end
 * and resume). Thread-safe; one virtual thread per direction per connection.
 *
 * <p>Connections the link drops ({@link #cut()}, {@link #reset()}, {@link #close()}, refused while cut) are closed
 * abortively (an RST, {@code SO_LINGER 0}) on both sides, so the client sees an I/O error ("Connection reset")
 * rather than what could pass for a clean end of a response, and the server's side of a watch ends too. A server's
 * end of stream is passed on as a half-close and a client's closes the connection, so ordinary HTTP keep-alive and
 * close behave as without the link (a client that half-closes and then waits for an answer is not supported: HTTP
 * clients do not).
 *
 * <p>Invariant: a connection is in {@code connections} from the moment it is accepted while the link relays until
 * it is closed; {@code cut}, {@code reset} and {@code close} take the set under {@code lock}, and the accept thread
 * decides under the same lock whether to relay or refuse, so no connection accepted before a cut survives it and
 * none accepted after it is relayed.
 */
public final class NetworkLink implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(NetworkLink.class);

    /** Per direction per connection: large enough for a watch's burst of events in one read. */
    static final int BUFFER_BYTES = 64 * 1024;

    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);
    private static final int MAX_ACCEPT_FAILURES = 100;

    private final String name;
    private final InetSocketAddress target;
    private final ServerSocket server;
    private final Thread acceptor;
    private final AtomicLong connectionIds = new AtomicLong();

    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by {@code lock}. */
    private final Set<Connection> connections = new LinkedHashSet<>();
    /** Guarded by {@code lock}: every relay thread started and not yet known to have ended (for close()). */
    private final Set<Thread> relayThreads = new LinkedHashSet<>();
    /** Guarded by {@code lock}. */
    private boolean cut;
    /** Guarded by {@code lock}. */
    private boolean closed;
    /** Guarded by {@code lock}: connections refused since the last cut. */
    private long refusedWhileCut;

    private NetworkLink(String name, InetSocketAddress target, ServerSocket server) {
        this.name = name;
        this.target = target;
        this.server = server;
        this.acceptor = Thread.ofVirtual().name("link-" + name + "-accept").unstarted(this::acceptLoop);
    }

    /** Starts relaying 127.0.0.1:(a free port) to {@code target}; {@code name} names its threads and log lines. */
    public static NetworkLink open(String name, InetSocketAddress target) throws IOException {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(target, "target");
        if (name.isBlank()) {
            throw new IllegalArgumentException("a network link needs a name, got a blank one");
        }
        if (target.isUnresolved()) {
            throw new IllegalArgumentException("network link " + name + ": unresolved target " + target);
        }
        ServerSocket server = new ServerSocket();
        try {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 128);
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
        NetworkLink link = new NetworkLink(name, target, server);
        link.acceptor.start();
        LOG.debug("link {}: relaying 127.0.0.1:{} to {}", name, link.port(), target);
        return link;
    }

    /** The local port the operator's client connects to. */
    public int port() {
        return server.getLocalPort();
    }

    /**
     * Pulls the cable: closes every open connection now and, until {@link #restore()}, closes new connections as soon
     * as they are accepted. Cutting a cut link changes nothing.
     */
    public void cut() {
        List<Connection> dropped;
        lock.lock();
        try {
            if (closed || cut) {
                return;
            }
            cut = true;
            refusedWhileCut = 0;
            dropped = takeConnections();
        } finally {
            lock.unlock();
        }
        dropped.forEach(Connection::abort);
        LOG.info("link {}: cut, {} open connection(s) dropped", name, dropped.size());
    }

    /** Plugs the cable back in: new connections are relayed again. Restoring a link that is not cut changes nothing. */
    public void restore() {
        long refused;
        lock.lock();
        try {
            if (closed || !cut) {
                return;
            }
            cut = false;
            refused = refusedWhileCut;
        } finally {
            lock.unlock();
        }
        LOG.info("link {}: restored, {} connection(s) refused while cut", name, refused);
    }

    /** Drops every open connection once and keeps relaying: watches end and the client reconnects. */
    public void reset() {
        List<Connection> dropped;
        lock.lock();
        try {
            if (closed) {
                return;
            }
            dropped = takeConnections();
        } finally {
            lock.unlock();
        }
        dropped.forEach(Connection::abort);
        LOG.info("link {}: reset, {} open connection(s) dropped", name, dropped.size());
    }

    public boolean isCut() {
        lock.lock();
        try {
            return cut;
        } finally {
            lock.unlock();
        }
    }

    /** Connections open now. */
    public int openConnections() {
        lock.lock();
        try {
            return connections.size();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Stops accepting, drops every open connection and waits (a few seconds at most) for the link's threads to end.
     * Idempotent.
     */
    @Override
    public void close() {
        List<Connection> dropped;
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            dropped = takeConnections();
        } finally {
            lock.unlock();
        }
        try {
            server.close();
        } catch (IOException e) {
            LOG.debug("link {}: closing the listening socket failed", name, e);
        }
        dropped.forEach(Connection::abort);
        if (!awaitThreads()) {
            LOG.warn("link {}: some relay threads still running {} after close", name, CLOSE_WAIT);
        }
        LOG.debug("link {}: closed, {} open connection(s) dropped", name, dropped.size());
    }

    @Override
    public String toString() {
        return "NetworkLink[" + name + " 127.0.0.1:" + port() + " -> " + target + (isCut() ? ", cut" : "") + "]";
    }

    /**
     * Waits for the accept thread and every relay thread to end, at most {@link #CLOSE_WAIT}; false if some did not.
     * Loops because a connection's up thread may start its down thread while we wait.
     */
    private boolean awaitThreads() {
        long deadline = System.nanoTime() + CLOSE_WAIT.toNanos();
        try {
            acceptor.join(CLOSE_WAIT);
            while (true) {
                List<Thread> running;
                lock.lock();
                try {
                    running = new ArrayList<>(relayThreads);
                } finally {
                    lock.unlock();
                }
                if (running.isEmpty()) {
                    return !acceptor.isAlive();
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                running.getFirst().join(Duration.ofNanos(left));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Empties {@code connections}; the caller holds {@code lock} and aborts what it got outside it. */
    private List<Connection> takeConnections() {
        List<Connection> all = new ArrayList<>(connections);
        connections.clear();
        return all;
    }

    private void acceptLoop() {
        int failures = 0;
        while (true) {
            Socket client;
            try {
                client = server.accept();
                failures = 0;
            } catch (IOException e) {
                if (server.isClosed()) {
                    return;
                }
                // e.g. too many open files: the next accept may work once connections close
                if (++failures >= MAX_ACCEPT_FAILURES) {
                    LOG.error("link {}: accept failed {} times in a row, the link stops accepting", name, failures, e);
                    return;
                }
                LOG.warn("link {}: accept failed: {}", name, e.toString());
                continue;
            }
            Connection c = new Connection(connectionIds.incrementAndGet(), client);
            Thread up = null;
            lock.lock();
            try {
                if (!cut && !closed) {
                    connections.add(c);
                    // registered with the connection, under the same lock: close() waits for it
                    up = newRelayThread(c, "up", c::runUpstream);
                } else if (cut) {
                    refusedWhileCut++;
                }
            } finally {
                lock.unlock();
            }
            if (up != null) {
                up.start();
            } else {
                c.abort();
            }
        }
    }

    /** A relay thread, not started, registered in {@code relayThreads} (which it leaves when it ends). */
    private Thread newRelayThread(Connection c, String direction, Runnable body) {
        Thread t = Thread.ofVirtual()
                .name("link-" + name + "-" + c.id + "-" + direction)
                .unstarted(() -> {
                    try {
                        body.run();
                    } finally {
                        lock.lock();
                        try {
                            relayThreads.remove(Thread.currentThread());
                        } finally {
                            lock.unlock();
                        }
                    }
                });
        lock.lock();
        try {
            relayThreads.add(t);
        } finally {
            lock.unlock();
        }
        return t;
    }

    /** Removes {@code c} from the open connections (if a cut or reset has not already). */
    private void forget(Connection c) {
        lock.lock();
        try {
            connections.remove(c);
        } finally {
            lock.unlock();
        }
    }

    /**
     * One relayed connection. The up thread connects to the target, starts the down thread and copies client →
     * target; the down thread copies target → client.
     *
     * <p>Ends: the server's end of stream is passed on to the client as a half-close (the client then closes). The
     * client's end of stream closes the whole connection at once: HTTP clients do not half-close, they close, and a
     * server streaming a watch would otherwise notice only at its next write (a minute later for a quiet watch), with
     * the connection and its two threads kept till then. A failure in either direction, or a drop ({@link #abort()}),
     * resets both sockets.
     */
    private final class Connection {
        final long id;
        final Socket client;
        private final ReentrantLock state = new ReentrantLock();
        /** Guarded by {@code state}; null until connected. */
        private Socket upstream;
        /** Guarded by {@code state}: true once the connection is being closed (both copies then end). */
        private boolean ending;

        Connection(long id, Socket client) {
            this.id = id;
            this.client = client;
        }

        void runUpstream() {
            Socket up = new Socket();
            try {
                client.setTcpNoDelay(true);
                up.setTcpNoDelay(true);
                up.connect(target, (int) CONNECT_TIMEOUT.toMillis());
            } catch (IOException e) {
                LOG.debug("link {}: connection {} to {} failed: {}", name, id, target, e.toString());
                closeQuietly(up);
                abort();
                return;
            }
            state.lock();
            try {
                if (ending) {
                    closeQuietly(up);
                    return;
                }
                upstream = up;
            } finally {
                state.unlock();
            }
            newRelayThread(this, "down", () -> copy(up, client, "down")).start();
            copy(client, up, "up");
        }

        /** Copies {@code from} → {@code to} until the end of {@code from} or a failure; see the class comment. */
        private void copy(Socket from, Socket to, String direction) {
            byte[] buffer = new byte[BUFFER_BYTES];
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    out.write(buffer, 0, n); // a socket stream: unbuffered, so each read goes out now
                    out.flush();
                }
                if (from == client) {
                    end(false);
                } else {
                    to.shutdownOutput();
                }
            } catch (IOException e) {
                if (!isEnding()) {
                    LOG.debug("link {}: connection {} {} failed: {}", name, id, direction, e.toString());
                }
                end(true);
            }
        }

        /** Closes both sockets with an RST and forgets the connection; both copying threads then end. */
        void abort() {
            end(true);
        }

        /** Forgets the connection and closes both sockets, with an RST when {@code reset}, else with a FIN. */
        private void end(boolean reset) {
            Socket up;
            state.lock();
            try {
                ending = true;
                up = upstream;
            } finally {
                state.unlock();
            }
            forget(this);
            if (reset) {
                abortively(client);
                abortively(up);
            } else {
                closeQuietly(client);
                closeQuietly(up);
            }
        }

        private boolean isEnding() {
            state.lock();
            try {
                return ending;
            } finally {
                state.unlock();
            }
        }
    }

    private static void abortively(Socket s) {
        if (s == null) {
            return;
        }
        try {
            if (!s.isClosed()) {
                s.setSoLinger(true, 0);
            }
        } catch (SocketException ignored) {
            // already closed or broken: closing below is all that is left
        }
        closeQuietly(s);
    }

    private static void closeQuietly(Socket s) {
        if (s == null) {
            return;
        }
        try {
            s.close();
        } catch (IOException ignored) {
            // nothing to do: the socket is gone either way
        }
    }
}
