package io.kubeloop.informer.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.apiserver.fault.Failure;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.errors.InternalErrorException;
import io.kubeloop.client.resource.ListPage;
import io.kubeloop.client.resource.PatchOptions;
import io.kubeloop.client.resource.PatchType;
import io.kubeloop.client.resource.ResourceClient;
import io.kubeloop.client.resource.WatchOptions;
import io.kubeloop.client.transport.RateLimiter;
import io.kubeloop.client.watch.Watch;
import io.kubeloop.client.watch.WatchEvent;
import io.kubeloop.clock.Clock;
import io.kubeloop.informer.SharedIndexInformer;
import io.kubeloop.informer.cache.Keys;
import io.kubeloop.informer.reflector.ListerWatchers;
import io.kubeloop.informer.testing.CountingListerWatcher;
import io.kubeloop.model.WatchEventType;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The auditor over real HTTP against the embedded API server: paged lists with real continue tokens, drift made by
 * hand, events held back by the server's stall fault that arrive within the settle time (not reported), and a
 * server that fails the audit's list.
 */
class CacheAuditorIT {

    private static final Duration WAIT = Duration.ofSeconds(20);
    /** The kube-root-ca.crt ConfigMaps: one in each of the 4 namespaces a cluster starts with, team-a and team-b. */
    private static final int SEEDED = 6;

    private EmbeddedApiServer server;
    private KubernetesClient client;
    private ResourceClient<ConfigMap> configMaps;
    private final MapCache cache = new MapCache();
    private CountingListerWatcher<ConfigMap> source;
    private AtomicInteger lists;

    @BeforeEach
    void start() {
        server = EmbeddedApiServer.builder()
                .bookmarkInterval(Duration.ofMillis(500))
                .start();
        client = KubernetesClient.builder(
                        ClientConfig.builder().server(server.url().toString()).build())
                .rateLimiter(RateLimiter.unlimited())
                .build();
        for (String ns : List.of("team-a", "team-b")) {
            client.resources(Namespace.class)
                    .create(new NamespaceBuilder()
                            .withNewMetadata()
                            .withName(ns)
                            .endMetadata()
                            .build());
        }
        configMaps = client.resources(ConfigMap.class).inAnyNamespace();
        // as on a cluster, every namespace has its kube-root-ca.crt, which new ones get in the background: wait for
        // them, so that the audits below start from one state
        await().atMost(WAIT)
                .until(() -> configMaps.list().items().stream()
                                .filter(cm -> cm.getMetadata().getName().equals("kube-root-ca.crt"))
                                .count()
                        == SEEDED);
        source = new CountingListerWatcher<>(ListerWatchers.forClient(configMaps));
        lists = source.lists;
        for (int i = 0; i < 30; i++) {
            create(i % 2 == 0 ? "team-a" : "team-b", "cm-" + i);
        }
    }

    @AfterEach
    void stop() {
        server.faults().clear();
        client.close();
        server.close();
    }

    @Test
    void aCacheFilledFromTheServerIsCleanAcrossPages() throws Exception {
        ListPage<ConfigMap> all = configMaps.list();
        all.items().forEach(cache::put);
        try (CacheAuditor<ConfigMap> auditor = CacheAuditor.builder(source, cache)
                .name("configmaps")
                .pageSize(7)
                .build()) {
            AuditResult result = auditor.audit();

            assertThat(result.isClean()).as(result.toString()).isTrue();
            assertThat(result.checkedObjects()).isEqualTo(30 + SEEDED);
            assertThat(result.serverResourceVersion()).isEqualTo(all.resourceVersion());
            assertThat(lists).as("36 objects in pages of 7").hasValue(6);
        }
    }

