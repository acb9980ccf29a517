package io.kubeloop.informer.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.apiserver.fault.Failure;
import io.kubeloop.apiserver.fault.Faults;
import io.kubeloop.apiserver.fault.Latency;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.resource.ListPage;
import io.kubeloop.client.resource.ResourceClient;
import io.kubeloop.client.transport.RateLimiter;
import io.kubeloop.informer.SharedIndexInformer;
import io.kubeloop.informer.audit.AuditResult;
import io.kubeloop.informer.audit.CacheAuditor;
import io.kubeloop.informer.cache.CacheMutationDetector;
import io.kubeloop.informer.cache.Keys;
import io.kubeloop.informer.reflector.Backoff;
import io.kubeloop.informer.reflector.ListerWatchers;
import io.kubeloop.informer.testing.CountingListerWatcher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bounded chaos run: an informer on configmaps, with two handlers, follows a seeded random writer (a few
 * hundred objects, about a thousand creates, updates and deletes, ~20 s) while the API server drops its watches,
 * compacts its history (410 on the next re-watch, so relists with tombstones), fails lists and watches with 429,
 * 500 and 503 (with and without Retry-After), slows them down, cuts the informer off (a partition scoped to its
 * User-Agent, while the writer keeps writing) and stalls its watch events (long enough for the client's idle rule).
 *
 * <p>When the faults stop, within a bounded time: the {@link CacheAuditor} reports no drift; the cache equals the
 * server's state exactly (keys, resourceVersions, data); each handler's last view of every object that exists is
 * its current state, and of every object that was deleted, a deletion; and no handler ever saw an object go back
 * in time or heard of an update or delete of an object it did not know.
 *
 * <p>The seed is {@code -Dkubeloop.chaos.seed=N} (default {@value #DEFAULT_SEED}); it fixes the writer's sequence
 * and the server's fault randomness (fractions, jitter). Thread timing still varies from run to run: a failure
 * prints the seed and the fault log, which is what a reproduction needs.
 */
@Tag("chaos")
@Timeout(180)
class InformerChaosIT {

    private static final Logger log = LoggerFactory.getLogger(InformerChaosIT.class);

    static final long DEFAULT_SEED = 20261130L;
    private static final long SEED = Long.getLong("kubeloop.chaos.seed", DEFAULT_SEED);
    private static final String NAMESPACE = "chaos";
    private static final int KEYS = 300;
    private static final int INITIAL_OBJECTS = 150;
    private static final int OPERATIONS = 1000;
    private static final double WRITES_PER_SECOND = 50;
    /** How long the informer may take to converge once the faults stop. */
    private static final Duration CONVERGENCE = Duration.ofSeconds(45);
    /** The informer's client gives up on a silent watch after this (the server's bookmarks come every second). */
    private static final Duration WATCH_IDLE_TIMEOUT = Duration.ofSeconds(4);

    private EmbeddedApiServer server;
    private KubernetesClient informerClient;
    private KubernetesClient verifierClient;
    private SharedIndexInformer<ConfigMap> informer;
    private Thread writerThread;
    private final List<String> faultLog = new ArrayList<>();

    @AfterEach
    void tearDown() throws InterruptedException {
        if (writerThread != null) {
            writerThread.interrupt();
            writerThread.join(Duration.ofSeconds(10));
        }
        if (server != null) {
            server.faults().clear();
        }
        if (informer != null) {
            informer.stop();
        }
        if (informerClient != null) {
            informerClient.close();
            verifierClient.close();
        }
        if (server != null) {
            server.close();
        }
    }

    /** One fault, injected once the writer has done {@code atOperation} writes. */
    private record Step(int atOperation, String description, Runnable action) {}

    @Test
    void afterTheFaultsStopTheCacheAndEveryHandlerHoldTheServersExactState() throws Exception {
        log.info("chaos run with seed {} (-Dkubeloop.chaos.seed={})", SEED, SEED);
        server = EmbeddedApiServer.builder()
                .faultSeed(SEED)
                .bookmarkInterval(Duration.ofSeconds(1))
                .start();
        verifierClient = KubernetesClient.builder(
                        ClientConfig.builder().server(server.url().toString()).build())
                .rateLimiter(RateLimiter.unlimited())
                .build();
        verifierClient
                .resources(Namespace.class)
                .create(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(NAMESPACE)
                        .endMetadata()
                        .build());
        ChaosWriter writer = new ChaosWriter(
                server.url(), NAMESPACE, SEED, KEYS, OPERATIONS, RateLimiter.tokenBucket(WRITES_PER_SECOND, 1));
        writer.populate(INITIAL_OBJECTS);
        try (KubernetesClient seeded = KubernetesClient.builder(
                        ClientConfig.builder().server(server.url().toString()).build())
                .build()) {
            await().atMost(Duration.ofSeconds(10)).until(() -> seeded.resources(ConfigMap.class)
                    .inNamespace(NAMESPACE)
                    .get("kube-root-ca.crt")
                    .isPresent());
        }

        // The informer's client: kubeloop's User-Agent (a partition scoped to "kubeloop/" cuts it off), a short
        // idle rule so that a stalled watch is replaced, requests that outlast a partition.
        informerClient = KubernetesClient.builder(
                        ClientConfig.builder().server(server.url().toString()).build())
                .rateLimiter(RateLimiter.unlimited())
                .watchIdleTimeout(WATCH_IDLE_TIMEOUT)
                .requestTimeout(Duration.ofSeconds(30))
                .build();
        ResourceClient<ConfigMap> configMaps =
                informerClient.resources(ConfigMap.class).inNamespace(NAMESPACE);
        CountingListerWatcher<ConfigMap> source = new CountingListerWatcher<>(ListerWatchers.forClient(configMaps));
        // client-go's backoff, capped at 4 s instead of 30 s so that convergence is bounded well within the
        // test's time (the last injected 500s may leave the reflector backing off when the faults stop).
        informer = SharedIndexInformer.builder(source, ConfigMap.class)
                .name("chaos-configmaps")
                .resyncPeriod(Duration.ofSeconds(2))
                .reflector(r -> r.backoff(Backoff.DEFAULT.withCap(Duration.ofSeconds(4))))
                .build();
        LastViews plain = new LastViews("handler-a (no resync)");
        LastViews resyncing = new LastViews("handler-b (resync 2 s)");
        informer.addEventHandlerWithResyncPeriod(plain, Duration.ZERO);
        informer.addEventHandler(resyncing);
        assertThat(CacheMutationDetector.isEnabled())
                .as("the suite runs with the cache mutation detector on (surefire's kubeloop.cacheMutationDetector)")
                .isTrue();
        informer.start();
        assertThat(SharedIndexInformer.waitForCacheSync(Duration.ofSeconds(30), informer::hasSynced))
                .as("initial sync")
                .isTrue();
        // and the namespace's kube-root-ca.crt, as on a cluster (waited for above)
        assertThat(informer.indexer().listKeys()).hasSize(INITIAL_OBJECTS + 1);

        Faults faults = server.faults();
        // Compactions are paired with a stall or a partition, a few writes after it starts (well within it even on a
        // slow machine): the informer is behind when its watch is closed, so its re-watch gets 410 and it must
        // relist (a compaction while it is up to date costs it nothing).
        List<Step> schedule = List.of(
                new Step(50, "close every configmap watch", () -> faults.closeWatches("configmaps")),
                new Step(
                        100,
                        "stall configmap watch events for 3 s",
                        () -> faults.stall(Duration.ofSeconds(3), "configmaps")),
                new Step(
                        115,
                        "compact and close the watches during the stall (re-watch: 410); the relist gets "
                                + "3 × 503 with Retry-After 1",
                        () -> {
                            faults.fail(Failure.status(503)
                                    .count(3)
                                    .retryAfterSeconds(1)
                                    .resource("configmaps")
                                    .verb("list"));
                            faults.compact();
                            faults.closeWatches("configmaps");
                        }),
                new Step(220, "latency 100-400 ms on configmap lists and watches for 4 s; close the watches", () -> {
                    faults.latency(Latency.of(Duration.ofMillis(100))
                            .jitter(Duration.ofMillis(300))
                            .duration(Duration.ofSeconds(4))
                            .resource("configmaps")
                            .verb("list"));
                    faults.latency(Latency.of(Duration.ofMillis(100))
                            .jitter(Duration.ofMillis(300))
                            .duration(Duration.ofSeconds(4))
                            .resource("configmaps")
                            .verb("watch"));
                    faults.closeWatches("configmaps");
                }),
                new Step(
                        300,
                        "partition the informer (User-Agent kubeloop/) for 3 s; the writer goes on",
                        () -> faults.partition(Duration.ofSeconds(3), "kubeloop/")),
                new Step(
                        315,
                        "compact and close the watches during the partition: deletions meanwhile come back "
                                + "as tombstones",
                        () -> {
                            faults.compact();
                            faults.closeWatches("configmaps");
                        }),
                new Step(
                        420,
                        "stall configmap watch events for 6 s (longer than the idle rule)",
                        () -> faults.stall(Duration.ofSeconds(6), "configmaps")),
                new Step(440, "compact and close the watches during the stall", () -> {
                    faults.compact();
                    faults.closeWatches("configmaps");
                }),
                new Step(
                        560,
                        "429 with Retry-After 1 on half the configmap lists and watches for 3 s; close the "
                                + "watches",
                        () -> {
                            faults.fail(Failure.status(429)
                                    .fraction(0.5)
                                    .retryAfterSeconds(1)
                                    .duration(Duration.ofSeconds(3))
                                    .resource("configmaps")
                                    .verb("list"));
                            faults.fail(Failure.status(429)
                                    .fraction(0.5)
                                    .retryAfterSeconds(1)
                                    .duration(Duration.ofSeconds(3))
                                    .resource("configmaps")
                                    .verb("watch"));
                            faults.closeWatches("configmaps");
                        }),
                new Step(
                        660,
                        "2 × 500 (no Retry-After) on configmap watches, then close them: the reflector " + "backs off",
                        () -> {
                            faults.fail(Failure.status(500)
                                    .count(2)
                                    .resource("configmaps")
                                    .verb("watch"));
                            faults.closeWatches("configmaps");
                        }),
                new Step(
                        740,
                        "stall configmap watch events for 3 s",
                        () -> faults.stall(Duration.ofSeconds(3), "configmaps")),
                new Step(
                        755,
                        "compact and close the watches during the stall; the relist gets 2 × 503 without "
                                + "Retry-After",
                        () -> {
                            faults.fail(Failure.status(503)
                                    .count(2)
                                    .resource("configmaps")
                                    .verb("list"));
                            faults.compact();
                            faults.closeWatches("configmaps");
                        }),
                new Step(880, "close every configmap watch", () -> faults.closeWatches("configmaps")));

        writerThread = Thread.ofPlatform().name("chaos-writer").daemon().start(writer);
        for (Step step : schedule) {
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> writer.done() >= step.atOperation() || writer.finished());
            assertThat(writer.failure()).as("the writer failed").isNull();
            faultLog.add("at write " + writer.done() + ": " + step.description());
            log.info("chaos fault at write {}: {}", writer.done(), step.description());
            step.action().run();
        }
        await().atMost(Duration.ofSeconds(60)).until(writer::finished);
        assertThat(writer.failure()).as("the writer failed").isNull();
        faults.clear();
        log.info("chaos: faults over; writer: {}; informer source: {}", writer, source);

        // Convergence: the auditor (a client of its own, no faults) finds no drift, the cache is the server's
        // state to the byte, and every handler's last view is every object's final state.
        ResourceClient<ConfigMap> truth =
                verifierClient.resources(ConfigMap.class).inNamespace(NAMESPACE);
        try (CacheAuditor<ConfigMap> auditor = CacheAuditor.builder(ListerWatchers.forClient(truth), informer.indexer())
                .name("chaos-configmaps")
                .settleTime(Duration.ofMillis(500))
                .build()) {
            await().atMost(CONVERGENCE).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                AuditResult audit = auditor.audit();
                assertThat(audit.isClean()).as("audit: %s", audit).isTrue();
                ListPage<ConfigMap> state = truth.list();
                assertThat(snapshot(informer.indexer().list())).as("the cache").isEqualTo(snapshot(state.items()));
                assertFinalViews(plain, state.items(), writer);
                assertFinalViews(resyncing, state.items(), writer);
            });
        } catch (AssertionError | ConditionTimeoutException e) {
            throw new AssertionError(
                    "chaos run with seed " + SEED + " did not converge within " + CONVERGENCE
                            + "; writer " + writer + "; informer source " + source + "; " + plain + "; " + resyncing
                            + "; informer health " + informer.health() + "; faults:\n  "
                            + String.join("\n  ", faultLog),
                    e);
        }

        assertThat(plain.breaches()).as("handler contract breaches").isEmpty();
        assertThat(resyncing.breaches()).as("handler contract breaches").isEmpty();
        // The faults reached the informer: it relisted after the compactions and met the injected failures.
        assertThat(source.firstPages.get())
                .as("lists (initial + relists): %s", source)
                .isGreaterThanOrEqualTo(3);
        assertThat(source.failures).as("failures the informer met: %s", source).isNotEmpty();
        assertThat(writer.everCreated().size()).as("objects that existed").isGreaterThan(INITIAL_OBJECTS);
        // Watching again (a watch closed or failed by the last faults may still be in its backoff right now).
        await().atMost(Duration.ofSeconds(45)).until(informer::isWatching);
        log.info("chaos converged: writer {}; source {}; {}; {}", writer, source, plain, resyncing);
    }

    /** Every object's key → resourceVersion and data: what "equal" means for the cache and the server. */
    private static Map<String, String> snapshot(List<ConfigMap> objects) {
        return objects.stream()
                .collect(Collectors.toMap(
                        Keys.META_NAMESPACE::keyOf,
                        o -> o.getMetadata().getResourceVersion() + " "
                                + new TreeMap<>(Objects.requireNonNullElse(o.getData(), Map.of())),
                        (a, b) -> {
                            throw new AssertionError("two objects under one key: " + a + ", " + b);
                        },
                        TreeMap::new));
    }

    private static void assertFinalViews(LastViews views, List<ConfigMap> state, ChaosWriter writer) {
        Map<String, ConfigMap> live =
                state.stream().collect(Collectors.toMap(Keys.META_NAMESPACE::keyOf, Function.identity()));
        List<String> wrong = new ArrayList<>();
        for (String name : writer.everCreated()) {
            String key = NAMESPACE + "/" + name;
            LastViews.View last = views.lastView(key);
            ConfigMap current = live.get(key);
            if (current != null) {
                if (last == null
                        || last.kind() == LastViews.Kind.DELETED
                        || !current.getMetadata().getResourceVersion().equals(last.resourceVersion())) {
                    wrong.add(key + ": exists at " + current.getMetadata().getResourceVersion() + ", last view "
                            + describe(last));
                }
            } else if (last != null && last.kind() != LastViews.Kind.DELETED) {
                wrong.add(key + ": deleted, last view " + describe(last));
            }
        }
        assertThat(wrong).as("%s: wrong last views", views.name()).isEmpty();
    }

    private static String describe(LastViews.View view) {
        return view == null
                ? "none"
                : view.kind() + " at " + view.resourceVersion() + (view.tombstone() ? " (tombstone)" : "");
    }
}
