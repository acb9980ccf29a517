package io.kubeloop.informer.reflector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.apiserver.fault.Failure;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.resource.ListOptions;
import io.kubeloop.client.resource.ResourceClient;
import io.kubeloop.client.transport.RateLimiter;
import io.kubeloop.client.transport.RetryPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The reflector over real HTTP against the embedded API server, with its faults. */
class ReflectorIT {

    private static final Duration WAIT = Duration.ofSeconds(60);
    /** Real time: a quick backoff so that recoveries take milliseconds. */
    private static final Backoff QUICK = Backoff.DEFAULT.withInitial(Duration.ofMillis(20)).withCap(
            Duration.ofMillis(200));

    private EmbeddedApiServer server;
    private KubernetesClient client;
    private ResourceClient<ConfigMap> configMaps;
    private final List<Reflector<?>> reflectors = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final List<Throwable> errors = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() {
        server = EmbeddedApiServer.builder().bookmarkInterval(Duration.ofMillis(200)).start();
        // No transport retries: the reflector itself must cope with every failure.
        client = KubernetesClient.builder(ClientConfig.builder().server(server.url()).build())
                .retryPolicy(RetryPolicy.never()).rateLimiter(RateLimiter.unlimited())
                .watchIdleTimeout(Duration.ofSeconds(2)).build();
        configMaps = client.resources(ConfigMap.class).inNamespace("default");
    }

    @AfterEach
    void stop() throws InterruptedException {
        for (Reflector<?> r : reflectors) {
            r.stop();
            assertThat(r.awaitTermination(Duration.ofSeconds(10))).isTrue();
        }
        for (Thread t : threads) {
            t.join(Duration.ofSeconds(10));
            assertThat(t.isAlive()).isFalse();
        }
        server.faults().clear();
        client.close();
        server.close();
    }

    private Reflector<ConfigMap> run(RecordingStore<ConfigMap> store, ListerWatcher<ConfigMap> lw,
            UnaryOperator<Reflector.Builder<ConfigMap>> options) {
        Reflector<ConfigMap> r = options.apply(Reflector.builder(lw, store).name("configmaps in default")
                .backoff(QUICK).watchErrorHandler((n, e) -> errors.add(e))).build();
        reflectors.add(r);
        threads.add(Thread.ofVirtual().name("reflector-it").start(r::run));
        return r;
    }

    static ConfigMap cm(String name, Map<String, String> labels) {
        return new ConfigMapBuilder().withNewMetadata().withName(name).withLabels(labels).endMetadata()
                .addToData("k", "v").build();
    }

