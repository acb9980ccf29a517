package io.kubeloop.bench.controller;

import static io.kubeloop.bench.ProcessMeasures.arg;
import static io.kubeloop.bench.ProcessMeasures.cpuNanos;
import static io.kubeloop.bench.ProcessMeasures.intArg;
import static io.kubeloop.bench.ProcessMeasures.json;
import static io.kubeloop.bench.ProcessMeasures.seconds;
import static io.kubeloop.bench.ProcessMeasures.usedAfterGc;

import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The measured process of the controller benchmark ({@code BENCHMARKS.md}, "Controllers"): one JVM per (runner,
 * repeat), against a {@link ControllerBenchServer} in another JVM. Uses the JDK only (it runs on the Java
 * Operator SDK's class path too). Prints one line {@code RESULT {json}}. In order:
 *
 * <ol>
 *   <li><b>sync</b>: start → first reconcile entered, and → every one of the {@code --objects} ConfigMaps
 *       reconciled once (the initial flood); process CPU over that; then the heap in use after GC, in total and
 *       less the same measured before the library was touched;</li>
 *   <li><b>burst</b>: the server writes {@code data.seq = 1} into every object as fast as it takes writes; from
 *       just before the request to the reconcile of the last object at seq 1 (so bounded below by the server's
 *       write rate: the lag after the last write says whether the controller kept up);</li>
 *   <li><b>held burst</b>: the same with {@code seq = 2}, in rounds of {@code --round} objects whose watch events
 *       the server holds until all of the round is written, then releases at once; the sum over rounds of
 *       release → last reconcile of the round is the controller's own drain time (watch decoding, cache, queue,
 *       workers), free of the write path;</li>
 *   <li><b>latency</b> (if {@code --latency-writes W > 0}): W/2 merge patches of the latency ConfigMap one after
 *       another, each timed from just before its PATCH (sent from this process) to the entry of the first
 *       reconcile that reads it from the cache; then W/2 more under {@code --load} background writes per second
 *       on other watched ConfigMaps.</li>
 * </ol>
 */
public final class ControllerBench {

    /** The namespace of every benchmark object. */
    public static final String NAMESPACE = "bench";
    /** The ConfigMap the latency writes patch. */
    public static final String LATENCY_OBJECT = "latency";

    private static final Duration PHASE_LIMIT = Duration.ofMinutes(5);
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private ControllerBench() {}

    static String name(int i) {
        return String.format("cm-%05d", i);
    }

    public static void main(String[] args) {
        try {
            run(args);
        } catch (Throwable t) {
            // Exit whatever threads the library left running (a non-daemon one would keep this JVM up).
            t.printStackTrace();
            System.exit(1);
        }
    }

    private static void run(String[] args) throws Exception {
        String runner = arg(args, "--runner", null);
        String url = arg(args, "--url", null);
        String control = arg(args, "--control", null);
        int objects = intArg(args, "--objects", 10_000);
        int workersArg = intArg(args, "--workers", 0);
        int round = intArg(args, "--round", 900);
        int latencyWrites = intArg(args, "--latency-writes", 0);
        int load = intArg(args, "--load", 1_000);
        String phases = arg(args, "--phases", "sync burst held");
        if (runner == null || url == null || control == null) {
            throw new IllegalArgumentException(
                    "usage: --runner client-java|josdk|kubeloop --url API --control URL [--objects N] [--workers W]"
                            + " [--round R] [--latency-writes W] [--load R] [--phases 'sync burst held latency']");
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("runner", runner);
        result.put("objects", objects);
        result.put("args", String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));

        long heapBefore = usedAfterGc();
        ControllerUnderTest controller = create(runner);
        int workers = workersArg > 0 ? workersArg : controller.defaultWorkers();
        result.put("workers", workers);
        Tally tally = new Tally(objects, latencyWrites);
        tally.expect(0, objects);
        long cpu0 = cpuNanos();
        long t0 = System.nanoTime();
        controller.start(url, workers, tally);
        await("the first reconcile", () -> tally.firstAt() != 0);
        await(
                "the initial reconcile of " + objects + " objects",
                () -> tally.allReachedAt() != 0,
                () -> tally.reached() + " reached");
        long synced = tally.allReachedAt();
        result.put("firstReconcileSeconds", seconds(tally.firstAt() - t0));
        result.put("syncSeconds", seconds(synced - t0));
        result.put("syncCpuSeconds", seconds(cpuNanos() - cpu0));
        result.put("syncReconciles", tally.reconciles());
        result.put("syncReconcilesPerSecond", perSecond(objects, synced - tally.firstAt()));
        long heapAfter = usedAfterGc();
        result.put("heapAfterGcBytes", heapAfter);
        result.put("heapBytesPerObject", (heapAfter - heapBefore) / objects);

        // The objects keep the seqs of earlier runs: this run's are larger (and a patch to an equal value would
        // be a no-op that the server does not send as an event).
        long burstSeq = System.currentTimeMillis();
        long heldSeq = burstSeq + 1;
        long latencySeq = burstSeq + 2;
        if (phases.contains("burst")) {
            long r0 = tally.reconciles();
            long cpu1 = cpuNanos();
            tally.expect(burstSeq, objects);
            long b0 = System.nanoTime();
            String written = post(control + "/bench/write?seq=" + burstSeq + "&from=0&to=" + objects + "&stall=0");
            long w1 = System.nanoTime();
            await(
                    "the burst's " + objects + " reconciles",
                    () -> tally.allReachedAt() != 0,
                    () -> tally.reached() + " reached, " + tally.reconciles() + " reconciles in all, "
                            + tally.histogram());
            long b1 = tally.allReachedAt();
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("seconds", seconds(b1 - b0));
            m.put("writeSeconds", seconds(w1 - b0));
            m.put("lagAfterLastWriteSeconds", seconds(Math.max(0, b1 - w1)));
            m.put("reconciles", tally.reconciles() - r0);
            m.put("objectsPerSecond", perSecond(objects, b1 - b0));
            m.put("cpuSeconds", seconds(cpuNanos() - cpu1));
            m.put("server", written);
            result.put("burst", m);
        }
        if (phases.contains("held")) {
            long r0 = tally.reconciles();
            long cpu1 = cpuNanos();
            long drain = 0;
            int rounds = 0;
            for (int from = 0; from < objects; from += round, rounds++) {
                int to = Math.min(objects, from + round);
                tally.expect(heldSeq, to - from);
                post(control + "/bench/write?seq=" + heldSeq + "&from=" + from + "&to=" + to + "&stall=1");
                long h0 = System.nanoTime();
                post(control + "/bench/release");
                int f = from;
                await(
                        "held round from " + f,
                        () -> tally.allReachedAt() != 0,
                        () -> tally.reached() + " reached, " + tally.reconciles() + " reconciles in all, "
                                + tally.histogram());
                drain += tally.allReachedAt() - h0;
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("rounds", rounds);
            m.put("drainSeconds", seconds(drain));
            m.put("reconciles", tally.reconciles() - r0);
            m.put("objectsPerSecond", perSecond(objects, drain));
            m.put("reconcilesPerSecond", perSecond(tally.reconciles() - r0, drain));
            m.put("cpuSecondsWithWrites", seconds(cpuNanos() - cpu1));
            result.put("held", m);
        }
        if (phases.contains("latency") && latencyWrites > 1) {
            int half = latencyWrites / 2;
            tally.latencyBase(latencySeq);
            result.put("atRest", latencies(url, tally, latencySeq, 0, half));
            post(control + "/bench/load?rate=" + load);
            LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(2)); // let the load settle
            Map<String, Object> underLoad = latencies(url, tally, latencySeq, half, 2 * half);
            underLoad.put("load", post(control + "/bench/load?rate=0"));
            result.put("underLoad", underLoad);
        }
        result.put("totalCpuSeconds", seconds(cpuNanos() - cpu0));
        result.put("totalReconciles", tally.reconciles());
        System.out.println("RESULT " + json(result));
        System.out.flush();
        // No orderly close: the process ends here, and closing some of the libraries waits on open watches.
        System.exit(0);
    }

