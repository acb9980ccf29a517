package io.kubeloop.bench.informer;

import static io.kubeloop.bench.ProcessMeasures.cpuNanos;
import static io.kubeloop.bench.ProcessMeasures.json;
import static io.kubeloop.bench.ProcessMeasures.seconds;
import static io.kubeloop.bench.ProcessMeasures.usedAfterGc;

import io.kubeloop.bench.ClientPods;
import io.kubeloop.client.codec.Decoding;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The measured process of the informer benchmark: one JVM per (runner, phase, N) run, against an
 * {@link InformerBenchServer} in another JVM. Prints one line {@code RESULT {json}}.
 *
 * <ul>
 *   <li>{@code --phase sync}: start → the library's hasSynced (and → the N-th onAdd), then the retained heap
 *       per cached pod: heap used after 4 × {@code System.gc()}, minus the same before the client existed,
 *       divided by N;</li>
 *   <li>{@code --phase burst}: sync, then ask the replay server for its burst of MODIFIED events and time from
 *       that request to the handler's sight of the burst's last resourceVersion;</li>
 *   <li>{@code --phase latency}: sync against the embedded API server, then {@code --writes} merge patches of
 *       one pod's annotation, one after another, each timed from just before the PATCH to its arrival in the
 *       handler; first at rest, then with {@code --load} background writes per second running on the server.</li>
 * </ul>
 */
public final class InformerBenchRunner {

    private static final Duration PHASE_LIMIT = Duration.ofMinutes(10);

    private InformerBenchRunner() {}

    public static void main(String[] args) throws Exception {
        String runner = InformerBenchServer.arg(args, "--runner", "baseline");
        String phase = InformerBenchServer.arg(args, "--phase", "sync");
        String url = InformerBenchServer.arg(args, "--url", null);
        String control = InformerBenchServer.arg(args, "--control", url);
        int pods = InformerBenchServer.intArg(args, "--pods", 10_000);
        int events = InformerBenchServer.intArg(args, "--events", 100_000);
        int writes = InformerBenchServer.intArg(args, "--writes", 200);
        int load = InformerBenchServer.intArg(args, "--load", 5_000);
        String lastRv = Integer.toString(pods + events);
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("runner", runner);
        result.put("phase", phase);
        result.put("pods", pods);
        result.put("data", InformerBenchServer.arg(args, "--data", "replay"));
        result.put("args", String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));

