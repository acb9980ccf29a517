package io.kubeloop.bench;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.client.watch.ListDecoder;
import io.kubeloop.client.watch.ListPage;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodList;
import io.kubernetes.client.util.ClientBuilder;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * List 10,000 realistic pods (about 2.5 KB of JSON each, {@link ClientPods}) of one namespace from the embedded
 * API server into typed pods, with kubeloop, fabric8's client 8.0.0 and the official Java client 24.0.0, side by
 * side against the same server: all in one request ({@code *_all}) and in 20 pages of 500 ({@code *_pages500}).
 * Run with {@code -prof gc} for bytes allocated per list ({@code gc.alloc.rate.norm}); the figure includes the
 * server's side (same JVM), which is the same for all three.
 *
 * <p>kubeloop's rows use the decoding layer ({@link ListDecoder}) over a raw {@link HttpClient} GET, which is what
 * the transport does; when {@code ResourceClient} lands, {@code kubeloop(Server, Integer)} becomes
 * {@code pods.inNamespace(ns).list()} / {@code listAll(500)}.
 */
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class ClientListBenchmark {

    static final int PODS = 10_000;

    @State(Scope.Benchmark)
    public static class Server {
        EmbeddedApiServer server;
        HttpClient http;
        ListDecoder<Pod> decoder;
        KubernetesClient fabric8;
        CoreV1Api official;

        @Setup(Level.Trial)
        public void start() throws Exception {
            server = EmbeddedApiServer.builder().start();
            ClientPods.populate(server, PODS);
            http = HttpClient.newHttpClient();
            decoder = ListDecoder.of(Pod.class);
            fabric8 = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(server.kubeconfig())).build();
            ApiClient api = ClientBuilder.standard(false).setBasePath(server.url().toString()).build();
            api.setReadTimeout(0); // the default 10 s is not a concern at this size, but keep the clients alike
            official = new CoreV1Api(api);
            // Fail fast if any client does not see the 10,000 pods.
            check("kubeloop", kubeloop(this, null).size());
            check("fabric8", fabric8(this, null).size());
            check("official", official(this, null).size());
        }

        private static void check(String who, int n) {
            if (n != PODS) {
                throw new IllegalStateException(who + " listed " + n + " pods, not " + PODS);
            }
        }

        @TearDown(Level.Trial)
        public void stop() {
            fabric8.close();
            server.close();
        }
    }

    /** {@code limit} null: one request. Otherwise pages of that size, following the continue token. */
    static List<Pod> kubeloop(Server s, Integer limit) throws Exception {
        // TODO(ResourceClient): replace the raw HTTP call with the resource client's list()/listAll(limit).
        List<Pod> pods = new ArrayList<>();
        String token = null;
        do {
            String query = limit == null ? "" : "?limit=" + limit
                    + (token == null ? "" : "&continue=" + URLEncoder.encode(token, StandardCharsets.UTF_8));
            HttpResponse<InputStream> r = s.http.send(HttpRequest.newBuilder(URI.create(
                    s.server.url() + "/api/v1/namespaces/" + ClientPods.NAMESPACE + "/pods" + query)).build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            try (InputStream body = r.body()) {
                if (r.statusCode() != 200) {
                    throw new IllegalStateException("list answered " + r.statusCode());
                }
                ListPage page = s.decoder.decode(body, pods::add);
                token = page.hasMore() ? page.continueToken() : null;
            }
        } while (token != null);
        return pods;
    }

    static List<Pod> fabric8(Server s, Integer limit) {
        if (limit == null) {
            return s.fabric8.pods().inNamespace(ClientPods.NAMESPACE).list().getItems();
        }
        List<Pod> pods = new ArrayList<>();
        String token = null;
        do {
            PodList page = s.fabric8.pods().inNamespace(ClientPods.NAMESPACE)
                    .list(new io.fabric8.kubernetes.api.model.ListOptionsBuilder().withLimit((long) limit)
                            .withContinue(token).build());
            pods.addAll(page.getItems());
            token = page.getMetadata().getContinue();
        } while (token != null && !token.isEmpty());
        return pods;
    }

    static List<V1Pod> official(Server s, Integer limit) throws Exception {
        if (limit == null) {
            return s.official.listNamespacedPod(ClientPods.NAMESPACE).execute().getItems();
        }
        List<V1Pod> pods = new ArrayList<>();
        String token = null;
        do {
            V1PodList page = s.official.listNamespacedPod(ClientPods.NAMESPACE).limit(limit)._continue(token)
                    .execute();
            pods.addAll(page.getItems());
            token = page.getMetadata().getContinue();
        } while (token != null && !token.isEmpty());
        return pods;
    }

    @Benchmark
    public List<Pod> kubeloop_all(Server s) throws Exception {
        return kubeloop(s, null);
    }

    @Benchmark
    public List<Pod> fabric8_all(Server s) {
        return fabric8(s, null);
    }

    @Benchmark
    public List<V1Pod> official_all(Server s) throws Exception {
        return official(s, null);
    }

    @Benchmark
    public List<Pod> kubeloop_pages500(Server s) throws Exception {
        return kubeloop(s, 500);
    }

    @Benchmark
    public List<Pod> fabric8_pages500(Server s) {
        return fabric8(s, 500);
    }

    @Benchmark
    public List<V1Pod> official_pages500(Server s) throws Exception {
        return official(s, 500);
    }
}
