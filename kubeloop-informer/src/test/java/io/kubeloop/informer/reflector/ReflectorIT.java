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
import io.kubeloop.client.watch.WatchIdleTimeoutException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The reflector over real HTTP against the embedded API server, with its faults. */
class ReflectorIT {

    private static final Duration WAIT = Duration.ofSeconds(60);
    /** Real time: a quick backoff so that recoveries take milliseconds. */
    private static final Backoff QUICK =
            Backoff.DEFAULT.withInitial(Duration.ofMillis(20)).withCap(Duration.ofMillis(200));

    private EmbeddedApiServer server;
    private KubernetesClient client;
    private ResourceClient<ConfigMap> configMaps;
    private final List<Reflector<?>> reflectors = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final List<Throwable> errors = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() {
        server = EmbeddedApiServer.builder()
                .bookmarkInterval(Duration.ofMillis(200))
                .start();
        // No transport retries: the reflector itself must cope with every failure.
        client = KubernetesClient.builder(
                        ClientConfig.builder().server(server.url()).build())
                .retryPolicy(RetryPolicy.never())
                .rateLimiter(RateLimiter.unlimited())
                .watchIdleTimeout(Duration.ofSeconds(2))
                .build();
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

    private Reflector<ConfigMap> run(
            RecordingStore<ConfigMap> store,
            ListerWatcher<ConfigMap> lw,
            UnaryOperator<Reflector.Builder<ConfigMap>> options) {
        Reflector<ConfigMap> r = options.apply(Reflector.builder(lw, store)
                        .name("configmaps in default")
                        .backoff(QUICK)
                        .watchErrorHandler((n, e) -> errors.add(e)))
                .build();
        reflectors.add(r);
        threads.add(Thread.ofVirtual().name("reflector-it").start(r::run));
        return r;
    }

    static ConfigMap cm(String name, Map<String, String> labels) {
        return new ConfigMapBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(labels)
                .endMetadata()
                .addToData("k", "v")
                .build();
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
        assertThat(store.last("replace").names()).hasSize(10_001); // and the namespace's kube-root-ca.crt
        assertThat(lists).as("10k objects and kube-root-ca.crt in pages of 500").hasValue(21);

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
        Reflector<ConfigMap> r = run(
                store,
                ListerWatchers.forClient(
                        configMaps, o -> o.toBuilder().labelSelector("app=web").build()),
                UnaryOperator.identity());
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
        server.faults()
                .fail(Failure.status(429)
                        .count(2)
                        .retryAfterSeconds(1)
                        .resource("configmaps")
                        .verb("list"));
        server.faults().fail(Failure.status(500).count(2).resource("configmaps").verb("watch"));
        server.faults().closeWatches();
        server.compact();
        configMaps.create(cm("after-429", Map.of()));
        await().atMost(WAIT).ignoreExceptions().until(() -> store.versions().equals(serverVersions()));

        await().atMost(WAIT).until(r::isWatching);
        assertThat(errors).isNotEmpty();
    }

    @Test
    void afterAPartitionTheSilentWatchIsReplacedAndTheStoreCatchesUp() throws Exception {
        configMaps.create(cm("before", Map.of()));
        RecordingStore<ConfigMap> store = new RecordingStore<>();
        Reflector<ConfigMap> r = run(store, ListerWatchers.forClient(configMaps), UnaryOperator.identity());
        await().atMost(WAIT).until(r::isWatching);

        // Pull the reflector's cable (every kubeloop client); another client (the JDK's) keeps writing.
        server.faults().partition(Duration.ofSeconds(60), "kubeloop");
        createWithoutKubeloop("during-partition");
        await().atMost(WAIT).until(() -> errors.stream().anyMatch(e -> e instanceof WatchIdleTimeoutException));
        assertThat(store.versions()).doesNotContainKey("default/during-partition");
        server.faults().clear();

        await().atMost(WAIT).ignoreExceptions().until(() -> store.versions().equals(serverVersions()));
        assertThat(store.versions()).containsKeys("default/before", "default/during-partition");
    }

    @Test
    void stopLeavesNoWatchOpenOnTheServer() throws Exception {
        RecordingStore<ConfigMap> store = new RecordingStore<>();
        // The resync threads are virtual, which Thread.getAllStackTraces() does not list: remember each one made.
        List<Thread> resyncThreads = new CopyOnWriteArrayList<>();
        ThreadFactory tracking = body -> {
            Thread t = Thread.ofVirtual().unstarted(body);
            resyncThreads.add(t);
            return t;
        };
        Reflector<ConfigMap> r =
                run(store, ListerWatchers.forClient(configMaps), b -> b.resyncPeriod(Duration.ofSeconds(1))
                        .threadFactory(tracking));
        await().atMost(WAIT).until(r::isWatching);
        await().atMost(WAIT).until(() -> openConfigMapWatches() == 1);
        await().atMost(WAIT).until(() -> resyncThreads.stream().anyMatch(Thread::isAlive));
        r.stop();
        assertThat(r.awaitTermination(Duration.ofSeconds(10))).isTrue();
        await().atMost(WAIT).until(() -> openConfigMapWatches() == 0);
        assertThat(resyncThreads).isNotEmpty().noneMatch(Thread::isAlive);
    }

    @Test
    void aBoundedChaosRunEndsWithTheStoreEqualToTheServer() throws Exception {
        RecordingStore<ConfigMap> store = new RecordingStore<>();
        Reflector<ConfigMap> r = run(store, ListerWatchers.forClient(configMaps), UnaryOperator.identity());
        await().atMost(WAIT).until(r::isWatching);
        java.util.Random random = new java.util.Random(6);
        AtomicInteger ops = new AtomicInteger();
        Thread writer = Thread.ofVirtual().name("chaos-writer").start(() -> {
            for (int i = 0; i < 400; i++) {
                String name = "chaos-" + random.nextInt(25);
                try {
                    switch (random.nextInt(3)) {
                        case 0 -> configMaps.create(cm(name, Map.of()));
                        case 1 ->
                            configMaps.patch(
                                    name,
                                    io.kubeloop.client.resource.PatchType.MERGE,
                                    "{\"data\":{\"n\":\"" + i + "\"}}",
                                    io.kubeloop.client.resource.PatchOptions.none());
                        default -> configMaps.delete(name);
                    }
                } catch (RuntimeException expected) {
                    // conflicts, not-found and injected failures: the writer carries on
                }
                ops.incrementAndGet();
            }
        });
        for (int round = 0; round < 12; round++) {
            int due = (round + 1) * 30; // one fault every 30 writes
            await().atMost(WAIT).until(() -> ops.get() >= due);
            switch (round % 6) {
                case 0 -> server.faults().closeWatches();
                case 1 -> server.compact();
                case 2 ->
                    server.faults()
                            .fail(Failure.status(503)
                                    .count(2)
                                    .resource("configmaps")
                                    .verb("watch"));
                case 3 ->
                    server.faults()
                            .fail(Failure.status(429)
                                    .count(1)
                                    .retryAfterSeconds(1)
                                    .resource("configmaps")
                                    .verb("list"));
                case 4 -> {
                    server.compact();
                    server.faults().closeWatches();
                }
                default ->
                    server.faults()
                            .fail(Failure.status(500)
                                    .count(1)
                                    .resource("configmaps")
                                    .verb("list"));
            }
        }
        writer.join(WAIT);
        assertThat(writer.isAlive()).isFalse();
        server.faults().clear();
        configMaps.create(cm("the-end", Map.of()));
        await().atMost(WAIT).ignoreExceptions().until(() -> store.versions().equals(serverVersions()));
    }

    @Test
    void stopEndsARunWhoseListHangsInAPartition() throws Exception {
        server.faults().partition(Duration.ofSeconds(60), "kubeloop");
        RecordingStore<ConfigMap> store = new RecordingStore<>();
        Reflector<ConfigMap> r = run(store, ListerWatchers.forClient(configMaps), UnaryOperator.identity());
        await().atMost(WAIT).until(() -> heldByPartition() >= 1); // the list request is in flight, held
        r.stop();
        assertThat(r.awaitTermination(Duration.ofSeconds(10)))
                .as("the hung list was interrupted")
                .isTrue();
        assertThat(store.calls()).isEmpty();
        server.faults().clear();
    }

    private void createWithoutKubeloop(String name) throws Exception {
        try (HttpClient http = HttpClient.newHttpClient()) {
            HttpResponse<String> created = http.send(
                    HttpRequest.newBuilder(server.url().resolve("/api/v1/namespaces/default/configmaps"))
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
                                    + "\"metadata\":{\"name\":\"" + name + "\"}}"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        }
    }

    /** Requests the partition holds or held, scraped from the server's /metrics. */
    private double heldByPartition() throws Exception {
        try (HttpClient http = HttpClient.newHttpClient()) {
            String metrics = http.send(
                            HttpRequest.newBuilder(server.url().resolve("/metrics"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
            return metrics.lines()
                    .filter(l -> l.startsWith("kubeloop_apiserver_fault_affected_requests_total{")
                            && l.contains("fault=\"partition\""))
                    .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                    .sum();
        }
    }

    /** The server's {@code apiserver_longrunning_requests} for configmaps, scraped from its /metrics. */
    private int openConfigMapWatches() throws Exception {
        try (HttpClient http = HttpClient.newHttpClient()) {
            String metrics = http.send(
                            HttpRequest.newBuilder(server.url().resolve("/metrics"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
            return metrics.lines()
                    .filter(l ->
                            l.startsWith("apiserver_longrunning_requests{") && l.contains("resource=\"configmaps\""))
                    .mapToInt(l -> (int) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                    .sum();
        }
    }
}
