package io.kubeloop.bench.informer;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Background write load on the embedded API server: merge patches of an annotation on {@code objects} small
 * "load" pods or ConfigMaps ({@code load-0000}, ...), round robin, at a target rate, from {@code writers} virtual threads each pacing its own share. Runs
 * in the server's JVM, so its CPU is not counted in the measured client's process. The rate actually reached is
 * reported: the server's write path may not sustain the target on a shared machine.
 */
public final class LoadGenerator {

    private static final int WRITERS = 16;

    private final HttpClient http;
    private final URI api;
    private final String namespace;
    private final int objects;
    private final String plural;
    private final AtomicLong writes = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private volatile boolean running;
    private List<Thread> threads = List.of();
    private long startedNanos;
    private long stoppedNanos;

    /** Load on {@code objects} pods named {@code load-0000}, ... in {@code namespace}. */
    public LoadGenerator(HttpClient http, URI api, String namespace, int objects) {
        this(http, api, namespace, objects, "pods");
    }

    /** Load on {@code objects} objects of {@code plural} ({@code pods} or {@code configmaps}). */
    public LoadGenerator(HttpClient http, URI api, String namespace, int objects, String plural) {
        if (!plural.equals("pods") && !plural.equals("configmaps")) {
            throw new IllegalArgumentException("plural must be pods or configmaps: " + plural);
        }
        this.http = http;
        this.api = api;
        this.namespace = namespace;
        this.objects = objects;
        this.plural = plural;
    }

    /** Creates the load objects (once). */
    public void createObjects() throws Exception {
        for (int i = 0; i < objects; i++) {
            String body = plural.equals("pods") ? """
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"load-%04d","labels":{"app":"load"}},\
                "spec":{"containers":[{"name":"c","image":"registry.example.com/load:1"}]}}""".formatted(i) : """
                {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"load-%04d","labels":{"app":"load"}},\
                "data":{"k":"v"}}""".formatted(i);
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(URI.create(api + "/api/v1/namespaces/" + namespace + "/" + plural))
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(body))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 201) {
                throw new IllegalStateException("create of load object " + i + " answered " + r.statusCode());
            }
        }
    }

    /** Starts (or restarts) the writers at {@code perSecond} writes per second in total. */
    public synchronized void start(double perSecond) {
        stop();
        running = true;
        writes.set(0);
        failures.set(0);
        startedNanos = System.nanoTime();
        long intervalNanos = (long) (1e9 * WRITERS / perSecond);
        List<Thread> started = new ArrayList<>();
        for (int w = 0; w < WRITERS; w++) {
            int writer = w;
            started.add(Thread.ofVirtual().name("load-writer-" + w).start(() -> run(writer, intervalNanos)));
        }
        threads = started;
    }

    private void run(int writer, long intervalNanos) {
        long next = startedNanos + intervalNanos * writer / WRITERS;
        for (long n = writer; running; n += WRITERS) {
            long wait = next - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
                continue;
            }
            next += intervalNanos;
            String name = String.format("load-%04d", n % objects);
            try {
                HttpResponse<Void> r = http.send(
                        HttpRequest.newBuilder(
                                        URI.create(api + "/api/v1/namespaces/" + namespace + "/" + plural + "/" + name))
                                .header("Content-Type", "application/merge-patch+json")
                                .method(
                                        "PATCH",
                                        HttpRequest.BodyPublishers.ofString(
                                                "{\"metadata\":{\"annotations\":{\"bench/load\":\"" + n + "\"}}}"))
                                .build(),
                        HttpResponse.BodyHandlers.discarding());
                (r.statusCode() == 200 ? writes : failures).incrementAndGet();
            } catch (Exception e) {
                failures.incrementAndGet();
            }
        }
    }

    /** Stops the writers; returns the writes per second reached since start. */
    public synchronized String stop() {
        if (!running) {
            return report();
        }
        running = false;
        for (Thread t : threads) {
            try {
                t.join(TimeUnit.SECONDS.toMillis(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        stoppedNanos = System.nanoTime();
        return report();
    }

    /** The writes, failures and writes per second reached since the last start, as JSON. */
    public synchronized String report() {
        long end = running ? System.nanoTime() : stoppedNanos;
        double seconds = Math.max(1e-9, (end - startedNanos) / 1e9);
        return "{\"writes\":" + writes.get() + ",\"failures\":" + failures.get() + ",\"seconds\":"
                + String.format("%.3f", seconds) + ",\"perSecond\":" + String.format("%.1f", writes.get() / seconds)
                + "}";
    }
}
