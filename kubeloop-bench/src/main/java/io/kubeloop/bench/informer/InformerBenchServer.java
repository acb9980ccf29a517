package io.kubeloop.bench.informer;

import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.bench.ClientPods;
import io.kubeloop.bench.ProcessMeasures;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/**
 * The server process of the informer benchmark (see {@code BENCHMARKS.md}, "Informers"): its CPU and heap are
 * not in the measured client's process. It starts the embedded API server with {@code --seeds} realistic pods
 * ({@code ClientPods}, created over HTTP, so with the managedFields the server records), then records them and
 * serves, from the same process:
 *
 * <ul>
 *   <li>the embedded API server itself (the latency runs: real writes, real watch events);</li>
 *   <li>a {@link ReplayServer} with a PodList of {@code --pods} pods built from the recorded ones and a burst of
 *       {@code --events} MODIFIED events, once with managedFields and once without;</li>
 *   <li>{@code /bench/load?rate=R} (start background writes at R per second on the API server; 0 stops them)
 *       and {@code /bench/load-report} on the replay server.</li>
 * </ul>
 *
 * <p>Prints one line {@code READY api=... replay=... replayNoManagedFields=... lastResourceVersion=...} (also to
 * {@code --ready-file}) and serves until its standard input ends.
 */
public final class InformerBenchServer {

    private InformerBenchServer() {}

    public static void main(String[] args) throws Exception {
        int pods = intArg(args, "--pods", 10_000);
        int events = intArg(args, "--events", 100_000);
        int seeds = intArg(args, "--seeds", 1_000);
        String readyFile = arg(args, "--ready-file", null);
        try (EmbeddedApiServer api =
                EmbeddedApiServer.builder().historyLimit(100_000).start()) {
            long t0 = System.nanoTime();
            ClientPods.populate(api, seeds);
            List<ObjectNode> recorded = ClientPods.listItems(api);
            HttpClient http = HttpClient.newHttpClient();
            LoadGenerator load = new LoadGenerator(http, api.url(), ClientPods.NAMESPACE, 200);
            load.createObjects();
            ReplayData data = ReplayData.build(
                    recorded,
                    pods,
                    events,
                    args.length > 0 && java.util.Arrays.asList(args).contains("--unique-managed-fields"));
            java.util.function.Function<String, byte[]> control = path -> {
                String answer = null;
                if (path.startsWith("/bench/load?")) {
                    double rate = Double.parseDouble(ReplayServer.param(path.substring(path.indexOf('?') + 1), "rate"));
                    answer = rate > 0 ? startLoad(load, rate) : load.stop();
                } else if (path.startsWith("/bench/load-report")) {
                    answer = load.report();
                }
                return answer == null ? null : answer.getBytes(StandardCharsets.UTF_8);
            };
            try (ReplayServer with = ReplayServer.start(data, true, control);
                    ReplayServer without = ReplayServer.start(data, false, control)) {
                String ready = "READY api=" + api.url() + " replay=" + with.url() + " replayNoManagedFields="
                        + without.url() + " pods=" + pods + " events=" + events + " lastResourceVersion="
                        + data.lastResourceVersion() + " listBytes=" + data.listWithManagedFields.length
                        + " listBytesNoManagedFields=" + data.listWithoutManagedFields.length + " burstBytes="
                        + data.burst.length + " setupSeconds=" + (System.nanoTime() - t0) / 1_000_000_000;
                if (readyFile != null) {
                    Files.writeString(Path.of(readyFile), ready + "\n");
                }
                System.out.println(ready);
                System.out.flush();
                InputStream in = System.in;
                while (in.read() >= 0) {
                    // serve until stdin ends
                }
                load.stop();
            }
        }
    }

    private static String startLoad(LoadGenerator load, double rate) {
        load.start(rate);
        return "{\"started\":" + rate + "}";
    }

    static String arg(String[] args, String name, String fallback) {
        return ProcessMeasures.arg(args, name, fallback);
    }

    static int intArg(String[] args, String name, int fallback) {
        return ProcessMeasures.intArg(args, name, fallback);
    }
}
