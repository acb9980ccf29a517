package io.kubeloop.bench.informer;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Serves recorded pod lists and watch bursts over plain HTTP on loopback, so that what a client measures is its
 * own decoding, caching and dispatch, not the API server's serialization or write path (which is the same for
 * every client). Every path ending in {@code /pods} is the pod collection:
 *
 * <ul>
 *   <li>a list (no {@code watch}) answers the recorded PodList, whatever {@code limit}, {@code resourceVersion}
 *       or selectors ask (a server may ignore {@code limit}; every client handles a list without continue);</li>
 *   <li>a watch from the list's resourceVersion waits for {@code POST /bench/burst}, then streams the recorded
 *       burst of MODIFIED events and stays open; any other watch stays open and silent (so a client that
 *       re-watches after the burst sees nothing twice). Open watches end at their {@code timeoutSeconds}, or
 *       after 10 minutes;</li>
 *   <li>a WebSocket upgrade is refused with an empty 200, as the embedded API server does, and fabric8 falls back
 *       to its HTTP watch.</li>
 * </ul>
 */
final class ReplayServer implements AutoCloseable {

    private final HttpServer server;
    private final ExecutorService executor;
    private final ReplayData data;
    private final byte[] list;
    /** Watches from the list's resourceVersion waiting for the burst. */
    private final ConcurrentLinkedQueue<CountDownLatch> waiting = new ConcurrentLinkedQueue<>();

    private ReplayServer(ReplayData data, byte[] list, Function<String, byte[]> control) throws IOException {
        this.data = data;
        this.list = list;
        this.executor = Executors.newThreadPerTaskExecutor(
                Thread.ofVirtual().name("replay-", 0).factory());
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(executor);
        server.createContext("/", this::serve);
        server.createContext("/bench/", exchange -> {
            try (exchange) {
                byte[] answer;
                if (exchange.getRequestURI().getPath().equals("/bench/burst")) {
                    int n = 0;
                    for (CountDownLatch l; (l = waiting.poll()) != null; n++) {
                        l.countDown();
                    }
                    answer = ("{\"released\":" + n + "}").getBytes(StandardCharsets.UTF_8);
                } else {
                    answer = control.apply(exchange.getRequestURI().getPath() + "?"
                            + exchange.getRequestURI().getRawQuery());
                }
                if (answer == null) {
                    exchange.sendResponseHeaders(404, -1);
                    return;
                }
                exchange.sendResponseHeaders(200, answer.length);
                exchange.getResponseBody().write(answer);
            }
        });
        server.start();
    }

    static ReplayServer start(ReplayData data, boolean withManagedFields, Function<String, byte[]> control)
            throws IOException {
        return new ReplayServer(
                data, withManagedFields ? data.listWithManagedFields : data.listWithoutManagedFields, control);
    }

    URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    private void serve(HttpExchange exchange) throws IOException {
        try (exchange) {
            String upgrade = exchange.getRequestHeaders().getFirst("Upgrade");
            if (upgrade != null && upgrade.toLowerCase(Locale.ROOT).contains("websocket")) {
                exchange.sendResponseHeaders(200, -1);
                return;
            }
            if (!exchange.getRequestMethod().equals("GET")
                    || !exchange.getRequestURI().getPath().endsWith("/pods")) {
                exchange.sendResponseHeaders(404, -1);
                return;
            }
            String query = exchange.getRequestURI().getRawQuery();
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            if (param(query, "watch") == null || param(query, "watch").equals("false")) {
                exchange.sendResponseHeaders(200, list.length);
                write(exchange.getResponseBody(), list);
                return;
            }
            exchange.sendResponseHeaders(200, 0); // chunked
            OutputStream out = exchange.getResponseBody();
            out.flush();
            String timeout = param(query, "timeoutSeconds");
            long deadline =
                    System.nanoTime() + TimeUnit.SECONDS.toNanos(timeout == null ? 600 : Long.parseLong(timeout));
            if (data.listResourceVersion().equals(param(query, "resourceVersion")) && data.events > 0) {
                CountDownLatch go = new CountDownLatch(1);
                waiting.add(go);
                if (!go.await(deadline - System.nanoTime(), TimeUnit.NANOSECONDS)) {
                    waiting.remove(go);
                    return;
                }
                write(out, data.burst);
                out.flush();
            }
            // Open and silent until the watch's timeout.
            new CountDownLatch(1).await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (IOException clientWentAway) {
            // a client that closed its watch or exited
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void write(OutputStream out, byte[] body) throws IOException {
        for (int off = 0; off < body.length; off += 64 * 1024) {
            out.write(body, off, Math.min(64 * 1024, body.length - off));
        }
    }

    static String param(String query, String name) {
        if (query == null) {
            return null;
        }
        for (String pair : query.split("&")) {
            int eq = pair.indexOf('=');
            String key = eq < 0 ? pair : pair.substring(0, eq);
            if (key.equals(name)) {
                return eq < 0 ? "" : java.net.URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            }
        }
        return null;
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
