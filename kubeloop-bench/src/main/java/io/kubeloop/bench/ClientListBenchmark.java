package io.kubeloop.bench;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.resource.ListOptions;
import io.kubeloop.client.resource.ResourceClient;
import io.kubeloop.client.transport.RateLimiter;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodList;
import io.kubernetes.client.util.ClientBuilder;
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
 * <p>Each library goes through its public API: kubeloop's {@code ResourceClient.list()} / {@code listAll(500)}
 * (rate limiter, metrics and retry policy included, at their defaults), fabric8's {@code pods().list(...)}, the
 * official client's {@code listNamespacedPod(...)}. kubeloop's client-side rate limit is off, as the peers have none.
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
        io.kubeloop.client.KubernetesClient kubeloopClient;
        ResourceClient<Pod> kubeloop;
        KubernetesClient fabric8;
        CoreV1Api official;

        @Setup(Level.Trial)
        public void start() throws Exception {
            server = EmbeddedApiServer.builder().start();
            ClientPods.populate(server, PODS);
            // The peers have no client-side rate limit; kubeloop's (50 qps) would throttle the 20-page rows.
            kubeloopClient = io.kubeloop.client.KubernetesClient.builder(
                            ClientConfig.builder().server(server.url()).build())
                    .rateLimiter(RateLimiter.unlimited())
                    .build();
            kubeloop = kubeloopClient.resources(Pod.class).inNamespace(ClientPods.NAMESPACE);
            fabric8 = new KubernetesClientBuilder()
                    .withConfig(Config.fromKubeconfig(server.kubeconfig()))
                    .build();
            ApiClient api = ClientBuilder.standard(false)
                    .setBasePath(server.url().toString())
                    .build();
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
            kubeloopClient.close();
            server.close();
        }
    }

    /** {@code limit} null: one request. Otherwise pages of that size, following the continue token. */
    static List<Pod> kubeloop(Server s, Integer limit) {
        return limit == null
                ? s.kubeloop.list().items()
                : s.kubeloop.listAll(limit, ListOptions.none()).items();
    }

    static List<Pod> fabric8(Server s, Integer limit) {
        if (limit == null) {
            return s.fabric8.pods().inNamespace(ClientPods.NAMESPACE).list().getItems();
        }
        List<Pod> pods = new ArrayList<>();
        String token = null;
        do {
            PodList page = s.fabric8
                    .pods()
                    .inNamespace(ClientPods.NAMESPACE)
                    .list(new io.fabric8.kubernetes.api.model.ListOptionsBuilder()
                            .withLimit((long) limit)
                            .withContinue(token)
                            .build());
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
            V1PodList page = s.official
                    .listNamespacedPod(ClientPods.NAMESPACE)
                    .limit(limit)
                    ._continue(token)
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