    private void createMany(int n) throws Exception {
        try (ExecutorService pool = Executors.newFixedThreadPool(8)) {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String name = String.format("cm-%05d", i);
                done.add(pool.submit(() -> configMaps.create(cm(name, Map.of("app", "bulk")))));
            }
            for (Future<?> f : done) {
                f.get();
            }
        }
    }

    private Map<String, String> serverVersions() {
        return RecordingStore.versionsOf(configMaps.list().items());
    }

    @Test
    void listsTenThousandObjectsInPagesThenFollowsLiveEvents() throws Exception {
        createMany(10_000);
        RecordingStore<ConfigMap> store = new RecordingStore<>();
        AtomicInteger lists = new AtomicInteger();
        ListerWatcher<ConfigMap> lw = ListerWatchers.forClient(configMaps);
        ListerWatcher<ConfigMap> counting = new ListerWatcher<>() {
            @Override
            public io.kubeloop.client.resource.ListPage<ConfigMap> list(ListOptions options) {
                lists.incrementAndGet();
                return lw.list(options);
            }

            @Override
            public WatchStream<ConfigMap> watch(io.kubeloop.client.resource.WatchOptions options) {
                return lw.watch(options);
            }
        };
        Reflector<ConfigMap> r = run(store, counting, b -> b.pageSize(500));
        await().atMost(WAIT).until(r::isWatching);
        assertThat(store.last("replace").names()).hasSize(10_000);
        assertThat(lists).as("10k objects in pages of 500").hasValue(20);

        ConfigMap live = configMaps.create(cm("live", Map.of()));
        configMaps.delete("cm-00000");
        await().atMost(WAIT).ignoreExceptions().until(() -> store.versions().equals(serverVersions()));
        assertThat(store.calls()).extracting(RecordingStore.Call::op).endsWith("add", "delete");
        assertThat(r.lastSyncResourceVersion()).isNotEqualTo(live.getMetadata().getResourceVersion());
    }

    @Test
    void theTweaksSelectorsApplyToListAndWatch() throws Exception {
        configMaps.create(cm("web-1", Map.of("app", "web")));
        configMaps.create(cm("db-1", Map.of("app", "db")));
        RecordingStore<ConfigMap> store = new RecordingStore<>();
        Reflector<ConfigMap> r = run(store, ListerWatchers.forClient(configMaps,
                o -> o.toBuilder().labelSelector("app=web").build()), UnaryOperator.identity());
        await().atMost(WAIT).until(r::isWatching);
        assertThat(store.versions()).containsOnlyKeys("default/web-1");
        configMaps.create(cm("web-2", Map.of("app", "web")));
        configMaps.create(cm("db-2", Map.of("app", "db")));
        await().atMost(WAIT).until(() -> store.versions().containsKey("default/web-2"));
        assertThat(store.versions()).containsOnlyKeys("default/web-1", "default/web-2");
    }

    @Test
    void recoversFromClosedWatchesCompactionFailuresAndBrokenConnections() throws Exception {
        createMany(50);
        RecordingStore<ConfigMap> store = new RecordingStore<>();
        Reflector<ConfigMap> r = run(store, ListerWatchers.forClient(configMaps), UnaryOperator.identity());
        await().atMost(WAIT).until(r::isWatching);

        // The server ends every watch: the reflector watches again from where it was.
        server.faults().closeWatches();
        configMaps.create(cm("after-close", Map.of()));
        await().atMost(WAIT).ignoreExceptions().until(() -> store.versions().equals(serverVersions()));

        // 410: the history is gone while the watch is down.
        server.faults().fail(Failure.status(503).count(3).resource("configmaps").verb("watch"));
        server.faults().closeWatches();
        configMaps.delete("cm-00001");
        configMaps.create(cm("during-outage", Map.of()));
        server.compact();
        await().atMost(WAIT).ignoreExceptions().until(() -> store.versions().equals(serverVersions()));
        assertThat(store.versions()).doesNotContainKey("default/cm-00001").containsKey("default/during-outage");

        // Lists fail with 429 and Retry-After, then succeed.
        server.faults().fail(Failure.status(429).count(2).retryAfterSeconds(1).resource("configmaps").verb("list"));
        server.faults().fail(Failure.status(500).count(2).resource("configmaps").verb("watch"));
        server.faults().closeWatches();
        server.compact();
        configMaps.create(cm("after-429", Map.of()));
        await().atMost(WAIT).ignoreExceptions().until(() -> store.versions().equals(serverVersions()));

        await().atMost(WAIT).until(r::isWatching);
        assertThat(errors).isNotEmpty();
    }

    @Test
    void aPartitionedWatchGoesIdleAndIsReplaced() throws Exception {
        RecordingStore<ConfigMap> store = new RecordingStore<>();
        Reflector<ConfigMap> r = run(store, ListerWatchers.forClient(configMaps), UnaryOperator.identity());
        await().atMost(WAIT).until(r::isWatching);
        server.faults().stall(Duration.ofSeconds(3), "configmaps");
        configMaps.create(cm("stalled", Map.of()));
        await().atMost(WAIT).until(() -> store.versions().containsKey("default/stalled"));
        assertThat(store.versions()).isEqualTo(serverVersions());
    }
}
