package io.kubeloop.bench.controller;

import static io.kubeloop.bench.ProcessMeasures.arg;
import static io.kubeloop.bench.ProcessMeasures.intArg;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.bench.informer.LoadGenerator;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The server process of the controller benchmark ({@code BENCHMARKS.md}, "Controllers"): the embedded API server
 * holding {@code --objects} ConfigMaps {@code cm-00000 ...} (data {@code seq: "0"}; the runs write larger seqs) in namespace
 * {@value ControllerBench#NAMESPACE}, one ConfigMap {@value ControllerBench#LATENCY_OBJECT} for the latency runs
 * and 200 {@code load-NNNN} ConfigMaps for background load, all watched by the controller under test. Its CPU is
 * not in the measured process. A control server on loopback answers POSTs (JSON):
 *
 * <ul>
 *   <li>{@code /bench/write?seq=K&from=A&to=B&stall=0|1}: merge-patches {@code data.seq = K} into {@code cm-A}
 *       .. {@code cm-(B-1)}, {@value #WRITERS} writers at a time, as fast as the server takes them; answers when
 *       all are acknowledged. With {@code stall=1} the watch events of ConfigMaps are held first (the API
 *       server's stall fault) so that none reaches the controller until {@code /bench/release};</li>
 *   <li>{@code /bench/release}: ends the stall; the held events go out at once, in order;</li>
 *   <li>{@code /bench/load?rate=R}: background merge patches on the load ConfigMaps at R per second (0 stops).</li>
 * </ul>
 *
 * <p>A stalled watch buffers at most 1,000 events on the API server before it is closed, so a stalled write
 * covers fewer objects than that (the runner writes in rounds). Prints {@code READY api=... control=...} (also to
 * {@code --ready-file}) and serves until its standard input ends.
 */
public final class ControllerBenchServer {

    static final int WRITERS = 16;

    private final EmbeddedApiServer api;
    private final HttpClient http = HttpClient.newHttpClient();
    private final LoadGenerator load;

    private ControllerBenchServer(EmbeddedApiServer api) {
        this.api = api;
        this.load = new LoadGenerator(http, api.url(), ControllerBench.NAMESPACE, 200, "configmaps");
    }

    public static void main(String[] args) throws Exception {
        int objects = intArg(args, "--objects", 10_000);
        String readyFile = arg(args, "--ready-file", null);
        try (EmbeddedApiServer api = EmbeddedApiServer.builder()
                .historyLimit(200_000)
                .faultInjection(true)
                .start()) {
            long t0 = System.nanoTime();
            ControllerBenchServer server = new ControllerBenchServer(api);
            server.populate(objects);
            HttpServer control = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            ExecutorService executor = Executors.newThreadPerTaskExecutor(
                    Thread.ofVirtual().name("control-", 0).factory());
            control.setExecutor(executor);
            control.createContext("/bench/", server::serve);
            control.start();
            try {
                String ready = "READY api=" + api.url() + " control=http://127.0.0.1:"
                        + control.getAddress().getPort() + " objects=" + objects + " setupSeconds="
                        + (System.nanoTime() - t0) / 1_000_000_000;
                if (readyFile != null) {
                    Files.writeString(Path.of(readyFile), ready + "\n");
                }
                System.out.println(ready);
                System.out.flush();
                InputStream in = System.in;
                while (in.read() >= 0) {
                    // serve until stdin ends
                }
            } finally {
                server.load.stop();
                control.stop(0);
                executor.close();
            }
        }
    }

    /** Creates the ConfigMaps, {@value #WRITERS} at a time. */
    private void populate(int objects) throws Exception {
        HttpResponse<Void> ns = http.send(
                HttpRequest.newBuilder(URI.create(api.url() + "/api/v1/namespaces"))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(
                                "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\""
                                        + ControllerBench.NAMESPACE + "\"}}"))
                        .build(),
                HttpResponse.BodyHandlers.discarding());
        if (ns.statusCode() != 201) {
            throw new IllegalStateException("create of namespace answered " + ns.statusCode());
        }
        create(ControllerBench.LATENCY_OBJECT);
        load.createObjects();
        AtomicInteger next = new AtomicInteger();
        runWriters(() -> {
            for (int i; (i = next.getAndIncrement()) < objects; ) {
                create(ControllerBench.name(i));
            }
        });
    }

    private void create(String name) throws Exception {
        String body = """
            {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"%s","labels":{"app":"bench"}},\
            "data":{"seq":"0","payload":"%s"}}""".formatted(name, "x".repeat(64));
        HttpResponse<Void> r = http.send(
                HttpRequest.newBuilder(URI.create(collection()))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.discarding());
        if (r.statusCode() != 201) {
            throw new IllegalStateException("create of " + name + " answered " + r.statusCode());
        }
    }

    /** Merge-patches {@code data.seq}; returns when the server acknowledged it. */
    private void write(String name, long seq) throws Exception {
        HttpResponse<Void> r = http.send(
                HttpRequest.newBuilder(URI.create(collection() + "/" + name))
                        .header("Content-Type", "application/merge-patch+json")
                        .method("PATCH", HttpRequest.BodyPublishers.ofString("{\"data\":{\"seq\":\"" + seq + "\"}}"))
                        .build(),
                HttpResponse.BodyHandlers.discarding());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("write of " + name + " answered " + r.statusCode());
        }
    }

    private String collection() {
        return api.url() + "/api/v1/namespaces/" + ControllerBench.NAMESPACE + "/configmaps";
    }

    private void serve(HttpExchange exchange) throws IOException {
        try (exchange) {
            String answer;
            int status = 200;
            try {
                answer = answer(
                        exchange.getRequestURI().getPath(),
                        exchange.getRequestURI().getQuery());
            } catch (Exception e) {
                status = 500;
                answer = "{\"error\":\"" + String.valueOf(e).replace("\"", "'") + "\"}";
            }
            byte[] bytes = answer.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    private String answer(String path, String query) throws Exception {
        return switch (path) {
            case "/bench/write" -> {
                long seq = Long.parseLong(param(query, "seq"));
                int from = Integer.parseInt(param(query, "from"));
                int to = Integer.parseInt(param(query, "to"));
                boolean stall = "1".equals(param(query, "stall"));
                if (stall) {
                    api.faults().stall(Duration.ofMinutes(10), "configmaps");
                }
                long t0 = System.nanoTime();
                AtomicInteger next = new AtomicInteger(from);
                try {
                    runWriters(() -> {
                        for (int i; (i = next.getAndIncrement()) < to; ) {
                            write(ControllerBench.name(i), seq);
                        }
                    });
                } catch (Exception e) {
                    if (stall) {
                        // a failed round must not leave the watches stalled: the next runner would wait forever
                        api.faults().clear();
                    }
                    throw e;
                }
                double seconds = (System.nanoTime() - t0) / 1e9;
                yield String.format(
                        Locale.ROOT,
                        "{\"writes\":%d,\"seconds\":%.3f,\"perSecond\":%.1f}",
                        to - from,
                        seconds,
                        (to - from) / seconds);
            }
            case "/bench/release" -> "{\"cleared\":" + api.faults().clear() + "}";
            case "/bench/load" -> {
                double rate = Double.parseDouble(param(query, "rate"));
                if (rate > 0) {
                    load.start(rate);
                    yield "{\"started\":" + rate + "}";
                }
                yield load.stop();
            }
            default -> throw new IllegalArgumentException("unknown control path " + path);
        };
    }

    /** Runs {@value #WRITERS} virtual threads of {@code body} and waits for them; the first failure is thrown. */
    private static void runWriters(ThrowingRunnable body) throws Exception {
        List<Thread> threads = new ArrayList<>();
        List<Exception> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int w = 0; w < WRITERS; w++) {
            threads.add(Thread.ofVirtual().name("writer-" + w).start(() -> {
                try {
                    body.run();
                } catch (Exception e) {
                    failures.add(e);
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        if (!failures.isEmpty()) {
            throw failures.get(0);
        }
    }

    private static String param(String query, String name) {
        if (query != null) {
            for (String p : query.split("&")) {
                if (p.startsWith(name + "=")) {
                    return p.substring(name.length() + 1);
                }
            }
        }
        throw new IllegalArgumentException("missing query parameter " + name);
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }
}