    @Test
    void reportsEveryKindOfDriftAgainstTheServersState() throws Exception {
        configMaps.list().items().forEach(cache::put);
        ConfigMap updated = configMaps
                .inNamespace("team-a")
                .patch("cm-0", PatchType.MERGE, "{\"data\":{\"k\":\"changed\"}}", PatchOptions.none());
        configMaps.inNamespace("team-b").delete("cm-1");
        create("team-b", "new-one");
        cache.put(new ConfigMapBuilder()
                .withNewMetadata()
                .withNamespace("team-a")
                .withName("ghost")
                .withResourceVersion("1")
                .endMetadata()
                .build());
        String cachedRv =
                cache.getByKey("team-a/cm-0").orElseThrow().getMetadata().getResourceVersion();
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

        try (CacheAuditor<ConfigMap> auditor = CacheAuditor.builder(source, cache)
                .name("configmaps")
                .settleTime(Duration.ofMillis(200))
                .meterRegistry(registry)
                .build()) {
            AuditResult result = auditor.audit();

            assertThat(result.missingInCache()).containsExactly("team-b/new-one");
            assertThat(result.extraInCache()).containsExactly("team-a/ghost", "team-b/cm-1");
            assertThat(result.staleInCache())
                    .containsExactly(new AuditResult.StaleObject(
                            "team-a/cm-0", cachedRv, updated.getMetadata().getResourceVersion()));
            assertThat(result.checkedObjects()).isEqualTo(30 + SEEDED);
            assertThat(lists).as("a first look and one check").hasValue(2);
            assertThat(registry.scrape())
                    .contains("informer_cache_drift_objects{name=\"configmaps\"} 4.0")
                    .contains("informer_cache_audits_total{name=\"configmaps\",result=\"drift\"} 1.0");
        }
    }

    @Test
    @SuppressWarnings("try") // the follower keeps the cache current for the whole audit; the body never names it
    void eventsHeldBackByTheServerAndDeliveredWithinTheSettleTimeAreNotReported() throws Exception {
        try (Follower follower = new Follower(configMaps, cache)) {
            await().atMost(WAIT).until(() -> cache.listKeys().size() == 30 + SEEDED);
            // No watch event reaches the follower for 1 s; the writes below are on the server at once.
            server.faults().stall(Duration.ofSeconds(1), "configmaps");
            configMaps.inNamespace("team-a").delete("cm-2");
            create("team-a", "late");
            configMaps
                    .inNamespace("team-b")
                    .patch("cm-3", PatchType.MERGE, "{\"data\":{\"k\":\"late\"}}", PatchOptions.none());

            try (CacheAuditor<ConfigMap> auditor = CacheAuditor.builder(source, cache)
                    .name("configmaps")
                    .settleTime(Duration.ofSeconds(4))
                    .clock(Clock.system())
                    .build()) {
                AuditResult result = auditor.audit();

                assertThat(lists)
                        .as("the first look saw the held-back events as differences")
                        .hasValue(2);
                assertThat(result.isClean()).as(result.toString()).isTrue();
                assertThat(result.checkedObjects()).isEqualTo(30 + SEEDED);
            }
        }
    }

    @Test
    @SuppressWarnings("try") // closed early on purpose (close is idempotent); the try still closes it on failure
    void aDeletionTheCacheNeverHearsOfIsReportedAsAGhost() throws Exception {
        try (Follower follower = new Follower(configMaps, cache)) {
            await().atMost(WAIT).until(() -> cache.listKeys().size() == 30 + SEEDED);
            follower.close(); // the cache stops following: from now on the server's changes are lost to it
            configMaps.inNamespace("team-a").delete("cm-4");

            try (CacheAuditor<ConfigMap> auditor = CacheAuditor.builder(source, cache)
                    .name("configmaps")
                    .settleTime(Duration.ofMillis(300))
                    .build()) {
                assertThat(auditor.audit().extraInCache()).containsExactly("team-a/cm-4");
            }
        }
    }