        long heapBefore = usedAfterGc();
        Deliveries deliveries = new Deliveries(phase.equals("latency") ? -1 : pods, lastRv, writes);
        InformerUnderTest informer = create(runner);
        long cpu0 = cpuNanos();
        long t0 = System.nanoTime();
        informer.start(url, deliveries);
        await("synced", informer::hasSynced);
        long synced = System.nanoTime();
        long cpuSynced = cpuNanos();
        result.put("syncSeconds", seconds(synced - t0));
        result.put("syncCpuSeconds", seconds(cpuSynced - cpu0));
        if (!phase.equals("latency")) {
            await(pods + " adds", () -> deliveries.allAddsAt != 0);
            result.put("addsSeconds", seconds(deliveries.allAddsAt - t0));
            result.put("cached", informer.cacheSize());
        }
        switch (phase) {
            case "sync" -> {
                long heapAfter = usedAfterGc();
                result.put("heapBytesPerPod", (heapAfter - heapBefore) / pods);
                result.put("cachedAfterGc", informer.cacheSize());
            }
            case "burst" -> {
                long cpu1 = cpuNanos();
                long b0 = System.nanoTime();
                post(control + "/bench/burst");
                await("the burst's last resourceVersion " + lastRv, () -> deliveries.lastResourceVersionAt != 0);
                long b1 = deliveries.lastResourceVersionAt;
                result.put("burstSeconds", seconds(b1 - b0));
                result.put("eventsPerSecond", Math.round(events / ((b1 - b0) / 1e9)));
                result.put("burstCpuSeconds", seconds(cpuNanos() - cpu1));
                result.put("updatesDelivered", deliveries.updates.get());
            }
            case "latency" -> {
                HttpClient http = HttpClient.newHttpClient();
                int half = writes / 2;
                result.put("atRest", latencies(http, url, deliveries, 0, half));
                post(control + "/bench/load?rate=" + load);
                LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(2)); // let the load settle
                Map<String, Object> underLoad = latencies(http, url, deliveries, half, writes);
                underLoad.put("load", post(control + "/bench/load?rate=0"));
                result.put("underLoad", underLoad);
            }
            default -> throw new IllegalArgumentException("--phase must be sync, burst or latency: " + phase);
        }
        System.out.println("RESULT " + json(result));
        System.out.flush();
        java.lang.ref.Reference.reachabilityFence(informer);
        // No close: the replay server holds watches open, and closing kubeloop's client (HttpClient.close) waits
        // for them to end even after Watch.close(); the process ends here anyway.
        System.exit(0);
    }

    static InformerUnderTest create(String runner) {
        return switch (runner) {
            case "baseline" -> new BaselineInformer(() -> Decoding.standard());
            case "baseline-compact" -> new BaselineInformer(() -> Decoding.compact());
            case "baseline-nomf" ->
                new BaselineInformer(() -> Decoding.standard().withoutManagedFields());
            case "baseline-compact-nomf" ->
                new BaselineInformer(() -> Decoding.compact().withoutManagedFields());
            case "fabric8" -> new Fabric8Informer();
            case "client-java" -> new ClientJavaInformer();
            case "kubeloop-manager" -> new ManagerCacheInformer();
            default -> KubeloopInformer.variant(runner);
        };
    }

    /** Writes [from, to) one after another; each waits for its arrival (at most 10 s), then 10 ms. */
    private static Map<String, Object> latencies(HttpClient http, String url, Deliveries deliveries, int from, int to)
            throws Exception {
        long[] micros = new long[to - from];
        int lost = 0;
        URI pod = URI.create(url + "/api/v1/namespaces/" + ClientPods.NAMESPACE + "/pods/" + Deliveries.LATENCY_POD);
        for (int i = from; i < to; i++) {
            long sent = System.nanoTime();
            HttpResponse<Void> r = http.send(
                    HttpRequest.newBuilder(pod)
                            .header("Content-Type", "application/merge-patch+json")
                            .method(
                                    "PATCH",
                                    HttpRequest.BodyPublishers.ofString("{\"metadata\":{\"annotations\":{\""
                                            + Deliveries.SEQ_ANNOTATION + "\":\"" + i + "\"}}}"))
                            .build(),
                    HttpResponse.BodyHandlers.discarding());
            if (r.statusCode() != 200) {
                throw new IllegalStateException("latency write " + i + " answered " + r.statusCode());
            }
            long deadline = sent + TimeUnit.SECONDS.toNanos(10);
            while (deliveries.arrivals.get(i) == 0 && System.nanoTime() < deadline) {
                LockSupport.parkNanos(50_000);
            }
            long arrived = deliveries.arrivals.get(i);
            if (arrived == 0) {
                lost++;
                micros[i - from] = Long.MAX_VALUE;
            } else {
                micros[i - from] = (arrived - sent) / 1_000;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
        Arrays.sort(micros);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("writes", to - from);
        m.put("lost", lost);
        m.put("p50Millis", micros[micros.length / 2] / 1000.0);
        m.put("p99Millis", micros[(int) Math.ceil(micros.length * 0.99) - 1] / 1000.0);
        m.put("maxMillis", micros[micros.length - 1] / 1000.0);
        return m;
    }

    private static String post(String uri) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(uri))
                                .POST(HttpRequest.BodyPublishers.noBody())
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException(uri + " answered " + r.statusCode());
        }
        return r.body();
    }

    /** Polls every millisecond, for at most {@link #PHASE_LIMIT}. */
    private static void await(String what, BooleanSupplier done) {
        long deadline = System.nanoTime() + PHASE_LIMIT.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no " + what + " within " + PHASE_LIMIT);
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    static String format(double d) {
        return String.format(Locale.ROOT, "%.3f", d);
    }
}