    private static ControllerUnderTest create(String runner) throws ReflectiveOperationException {
        String className =
                switch (runner) {
                    case "client-java" -> "io.kubeloop.bench.controller.ClientJavaController";
                    case "josdk" -> "io.kubeloop.bench.controller.JosdkController";
                    case "kubeloop" -> "io.kubeloop.bench.controller.KubeloopController";
                    default -> throw new IllegalArgumentException("--runner must be client-java, josdk or kubeloop");
                };
        // By name: the JOSDK JVM has neither client-java nor kubeloop on its class path.
        return (ControllerUnderTest)
                Class.forName(className).getDeclaredConstructor().newInstance();
    }

    /**
     * Writes [from, to) one after another (write i sets seq {@code base + i}); each waits for its reconcile (at
     * most 10 s), then 10 ms.
     */
    private static Map<String, Object> latencies(String url, Tally tally, long base, int from, int to)
            throws Exception {
        long[] micros = new long[to - from];
        int lost = 0;
        URI object = URI.create(url + "/api/v1/namespaces/" + NAMESPACE + "/configmaps/" + LATENCY_OBJECT);
        for (int i = from; i < to; i++) {
            long sent = System.nanoTime();
            HttpResponse<Void> r = HTTP.send(
                    HttpRequest.newBuilder(object)
                            .header("Content-Type", "application/merge-patch+json")
                            .method(
                                    "PATCH",
                                    HttpRequest.BodyPublishers.ofString("{\"data\":{\"seq\":\"" + (base + i) + "\"}}"))
                            .build(),
                    HttpResponse.BodyHandlers.discarding());
            if (r.statusCode() != 200) {
                throw new IllegalStateException("latency write " + i + " answered " + r.statusCode());
            }
            long deadline = sent + TimeUnit.SECONDS.toNanos(10);
            while (tally.latencyArrival(i) == 0 && System.nanoTime() < deadline) {
                LockSupport.parkNanos(50_000);
            }
            long arrived = tally.latencyArrival(i);
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
        HttpResponse<String> r = HTTP.send(
                HttpRequest.newBuilder(URI.create(uri))
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException(uri + " answered " + r.statusCode() + ": " + r.body());
        }
        return r.body();
    }

    /** Polls every millisecond, for at most {@link #PHASE_LIMIT}. */
    private static void await(String what, BooleanSupplier done) {
        await(what, done, () -> "");
    }

    /** {@link #await(String, BooleanSupplier)} that says how far it got when it gives up. */
    private static void await(String what, BooleanSupplier done, java.util.function.Supplier<String> progress) {
        long deadline = System.nanoTime() + PHASE_LIMIT.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no " + what + " within " + PHASE_LIMIT + " (" + progress.get() + ")");
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    private static long perSecond(long count, long nanos) {
        return nanos <= 0 ? 0 : Math.round(count / (nanos / 1e9));
    }
}
