package io.kubeloop.controller.internal.manager;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * One of the manager's HTTP servers (metrics or probes): the JDK's {@code com.sun.net.httpserver} on a
 * virtual-thread executor, as the embedded API server. {@link #close()} stops the dispatcher thread and every handler
 * thread, so no thread outlives the manager.
 */
public final class HttpEndpoint implements AutoCloseable {

    private final String what;
    private final HttpServer server;
    private final ExecutorService executor;

    private HttpEndpoint(String what, HttpServer server, ExecutorService executor) {
        this.what = what;
        this.server = server;
        this.executor = executor;
    }

    /**
     * Binds and starts a server.
     *
     * @param what "metrics" or "probes", for thread names and messages
     * @param address null for every interface
     * @param port 0 for any free port
     * @throws UncheckedIOException the port cannot be bound (the message names the endpoint and the port)
     */
    public static HttpEndpoint start(String what, InetAddress address, int port, Map<String, HttpHandler> handlers) {
        InetSocketAddress bind = address == null ? new InetSocketAddress(port) : new InetSocketAddress(address, port);
        HttpServer server;
        try {
            server = HttpServer.create(bind, 64);
        } catch (BindException e) {
            throw new UncheckedIOException(
                    "cannot serve " + what + " on " + describe(address, port) + ": " + e.getMessage()
                            + " (choose another port, 0 for any free one, or -1 to turn the endpoint off)",
                    e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serve " + what + " on " + describe(address, port), e);
        }
        ExecutorService executor = Executors.newThreadPerTaskExecutor(
                Thread.ofVirtual().name("kubeloop-" + what + "-", 0).factory());
        handlers.forEach(server::createContext);
        server.setExecutor(executor);
        server.start();
        return new HttpEndpoint(what, server, executor);
    }

    private static String describe(InetAddress address, int port) {
        return (address == null ? "*" : address.getHostAddress()) + ":" + port;
    }

    /** The port bound (the real one when 0 was asked for). */
    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public String toString() {
        return what + " on " + describe(server.getAddress().getAddress(), port());
    }

    /** Stops at once (probes and scrapes are short and retried by their callers) and waits for the threads. */
    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