    @Test
    void auditsARealInformerFindsTheObjectItsCacheLostAndSeesItRepaired() throws Exception {
        SharedIndexInformer<ConfigMap> informer = SharedIndexInformer.builder(
                        ListerWatchers.forClient(configMaps), ConfigMap.class)
                .name("configmaps")
                .build();
        informer.start();
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (CacheAuditor<ConfigMap> auditor = CacheAuditor.builder(source, informer.indexer())
                .name("configmaps")
                .settleTime(Duration.ofMillis(300))
                .meterRegistry(registry)
                .build()) {
            assertThat(SharedIndexInformer.waitForCacheSync(WAIT, informer::hasSynced))
                    .isTrue();
            assertThat(auditor.audit().isClean()).isTrue();

            // A lost event, simulated: the object leaves the informer's cache behind the informer's back.
            informer.indexer().delete(informer.indexer().getByKey("team-a/cm-6").orElseThrow());
            AuditResult drift = auditor.audit();
            assertThat(drift.missingInCache()).containsExactly("team-a/cm-6");
            assertThat(drift.extraInCache()).isEmpty();
            assertThat(drift.staleInCache()).isEmpty();

            // The object's next change reaches the informer, which puts it back: the periodic audit sees it clean.
            configMaps
                    .inNamespace("team-a")
                    .patch("cm-6", PatchType.MERGE, "{\"data\":{\"k\":\"again\"}}", PatchOptions.none());
            auditor.startPeriodic(Duration.ofMillis(200));
            await().atMost(WAIT)
                    .until(() -> auditor.lastResult().map(AuditResult::isClean).orElse(false)
                            && registry.scrape().contains("informer_cache_drift_objects{name=\"configmaps\"} 0.0"));
            assertThat(registry.scrape())
                    .contains("informer_cache_audits_total{name=\"configmaps\",result=\"drift\"} 1.0");
        } finally {
            informer.stop();
        }
    }

    @Test
    void aListTheServerFailsFailsTheAuditAndCountsAnError() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        // A 500 without Retry-After is not retried by the client (a 503 would be, after 1 s).
        server.faults().fail(Failure.status(500).count(1).resource("configmaps").verb("list"));
        try (CacheAuditor<ConfigMap> auditor = CacheAuditor.builder(source, cache)
                .name("configmaps")
                .meterRegistry(registry)
                .build()) {
            assertThatThrownBy(auditor::audit).isInstanceOf(InternalErrorException.class);
            assertThat(registry.scrape())
                    .contains("informer_cache_audits_total{name=\"configmaps\",result=\"error\"} 1.0");
        }
    }

    // ---------------------------------------------------------------------------------------------------------

    private void create(String namespace, String name) {
        configMaps
                .inNamespace(namespace)
                .create(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .endMetadata()
                        .addToData("k", "v")
                        .build());
    }

    /**
     * The smallest possible informer, for the auditor's sake: lists into the cache, then applies a watch's events
     * to it on a named thread until closed. It never relists; a test that needs more uses the real informer.
     */
    static final class Follower implements AutoCloseable {
        private final Watch<ConfigMap> watch;
        private final Thread thread;

        Follower(ResourceClient<ConfigMap> client, MapCache cache) {
            ListPage<ConfigMap> list = client.list();
            list.items().forEach(cache::put);
            watch = client.watch(WatchOptions.builder()
                    .resourceVersion(list.resourceVersion())
                    .allowWatchBookmarks(true)
                    .build());
            thread = Thread.ofVirtual().name("audit-it-follower").start(() -> {
                try {
                    for (WatchEvent<ConfigMap> e = watch.next(); e != null; e = watch.next()) {
                        if (e instanceof WatchEvent.Change<ConfigMap> c) {
                            if (c.type() == WatchEventType.DELETED) {
                                cache.remove(Keys.META_NAMESPACE.keyOf(c.object()));
                            } else {
                                cache.put(c.object());
                            }
                        }
                    }
                } catch (InterruptedException | RuntimeException ended) {
                    // closed
                }
            });
        }

        @Override
        public void close() {
            watch.close();
            try {
                thread.join(WAIT);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while the follower stopped", e);
            }
        }
    }
}
