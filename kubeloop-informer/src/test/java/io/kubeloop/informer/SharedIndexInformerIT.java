package io.kubeloop.informer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.resource.ListOptions;
import io.kubeloop.client.resource.ListPage;
import io.kubeloop.client.resource.ResourceClient;
import io.kubeloop.client.resource.WatchOptions;
import io.kubeloop.client.transport.RateLimiter;
import io.kubeloop.informer.cache.CacheMutationDetector;
import io.kubeloop.informer.reflector.ListerWatcher;
import io.kubeloop.informer.reflector.ListerWatchers;
import io.kubeloop.informer.reflector.WatchStream;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Informers over real HTTP against the embedded API server. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SharedIndexInformerIT {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int BULK = 10_000;

    private static EmbeddedApiServer server;
    private static KubernetesClient client;
    private final List<SharedIndexInformer<?>> informers = new ArrayList<>();
    private final TrackingThreadFactory threads = new TrackingThreadFactory();

    @BeforeAll
    static void startServer() throws Exception {
        assertThat(CacheMutationDetector.isEnabled())
                .as("the suite runs with the cache mutation detector on (surefire's kubeloop.cacheMutationDetector)")
                .isTrue();
        // Frequent bookmarks: the server notices a watch whose client went away at its next write.
        server = EmbeddedApiServer.builder()
                .historyLimit(50_000)
                .bookmarkInterval(Duration.ofMillis(200))
                .start();
        client = KubernetesClient.builder(
                        ClientConfig.builder().server(server.url()).build())
                .rateLimiter(RateLimiter.unlimited())
                .build();
        for (String ns : List.of("bulk", "live", "outage", "slow", "leak")) {
            client.resources(Namespace.class)
                    .create(new NamespaceBuilder()
                            .withNewMetadata()
                            .withName(ns)
                            .endMetadata()
                            .build());
        }
        ResourceClient<Pod> bulk = client.resources(Pod.class).inNamespace("bulk");
        try (ExecutorService pool = Executors.newFixedThreadPool(8)) {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < BULK; i++) {
                String name = String.format("pod-%05d", i);
                done.add(pool.submit(() -> bulk.create(pod(name))));
            }
            for (Future<?> f : done) {
                f.get();
            }
        }
    }

    @AfterAll
    static void stopServer() {
        client.close();
        server.close();
    }

    @AfterEach
    void stopInformers() {
        informers.forEach(SharedIndexInformer::stop);
        assertThat(threads.alive()).as("informer threads left running").isEmpty();
    }

    private static Pod pod(String name) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .addToLabels("app", "web")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("c")
                .withImage("nginx")
                .endContainer()
                .endSpec()
                .build();
    }

    private SharedIndexInformer<Pod> informer(String name, ListerWatcher<Pod> lw) {
        SharedIndexInformer<Pod> informer = SharedIndexInformer.builder(lw, Pod.class)
                .name(name)
                .threadFactory(threads)
                .build();
        informers.add(informer);
        return informer;
    }

    private static ResourceClient<Pod> pods(String namespace) {
        return client.resources(Pod.class).inNamespace(namespace);
    }

    @Test
    void oneLineInformerOfOneResourceCachesItInEveryNamespace() {
        SharedIndexInformer<Namespace> namespaces = SharedIndexInformer.builder(client, Namespace.class)
                .threadFactory(threads)
                .build();
        informers.add(namespaces);
        assertThat(namespaces.name()).isEqualTo("namespaces");
        namespaces.start();
        assertThat(SharedIndexInformer.waitForCacheSync(WAIT, namespaces::hasSynced))
                .isTrue();
        assertThat(namespaces.indexer().listKeys()).contains("bulk", "live", "outage", "slow", "leak");
        assertThat(namespaces.indexer().size())
                .isEqualTo(namespaces.indexer().list().size());

        assertThatThrownBy(() -> SharedIndexInformer.builder(client, GenericKubernetesResource.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("genericResources");
    }

    @Test
    void syncsTenThousandPodsAndTheirHandlerSeesEveryOne() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        SharedIndexInformer<Pod> informer = SharedIndexInformer.builder(
                        ListerWatchers.forClient(pods("bulk")), Pod.class)
                .name("bulk")
                .threadFactory(threads)
                .meterRegistry(registry)
                .transform(Transforms.stripManagedFields())
                .build();
        informers.add(informer);
        AtomicInteger initialAdds = new AtomicInteger();
        ResourceEventHandlerRegistration r = informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod object, boolean isInInitialList) {
                if (isInInitialList) {
                    initialAdds.incrementAndGet();
                }
            }
        });
        informer.start();
        assertThat(SharedIndexInformer.waitForCacheSync(WAIT, informer::hasSynced, r::hasSynced))
                .isTrue();
        assertThat(initialAdds.get()).isEqualTo(BULK);
        Set<String> expected = IntStream.range(0, BULK)
                .mapToObj(i -> String.format("bulk/pod-%05d", i))
                .collect(Collectors.toSet());
        assertThat(Set.copyOf(informer.indexer().listKeys())).isEqualTo(expected);
        assertThat(informer.indexer().list())
                .allSatisfy(p -> assertThat(p.getMetadata().getManagedFields()).isNullOrEmpty());
        assertThat(informer.lister().namespace("bulk").list()).hasSize(BULK);
        assertThat(registry.get("informer.cache.objects")
                        .tag("name", "bulk")
                        .gauge()
                        .value())
                .isEqualTo(BULK);
        await().atMost(WAIT).until(informer::isWatching);
        assertThat(informer.health().isReady()).isTrue();
    }

    @Test
    void liveCreateUpdateDeleteArriveInOrderAfterTheCache() {
        SharedIndexInformer<Pod> informer = informer("live", ListerWatchers.forClient(pods("live")));
        Recorder<Pod> handler = new Recorder<Pod>().checking(informer.indexer());
        informer.addEventHandler(handler);
        informer.start();
        assertThat(SharedIndexInformer.waitForCacheSync(WAIT, informer::hasSynced))
                .isTrue();

        Pod created = pods("live").create(pod("a"));
        created.getMetadata().getLabels().put("tier", "front");
        Pod updated = pods("live").update(created);
        Pod deleted = pods("live").delete("a").orElseThrow();
        await().atMost(WAIT).until(() -> handler.events.size() == 3);
        assertThat(handler.events())
                .containsExactly(
                        "add live/a rv=" + created.getMetadata().getResourceVersion(),
                        "update live/a " + created.getMetadata().getResourceVersion() + "->"
                                + updated.getMetadata().getResourceVersion(),
                        "delete live/a rv=" + deleted.getMetadata().getResourceVersion());
        assertThat(handler.cacheViolations()).isEmpty();
        assertThat(informer.indexer().listKeys()).isEmpty();
    }

    @Test
    void afterA410TheRelistDeliversWhatHappenedDuringTheOutageWithTombstonesForTheDeleted() throws Exception {
        java.util.Map<String, String> created = new java.util.HashMap<>();
        for (String n : List.of("a", "b", "c", "d")) {
            created.put(n, pods("outage").create(pod(n)).getMetadata().getResourceVersion());
        }
        Gate<Pod> gate = new Gate<>(ListerWatchers.forClient(pods("outage")));
        SharedIndexInformer<Pod> informer = informer("outage", gate);
        Recorder<Pod> handler = new Recorder<Pod>().checking(informer.indexer());
        informer.addEventHandler(handler);
        informer.start();
        assertThat(SharedIndexInformer.waitForCacheSync(WAIT, informer::hasSynced))
                .isTrue();
        await().atMost(WAIT).until(informer::isWatching);
        handler.events.clear();

        // The watch goes down and cannot come back while the gate is closed.
        gate.close();
        server.faults().closeWatches("pods");
        await().atMost(WAIT).until(() -> gate.waiting.get() > 0);
        Pod a = pods("outage").get("a").orElseThrow();
        a.getMetadata().getLabels().put("changed", "yes");
        Pod aChanged = pods("outage").update(a);
        pods("outage").delete("b");
        pods("outage").delete("c");
        Pod e = pods("outage").create(pod("e"));
        server.compact(); // the outage's history is gone: the re-watch gets 410 and the informer relists
        int listsBefore = gate.lists.get();
        gate.open();

        await().atMost(WAIT).until(() -> handler.events.size() >= 5 && informer.isWatching());
        assertThat(gate.lists.get()).isGreaterThan(listsBefore);
        assertThat(handler.events())
                .containsExactlyInAnyOrder(
                        "update outage/a " + created.get("a") + "->"
                                + aChanged.getMetadata().getResourceVersion(),
                        "delete outage/b tombstone",
                        "delete outage/c tombstone",
                        "add outage/e rv=" + e.getMetadata().getResourceVersion(),
                        // d did not change; with no resync tick yet, a relisted unchanged object reaches every handler
                        "update outage/d " + created.get("d") + "->" + created.get("d"));
        assertThat(handler.cacheViolations()).isEmpty();
        assertThat(informer.indexer().listKeys()).containsExactlyInAnyOrder("outage/a", "outage/d", "outage/e");
        assertThat(informer.lister().namespace("outage").get("a"))
                .get()
                .extracting(Recorder::rv)
                .isEqualTo(aChanged.getMetadata().getResourceVersion());
    }

    @Test
    void aSlowHandlerBesideAFastOneDelaysNothing() {
        SharedIndexInformer<Pod> informer = informer("slow", ListerWatchers.forClient(pods("slow")));
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger slowCalls = new AtomicInteger();
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod object, boolean isInInitialList) {
                slowCalls.incrementAndGet();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        Recorder<Pod> fast = new Recorder<Pod>().checking(informer.indexer());
        informer.addEventHandler(fast);
        informer.start();
        assertThat(SharedIndexInformer.waitForCacheSync(WAIT, informer::hasSynced))
                .isTrue();
        int n = 300;
        for (int i = 0; i < n; i++) {
            pods("slow").create(pod("s" + i));
        }
        await().atMost(WAIT).until(() -> fast.events.size() == n);
        assertThat(informer.indexer().listKeys()).hasSize(n);
        assertThat(slowCalls.get()).isEqualTo(1);
        release.countDown();
        await().atMost(WAIT).until(() -> slowCalls.get() == n);
    }

    @Test
    void stopClosesTheWatchAndEndsEveryThread() {
        SharedIndexInformer<Pod> informer = informer("leak", ListerWatchers.forClient(pods("leak")));
        informer.addEventHandler(new Recorder<>());
        informer.addEventHandler(new Recorder<>());
        informer.start();
        assertThat(SharedIndexInformer.waitForCacheSync(WAIT, informer::hasSynced))
                .isTrue();
        await().atMost(WAIT).until(informer::isWatching);
        assertThat(threads.alive()).hasSizeGreaterThanOrEqualTo(4); // reflector, process loop, 2 dispatchers
        informer.stop();
        assertThat(threads.alive()).isEmpty();
        // The server notices at its next bookmark that the watch's client is gone: no pod watch stays open.
        await().atMost(WAIT).until(() -> openPodWatches() == 0);
        assertThat(server.faults().closeWatches("pods")).isZero();
    }

    /** The server's {@code apiserver_longrunning_requests} for pods, scraped from its /metrics. */
    private static int openPodWatches() throws Exception {
        java.net.http.HttpResponse<String> metrics = java.net.http.HttpClient.newHttpClient()
                .send(
                        java.net.http.HttpRequest.newBuilder(server.url().resolve("/metrics"))
                                .build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString());
        return metrics.body()
                .lines()
                .filter(l -> l.startsWith("apiserver_longrunning_requests{") && l.contains("resource=\"pods\""))
                .mapToInt(l -> (int) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .sum();
    }

    /** A lister-watcher whose watch calls wait while the gate is closed: a watch that is down for a while. */
    static final class Gate<T> implements ListerWatcher<T> {
        private final ListerWatcher<T> delegate;
        private volatile CountDownLatch open = new CountDownLatch(0);
        final AtomicInteger waiting = new AtomicInteger();
        final AtomicInteger lists = new AtomicInteger();

        Gate(ListerWatcher<T> delegate) {
            this.delegate = delegate;
        }

        void close() {
            open = new CountDownLatch(1);
        }

        void open() {
            open.countDown();
        }

        @Override
        public ListPage<T> list(ListOptions options) {
            lists.incrementAndGet();
            return delegate.list(options);
        }

        @Override
        public WatchStream<T> watch(WatchOptions options) {
            waiting.incrementAndGet();
            try {
                open.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while the gate was closed", e);
            } finally {
                waiting.decrementAndGet();
            }
            return delegate.watch(options);
        }
    }
}
