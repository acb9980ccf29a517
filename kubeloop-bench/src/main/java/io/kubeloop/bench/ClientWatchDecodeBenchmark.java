package io.kubeloop.bench;

import com.google.gson.reflect.TypeToken;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.resource.ResourceClient;
import io.kubeloop.client.resource.WatchOptions;
import io.kubeloop.client.watch.Watch;
import io.kubeloop.client.watch.WatchEvent;
import io.kubeloop.client.watch.WatchEventDecoder;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.util.ClientBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import okhttp3.Call;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Decoding a watch stream of 100,000 pod events into typed pods, with kubeloop, fabric8's client 8.0.0 and the
 * official Java client 24.0.0, side by side; the score is events per second.
 *
 * <p>To measure decoding rather than the server's event fan-out, the stream is recorded once per trial: 1,000
 * realistic pods ({@link ClientPods}) are created in the embedded API server and listed back, and 100,000 watch
 * events (1,000 ADDED, then 99,000 MODIFIED cycling through the pods, each with its own resourceVersion; one
 * compact event per line, as kube-apiserver writes them; about 630 MB, 6.3 KB per event with managedFields) are built from them. A tiny JDK HTTP server
 * answers every watch request with those bytes, chunked, over loopback; each library reads them through its own
 * HTTP watch path. fabric8 tries a WebSocket first; the server refuses it the way the embedded API server does
 * (an empty, finished 200), and fabric8 falls back to its HTTP watch.
 *
 * <p>kubeloop: {@code kubeloop_watch} is {@code ResourceClient.watch(...)}, what a caller uses (the transport, a
 * reading thread and a bounded queue); {@code kubeloop_decoder} is the bare {@link WatchEventDecoder} on the
 * caller's thread over a raw {@link HttpClient} response body, to show what the reading thread costs.
 */
