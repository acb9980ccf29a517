package io.kubeloop.bench;

import io.kubeloop.apiserver.EmbeddedApiServer;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * Watch fan-out: {@code watchers} HTTP watches (each on its own virtual thread, reading lines) on one
 * resource; one operation is one write (a merge patch of a ConfigMap) <em>delivered to every watcher</em>.
 * Events per second delivered = score × watchers.
 */
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
public class WatchFanOutBenchmark {

    @Param({"100"})
    public int watchers;

    EmbeddedApiServer server;
    final HttpClient http = HttpClient.newHttpClient();
    final AtomicLong delivered = new AtomicLong();
    final List<InputStream> streams = new ArrayList<>();
    long writes;
    URI object;

    @Setup(Level.Trial)
    public void start() throws Exception {
        server = EmbeddedApiServer.builder().start();
        URI collection = URI.create(server.url() + "/api/v1/namespaces/default/configmaps");
        HttpResponse<String> created = http.send(
                HttpRequest.newBuilder(collection)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(
                                "{\"metadata\":{\"name\":\"fan\"},\"data\":{\"n\":\"0\"}}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        String rv = created.body().replaceAll("(?s).*\"resourceVersion\":\"(\\d+)\".*", "$1");
        object = URI.create(collection + "/fan");
        for (int i = 0; i < watchers; i++) {
            HttpResponse<InputStream> watch = http.send(
                    HttpRequest.newBuilder(URI.create(collection + "?watch=true&resourceVersion=" + rv))
                            .build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            InputStream in = watch.body();
            streams.add(in);
            Thread.ofVirtual().start(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                    while (r.readLine() != null) {
                        delivered.incrementAndGet();
                    }
                } catch (Exception closed) {
                    // the trial ended
                }
            });
        }
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
        for (InputStream in : streams) {
            in.close();
        }
        server.close();
    }

    @Benchmark
    public long writeAndFanOut() throws Exception {
        long n = ++writes;
        HttpResponse<Void> r = http.send(
                HttpRequest.newBuilder(object)
                        .header("Content-Type", "application/merge-patch+json")
                        .method("PATCH", HttpRequest.BodyPublishers.ofString("{\"data\":{\"n\":\"" + n + "\"}}"))
                        .build(),
                HttpResponse.BodyHandlers.discarding());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("patch answered " + r.statusCode());
        }
        long target = n * watchers;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (delivered.get() < target) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("only " + delivered.get() + " of " + target + " events delivered");
            }
            LockSupport.parkNanos(2_000);
        }
        return target;
    }
}
