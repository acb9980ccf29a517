package io.kubeloop.bench;

import io.kubeloop.apiserver.EmbeddedApiServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The embedded API server over real HTTP on loopback, measured from a client in the same JVM (so allocation
 * figures from {@code -prof gc} include the client's reading of the response).
 *
 * <ul>
 *   <li>{@code startToFirstRequest}: build and start a server, answer {@code GET /version} (sent over a raw
 *       socket), close it. Run
 *       with {@code -bm ss -f 10 -wi 0 -i 1} for the cold start of a fresh JVM, which is what a test suite
 *       pays once; with warm-up iterations for the cost when the classes are loaded.</li>
 *   <li>{@code create_*}: {@code POST} of a small ConfigMap with a fresh name, by 1 or 4 client threads.</li>
 *   <li>{@code list}: {@code GET} of all pods of a namespace holding {@code pods} pods (10,000 or 100,000,
 *       created once per trial), the body read to the end and discarded.</li>
 * </ul>
 */
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class ApiServerBenchmark {

    static final HttpClient HTTP = HttpClient.newHttpClient();

    static HttpResponse<InputStream> send(HttpRequest request) throws IOException, InterruptedException {
        return HTTP.send(request, HttpResponse.BodyHandlers.ofInputStream());
    }

    /** Reads a body to the end; returns its length. */
    static long drain(HttpResponse<InputStream> r) throws IOException {
        try (InputStream in = r.body()) {
            byte[] buf = new byte[64 * 1024];
            long n = 0;
            for (int k; (k = in.read(buf)) >= 0; ) {
                n += k;
            }
            return n;
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    public String startToFirstRequest() throws Exception {
        try (EmbeddedApiServer server = EmbeddedApiServer.builder().start();
                Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            // A raw HTTP/1.1 request, so that a cold run measures the server, not the loading of an HTTP client.
            OutputStream out = socket.getOutputStream();
            out.write("GET /version HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String status = new BufferedReader(
                            new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII))
                    .readLine();
            if (status == null || !status.startsWith("HTTP/1.1 200")) {
                throw new IllegalStateException("GET /version answered " + status);
            }
            return status;
        }
    }

    @State(Scope.Benchmark)
    public static class Running {
        EmbeddedApiServer server;
        final AtomicLong names = new AtomicLong();

        @Setup(Level.Trial)
        public void start() {
            server = EmbeddedApiServer.builder().start();
        }

        @TearDown(Level.Trial)
        public void stop() {
            server.close();
        }
    }

    private static long create(Running s) throws Exception {
        return post(
                s,
                "configmaps",
                "{\"metadata\":{\"name\":\"cm-" + s.names.incrementAndGet() + "\"},\"data\":{\"k\":\"v\"}}");
    }

    /** POSTs {@code body} to {@code resource} in the default namespace; anything but 201 fails the benchmark. */
    private static long post(Running s, String resource, String body) throws Exception {
        HttpResponse<InputStream> r =
                send(HttpRequest.newBuilder(URI.create(s.server.url() + "/api/v1/namespaces/default/" + resource))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build());
        if (r.statusCode() != 201) {
            throw new IllegalStateException("create answered " + r.statusCode());
        }
        return drain(r);
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    @Threads(1)
    public long create_1client(Running s) throws Exception {
        return create(s);
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    @Threads(4)
    public long create_4clients(Running s) throws Exception {
        return create(s);
    }

    /**
     * A pod as users write one (name, labels, one container with a port), so a create pays for everything a
     * write of a built-in kind goes through: decoding, type checking, defaulting, validation, storage.
     */
    private static long createPod(Running s) throws Exception {
        return post(
                s,
                "pods",
                "{\"metadata\":{\"name\":\"pod-" + s.names.incrementAndGet()
                        + "\",\"labels\":{\"app\":\"web\"}},\"spec\":{\"containers\":[{\"name\":\"nginx\","
                        + "\"image\":\"nginx:1.27\",\"ports\":[{\"containerPort\":80}],\"resources\":{\"requests\":"
                        + "{\"cpu\":\"100m\",\"memory\":\"64Mi\"}}}]}}");
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    @Threads(1)
    public long createPod_1client(Running s) throws Exception {
        return createPod(s);
    }

    @State(Scope.Benchmark)
    public static class Populated {
        @Param({"10000", "100000"})
        public int pods;

        EmbeddedApiServer server;

        @Setup(Level.Trial)
        public void start() throws Exception {
            server = EmbeddedApiServer.builder().start();
            String prefix = "{\"metadata\":{\"name\":\"pod-";
            String suffix =
                    "\",\"labels\":{\"app\":\"web\"}},\"spec\":{\"nodeName\":\"node-1\",\"containers\":[{\"name\":"
                            + "\"nginx\",\"image\":\"nginx:1.27\",\"ports\":[{\"containerPort\":80}]}]},\"status\":{\"phase\":"
                            + "\"Running\",\"podIP\":\"10.0.0.1\"}}";
            URI pods = URI.create(server.url() + "/api/v1/namespaces/default/pods");
            for (int i = 0; i < this.pods; i++) {
                HttpResponse<Void> r = HTTP.send(
                        HttpRequest.newBuilder(pods)
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(prefix + i + suffix))
                                .build(),
                        HttpResponse.BodyHandlers.discarding());
                if (r.statusCode() != 201) {
                    throw new IllegalStateException("create answered " + r.statusCode());
                }
                // a create starts the pod Pending, as kube-apiserver does: the running status is a /status write
                HttpResponse<Void> status = HTTP.send(
                        HttpRequest.newBuilder(URI.create(pods + "/pod-" + i + "/status"))
                                .header("Content-Type", "application/json")
                                .PUT(HttpRequest.BodyPublishers.ofString(prefix + i + suffix))
                                .build(),
                        HttpResponse.BodyHandlers.discarding());
                if (status.statusCode() != 200) {
                    throw new IllegalStateException("status update answered " + status.statusCode());
                }
            }
        }

        @TearDown(Level.Trial)
        public void stop() {
            server.close();
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    public long list(Populated s) throws Exception {
        HttpResponse<InputStream> r =
                send(HttpRequest.newBuilder(URI.create(s.server.url() + "/api/v1/namespaces/default/pods"))
                        .build());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("list answered " + r.statusCode());
        }
        return drain(r);
    }
}