@Fork(value = 1, jvmArgsAppend = "-Xmx6g")
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 3, time = 5)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ClientWatchDecodeBenchmark {

    static final int EVENTS = 100_000;

    @State(Scope.Benchmark)
    public static class Stream {
        byte[] body;
        HttpServer server;
        URI watchUri;
        HttpClient http;
        io.kubeloop.client.KubernetesClient kubeloopClient;
        ResourceClient<Pod> kubeloop;
        KubernetesClient fabric8;
        ApiClient officialClient;
        CoreV1Api official;

        @Setup(Level.Trial)
        public void start() throws Exception {
            try (EmbeddedApiServer api = EmbeddedApiServer.builder().start()) {
                ClientPods.populate(api, 1_000); // 10,000 take a minute to create; cycled, 1,000 decode the same
                body = ClientPods.watchStream(ClientPods.listItems(api), EVENTS);
            }
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            server.setExecutor(Executors.newCachedThreadPool());
            server.createContext("/", this::serve);
            server.start();
            String base = "http://127.0.0.1:" + server.getAddress().getPort();
            watchUri = URI.create(base + "/api/v1/namespaces/" + ClientPods.NAMESPACE + "/pods?watch=true");
            http = HttpClient.newHttpClient();
            kubeloopClient = io.kubeloop.client.KubernetesClient.create(
                    ClientConfig.builder().server(URI.create(base)).build());
            kubeloop = kubeloopClient.resources(Pod.class).inNamespace(ClientPods.NAMESPACE);
            fabric8 = new KubernetesClientBuilder()
                    .withConfig(new ConfigBuilder(Config.empty())
                            .withMasterUrl(base)
                            .withWatchReconnectInterval(60_000)
                            .build())
                    .build();
            officialClient = ClientBuilder.standard(false).setBasePath(base).build();
            officialClient.setReadTimeout(0); // a watch body has no read timeout
            official = new CoreV1Api(officialClient);
        }

        private void serve(HttpExchange exchange) throws IOException {
            try (exchange) {
                String upgrade = exchange.getRequestHeaders().getFirst("Upgrade");
                if (upgrade != null
                        && upgrade.toLowerCase(java.util.Locale.ROOT).contains("websocket")) {
                    exchange.sendResponseHeaders(200, -1); // refused: fabric8 falls back to an HTTP watch
                    return;
                }
                String query = exchange.getRequestURI().getRawQuery();
                if (query == null || !query.contains("watch=true") && !query.contains("watch=1")) {
                    exchange.sendResponseHeaders(404, -1);
                    return;
                }
                exchange.getResponseHeaders().set("Content-Type", "application/json");
                exchange.sendResponseHeaders(200, 0); // chunked
                OutputStream out = exchange.getResponseBody();
                try {
                    for (int off = 0; off < body.length; off += 64 * 1024) {
                        out.write(body, off, Math.min(64 * 1024, body.length - off));
                    }
                } catch (IOException clientWentAway) {
                    // a client that stopped at 100,000 events and closed early
                }
            }
        }

        @TearDown(Level.Trial)
        public void stop() {
            fabric8.close();
            kubeloopClient.close();
            server.stop(0);
        }

        InputStream open() throws Exception {
            HttpResponse<InputStream> r =
                    http.send(HttpRequest.newBuilder(watchUri).build(), HttpResponse.BodyHandlers.ofInputStream());
            if (r.statusCode() != 200) {
                throw new IllegalStateException("watch answered " + r.statusCode());
            }
            return r.body();
        }
    }

    private static long expect(String who, long n) {
        if (n != EVENTS) {
            throw new IllegalStateException(who + " delivered " + n + " events, not " + EVENTS);
        }
        return n;
    }

    @Benchmark
    @OperationsPerInvocation(EVENTS)
    public long kubeloop_watch(Stream s) throws Exception {
        long n = 0;
        long rvs = 0;
        try (Watch<Pod> watch = s.kubeloop.watch(WatchOptions.none())) {
            for (WatchEvent<Pod> event : watch) {
                if (event instanceof WatchEvent.Change<Pod> c) {
                    rvs += c.object().getMetadata().getResourceVersion().length();
                    n++;
                }
            }
        }
        expect("kubeloop Watch", n);
        return rvs;
    }

    @Benchmark
    @OperationsPerInvocation(EVENTS)
    public long kubeloop_decoder(Stream s) throws Exception {
        long n = 0;
        long rvs = 0;
        try (InputStream body = s.open()) {
            WatchEventDecoder<Pod> decoder = WatchEventDecoder.of(body, Pod.class);
            for (WatchEvent<Pod> event; (event = decoder.next()) != null; ) {
                if (event instanceof WatchEvent.Change<Pod> c) {
                    rvs += c.object().getMetadata().getResourceVersion().length();
                    n++;
                }
            }
        }
        expect("kubeloop WatchEventDecoder", n);
        return rvs;
    }

    @Benchmark
    @OperationsPerInvocation(EVENTS)
    @SuppressWarnings("try") // the watch is held open for the body and closed after it; the body never names it
    public long fabric8(Stream s) throws Exception {
        AtomicLong n = new AtomicLong();
        AtomicLong rvs = new AtomicLong();
        CompletableFuture<Long> done = new CompletableFuture<>();
        try (io.fabric8.kubernetes.client.Watch watch = s.fabric8
                .pods()
                .inNamespace(ClientPods.NAMESPACE)
                .watch(new Watcher<Pod>() {
                    @Override
                    public void eventReceived(Action action, Pod pod) {
                        rvs.addAndGet(pod.getMetadata().getResourceVersion().length());
                        if (n.incrementAndGet() == EVENTS) {
                            done.complete(n.get());
                        }
                    }

                    @Override
                    public void onClose(WatcherException cause) {
                        done.completeExceptionally(cause);
                    }
                })) {
            expect("fabric8", done.get(5, TimeUnit.MINUTES));
        }
        return rvs.get();
    }

    @Benchmark
    @OperationsPerInvocation(EVENTS)
    public long official(Stream s) throws Exception {
        long n = 0;
        long rvs = 0;
        Call call =
                s.official.listNamespacedPod(ClientPods.NAMESPACE).watch(true).buildCall(null);
        try (io.kubernetes.client.util.Watch<V1Pod> watch = io.kubernetes.client.util.Watch.createWatch(
                s.officialClient,
                call,
                new TypeToken<io.kubernetes.client.util.Watch.Response<V1Pod>>() {}.getType())) {
            for (io.kubernetes.client.util.Watch.Response<V1Pod> event : watch) {
                rvs += event.object.getMetadata().getResourceVersion().length();
                n++;
            }
        }
        expect("official", n);
        return rvs;
    }
}
