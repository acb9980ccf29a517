package io.kubeloop.informer.audit;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.kubeloop.client.errors.ExpiredException;
import io.kubeloop.client.errors.KubernetesApiException;
import io.kubeloop.client.errors.ServiceUnavailableException;
import io.kubeloop.clock.FakeClock;
import io.kubeloop.informer.cache.KnownObjects;
import io.kubeloop.informer.testing.ApiErrors;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * CacheAuditor's rules, scenario by scenario, against a scripted server and a hand-built cache, with the settle
 * time on a fake clock: what is reported, what settles, paging, metrics, the log-free parts of the result, the
 * periodic mode and the builder's checks.
 */
class CacheAuditorTest {

    private static final Duration SETTLE = Duration.ofSeconds(2);

    private final FakeClock clock = new FakeClock();
    private final ScriptedServer server = new ScriptedServer();
    private final MapCache cache = new MapCache();
    private CacheAuditor<ConfigMap> auditor;

    @BeforeEach
    void threeObjectsInSync() {
        server.put("default/a");
        server.put("default/b");
        server.put("default/c");
        cache.copy(server);
        auditor = CacheAuditor.builder(server, cache)
                .name("configmaps")
                .clock(clock)
                .settleTime(SETTLE)
                .build();
    }

    @AfterEach
    void close() {
        auditor.close();
    }

    // ---------------------------------------------------------------------------------------------------------
    // What is reported and what settles

    /**
     * A scenario: {@code before} makes the cache differ from the server before the audit's first look;
     * {@code duringSettle} runs while the audit waits its settle time (events arriving, more writes). The expected
     * lists are keys; a stale entry must carry the cache's and the server's resourceVersion as they end up.
     */
    record Scenario(
            String name,
            BiConsumer<ScriptedServer, MapCache> before,
            BiConsumer<ScriptedServer, MapCache> duringSettle,
            List<String> missing,
            List<String> extra,
            List<String> stale) {
        @Override
        public String toString() {
            return name;
        }
    }

    private static final BiConsumer<ScriptedServer, MapCache> NOTHING = (s, c) -> {};

    static Stream<Arguments> scenarios() {
        return Stream.of(
                        new Scenario("in sync", NOTHING, NOTHING, List.of(), List.of(), List.of()),
                        // drift that persists
                        new Scenario(
                                "a create never delivered",
                                (s, c) -> s.put("default/d"),
                                NOTHING,
                                List.of("default/d"),
                                List.of(),
                                List.of()),
                        new Scenario(
                                "a delete never delivered: a ghost",
                                (s, c) -> s.remove("default/a"),
                                NOTHING,
                                List.of(),
                                List.of("default/a"),
                                List.of()),
                        new Scenario(
                                "an update never delivered",
                                (s, c) -> s.put("default/b"),
                                NOTHING,
                                List.of(),
                                List.of(),
                                List.of("default/b")),
                        new Scenario(
                                "an object the server never had",
                                (s, c) -> c.put(cm("other/x", "7")),
                                NOTHING,
                                List.of(),
                                List.of("other/x"),
                                List.of()),
                        new Scenario(
                                "a cached copy without resourceVersion",
                                (s, c) -> c.put(cm("default/c", null)),
                                NOTHING,
                                List.of(),
                                List.of(),
                                List.of("default/c")),
                        new Scenario(
                                "every kind at once, sorted by key",
                                (s, c) -> {
                                    s.put("default/e");
                                    s.put("default/d");
                                    s.remove("default/a");
                                    s.put("default/c");
                                    s.put("default/b");
                                },
                                NOTHING,
                                List.of("default/d", "default/e"),
                                List.of("default/a"),
                                List.of("default/b", "default/c")),
                        new Scenario(
                                "a ghost whose key the server creates again during the settle time",
                                (s, c) -> s.remove("default/a"),
                                (s, c) -> s.put("default/a"),
                                List.of(),
                                List.of(),
                                List.of("default/a")),
                        new Scenario(
                                "missing, and the server updates it again during the settle time",
                                (s, c) -> s.put("default/d"),
                                (s, c) -> s.put("default/d"),
                                List.of("default/d"),
                                List.of(),
                                List.of()),
                        // in flight: settles within the settle time, never reported
                        new Scenario(
                                "a create delivered during the settle time",
                                (s, c) -> s.put("default/d"),
                                (s, c) -> c.put(s.get("default/d")),
                                List.of(),
                                List.of(),
                                List.of()),
                        new Scenario(
                                "a delete delivered during the settle time",
                                (s, c) -> s.remove("default/a"),
                                (s, c) -> c.remove("default/a"),
                                List.of(),
                                List.of(),
                                List.of()),
                        new Scenario(
                                "an update delivered during the settle time",
                                (s, c) -> s.put("default/b"),
                                (s, c) -> c.put(s.get("default/b")),
                                List.of(),
                                List.of(),
                                List.of()),
                        new Scenario(
                                "the cache reaches the first look's version while the server moves on",
                                (s, c) -> s.put("default/b"),
                                (s, c) -> {
                                    c.put(s.get("default/b"));
                                    s.put("default/b");
                                },
                                List.of(),
                                List.of(),
                                List.of()),
                        new Scenario(
                                "a missing object deleted on the server during the settle time",
                                (s, c) -> s.put("default/d"),
                                (s, c) -> s.remove("default/d"),
                                List.of(),
                                List.of(),
                                List.of()),
                        new Scenario(
                                "a ghost deleted from the cache and an update still lost: only the update",
                                (s, c) -> {
                                    s.remove("default/a");
                                    s.put("default/b");
                                },
                                (s, c) -> c.remove("default/a"),
                                List.of(),
                                List.of(),
                                List.of("default/b")),
                        new Scenario(
                                "one create delivered in time, one never",
                                (s, c) -> {
                                    s.put("default/d");
                                    s.put("default/e");
                                },
                                (s, c) -> c.put(s.get("default/d")),
                                List.of("default/e"),
                                List.of(),
                                List.of()))
                .map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scenarios")
    void reportsWhatPersistsAfterTheSettleTime(Scenario scenario) throws Exception {
        scenario.before().accept(server, cache);

        AuditResult result = auditStepping(() -> scenario.duringSettle().accept(server, cache));

        assertThat(result.missingInCache()).as("missing").isEqualTo(scenario.missing());
        assertThat(result.extraInCache()).as("extra").isEqualTo(scenario.extra());
        assertThat(result.staleInCache())
                .extracting(AuditResult.StaleObject::key)
                .as("stale")
                .isEqualTo(scenario.stale());
        for (AuditResult.StaleObject s : result.staleInCache()) {
            assertThat(s.cachedResourceVersion())
                    .as("cached RV of %s", s.key())
                    .isEqualTo(CacheAuditor.resourceVersionOf(
                            cache.getByKey(s.key()).orElseThrow()));
            assertThat(s.serverResourceVersion())
                    .as("server RV of %s", s.key())
                    .isEqualTo(server.get(s.key()).getMetadata().getResourceVersion());
        }
        assertThat(result.isClean())
                .isEqualTo(scenario.missing().isEmpty()
                        && scenario.extra().isEmpty()
                        && scenario.stale().isEmpty());
        assertThat(result.checkedObjects())
                .as("objects in the last list")
                .isEqualTo(server.objects().size());
        assertThat(auditor.lastResult()).contains(result);
    }

    @Test
    void aCleanCacheIsReportedAtOnceWithOneList() throws Exception {
        // Not one clock step: a clean first look must not wait the settle time.
        CompletableFuture<AuditResult> audit = startAudit();
        AuditResult result = audit.get(30, SECONDS);

        assertThat(result.isClean()).isTrue();
        assertThat(result.checkedObjects()).isEqualTo(3);
        assertThat(result.serverResourceVersion()).isEqualTo("3");
        assertThat(server.lists()).isEqualTo(1);
    }

    @Test
    void waitsTheWholeSettleTimeOnTheClockBeforeLookingAgain() throws Exception {
        server.put("default/d");
        CompletableFuture<AuditResult> audit = startAudit();
        await().until(clock::hasWaiters);
        assertThat(server.lists()).as("the first look").isEqualTo(1);

        clock.step(SETTLE.minusMillis(1));
        assertThat(clock.hasWaiters())
                .as("still waiting 1 ms before the settle time")
                .isTrue();
        assertThat(audit).isNotDone();
        assertThat(server.lists()).isEqualTo(1);

        clock.step(Duration.ofMillis(1));
        assertThat(audit.get(30, SECONDS).missingInCache()).containsExactly("default/d");
        assertThat(server.lists()).as("the first look and the check").isEqualTo(2);
    }

    @Test
    void aZeroSettleTimeChecksAgainAtOnce() throws Exception {
        auditor.close();
        auditor = CacheAuditor.builder(server, cache)
                .name("configmaps")
                .clock(clock)
                .settleTime(Duration.ZERO)
                .build();
        server.put("default/d");

        AuditResult result = startAudit().get(30, SECONDS);

        assertThat(result.missingInCache()).containsExactly("default/d");
        assertThat(server.lists()).isEqualTo(2);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Listing the server

    @Test
    void listsEveryPageOfOneSnapshot() throws Exception {
        for (int i = 0; i < 1200; i++) {
            server.put("bulk/o" + i);
        }
        cache.copy(server);

        AuditResult result = startAudit().get(30, SECONDS);

        assertThat(result.isClean()).isTrue();
        assertThat(result.checkedObjects()).isEqualTo(1203);
        assertThat(server.listOptions()).hasSize(3);
        assertThat(server.listOptions().getFirst().limit()).isEqualTo(500);
        assertThat(server.listOptions().getFirst().continueToken()).isNull();
        assertThat(server.listOptions().getFirst().resourceVersion())
                .as("a consistent read: the newest state")
                .isNull();
        assertThat(server.listOptions().subList(1, 3)).allSatisfy(o -> {
            assertThat(o.continueToken()).isNotNull();
            assertThat(o.limit()).isEqualTo(500);
        });
    }

    @Test
    void aPageSizeOfZeroListsInOneRequest() throws Exception {
        auditor.close();
        auditor = CacheAuditor.builder(server, cache)
                .name("configmaps")
                .clock(clock)
                .pageSize(0)
                .build();
        for (int i = 0; i < 600; i++) {
            server.put("bulk/o" + i);
        }
        cache.copy(server);

        assertThat(startAudit().get(30, SECONDS).checkedObjects()).isEqualTo(603);
        assertThat(server.listOptions())
                .singleElement()
                .extracting(o -> o.limit())
                .isEqualTo(0L);
    }

    @Test
    void anExpiredContinueTokenRereadsTheWholeListUnpaged() throws Exception {
        for (int i = 0; i < 700; i++) {
            server.put("bulk/o" + i);
        }
        cache.copy(server);
        cache.remove("bulk/o650"); // on the second page, which is read twice
        server.expireContinueAfterFirstPage();

        AuditResult result = auditStepping(() -> {});

        assertThat(result.missingInCache()).containsExactly("bulk/o650");
        assertThat(result.checkedObjects()).isEqualTo(703);
        assertThat(server.listOptions().get(2).limit())
                .as("the re-read after the 410")
                .isZero();
        assertThat(server.listOptions().get(2).continueToken()).isNull();
    }

    @Test
    void aFailedListFailsTheAuditWithTheServersError() {
        server.source.failNextLists(1, () -> ApiErrors.expired("1", "3"));
        assertThatThrownBy(auditor::audit).isInstanceOf(ExpiredException.class);

        server.source.failNextLists(1, () -> ApiErrors.serviceUnavailable(1));
        assertThatThrownBy(auditor::audit).isInstanceOf(ServiceUnavailableException.class);
        assertThat(auditor.lastResult()).isEmpty();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Metrics

    @Test
    void theDocumentedMeterTableListsExactlyTheMetersAnAuditorRegisters() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        auditor.close();
        auditor = CacheAuditor.builder(server, cache)
                .name("configmaps")
                .clock(clock)
                .meterRegistry(registry)
                .build();
        io.kubeloop.testsupport.MeterTable.assertDocumented(
                io.kubeloop.testsupport.MeterTable.read("docs/audit.md"), registry);
    }

    @Test
    void metricsShowTheLastResultAndCountAuditsByResult() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        auditor.close();
        auditor = CacheAuditor.builder(server, cache)
                .name("configmaps")
                .clock(clock)
                .meterRegistry(registry)
                .build();
        assertThat(registry.scrape()).contains("informer_cache_drift_objects{name=\"configmaps\"} 0.0");

        server.put("default/d");
        server.remove("default/a");
        auditStepping(() -> {});
        String scrape = registry.scrape();
        assertThat(scrape)
                .contains("# TYPE informer_cache_drift_objects gauge")
                .contains("informer_cache_drift_objects{name=\"configmaps\"} 2.0")
                .contains("# TYPE informer_cache_audits_total counter")
                .contains("informer_cache_audits_total{name=\"configmaps\",result=\"drift\"} 1.0")
                .contains("informer_cache_audits_total{name=\"configmaps\",result=\"clean\"} 0.0");

        cache.copy(server);
        auditStepping(() -> {});
        server.source.failNextLists(1, () -> ApiErrors.serviceUnavailable(1));
        assertThatThrownBy(auditor::audit).isInstanceOf(KubernetesApiException.class);
        scrape = registry.scrape();
        assertThat(scrape)
                .contains("informer_cache_drift_objects{name=\"configmaps\"} 0.0")
                .contains("informer_cache_audits_total{name=\"configmaps\",result=\"clean\"} 1.0")
                .contains("informer_cache_audits_total{name=\"configmaps\",result=\"drift\"} 1.0")
                .contains("informer_cache_audits_total{name=\"configmaps\",result=\"error\"} 1.0");

        auditor.close();
        assertThat(registry.scrape())
                .as("a closed auditor's gauge is gone")
                .doesNotContain("informer_cache_drift_objects")
                .contains("informer_cache_audits_total{name=\"configmaps\",result=\"drift\"} 1.0");
    }

    @Test
    void twoAuditorsInOneRegistryAreTwoSeries() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        ScriptedServer other = new ScriptedServer();
        other.put("default/z");
        try (CacheAuditor<ConfigMap> pods = CacheAuditor.builder(server, cache)
                        .name("pods")
                        .clock(clock)
                        .meterRegistry(registry)
                        .settleTime(Duration.ZERO)
                        .build();
                CacheAuditor<ConfigMap> nodes = CacheAuditor.builder(other, new MapCache())
                        .name("nodes")
                        .clock(clock)
                        .meterRegistry(registry)
                        .settleTime(Duration.ZERO)
                        .build()) {
            pods.audit();
            nodes.audit();
            assertThat(registry.scrape())
                    .contains("informer_cache_drift_objects{name=\"pods\"} 0.0")
                    .contains("informer_cache_drift_objects{name=\"nodes\"} 1.0");
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // The result

    @Test
    void theResultReadsWellAndNamesAtMostTenKeysOfEachKind() {
        AuditResult clean = new AuditResult(List.of(), List.of(), List.of(), 120, "345");
        assertThat(clean).hasToString("clean: 120 objects at resourceVersion 345");
        assertThat(clean.isClean()).isTrue();

        List<String> many =
                Stream.iterate(0, i -> i + 1).limit(12).map(i -> "ns/o" + i).toList();
        AuditResult drift = new AuditResult(
                many, List.of("ns/ghost"), List.of(new AuditResult.StaleObject("ns/c", "12", "15")), 130, "400");
        assertThat(drift.isClean()).isFalse();
        assertThat(drift.driftedObjects()).isEqualTo(14);
        assertThat(drift)
                .hasToString("drift: 12 missing in cache [ns/o0, ns/o1, ns/o2, ns/o3, ns/o4, ns/o5, "
                        + "ns/o6, ns/o7, ns/o8, ns/o9, … 2 more], 1 extra in cache [ns/ghost], 1 stale in cache "
                        + "[ns/c (cached 12, server 15)]; 130 objects at resourceVersion 400");
        assertThat(drift.exampleKeys(13)).endsWith("ns/o11", "ns/ghost");
        assertThat(drift.exampleKeys(20)).endsWith("ns/ghost", "ns/c").hasSize(14);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Periodic mode, close

    @Test
    void periodicModeAuditsEveryPeriodOnItsOwnNamedThreadUntilClosed() throws Exception {
        AtomicReference<Thread> thread = new AtomicReference<>();
        auditor.close();
        auditor = CacheAuditor.builder(server, cache)
                .name("configmaps")
                .clock(clock)
                .settleTime(Duration.ZERO)
                .threadFactory(r -> {
                    Thread t = Thread.ofPlatform()
                            .name("audit-under-test")
                            .daemon()
                            .unstarted(r);
                    thread.set(t);
                    return t;
                })
                .build();
        auditor.startPeriodic(Duration.ofMinutes(10));
        await().until(clock::hasWaiters);
        assertThat(server.lists()).as("no audit before the first period").isEqualTo(0);

        clock.step(Duration.ofMinutes(10));
        await().until(() -> server.lists() == 1 && clock.hasWaiters());
        assertThat(auditor.lastResult())
                .hasValueSatisfying(r -> assertThat(r.isClean()).isTrue());

        server.put("default/d");
        server.source.failNextLists(1, () -> ApiErrors.serviceUnavailable(1));
        clock.step(Duration.ofMinutes(10));
        await().until(() -> server.lists() == 2 && clock.hasWaiters());
        assertThat(thread.get().isAlive())
                .as("a failed audit does not end the periodic mode")
                .isTrue();
        server.source.failNextLists(1, () -> new IllegalStateException("the server repeated the continue token"));
        clock.step(Duration.ofMinutes(10));
        await().until(() -> server.lists() == 3 && clock.hasWaiters());
        assertThat(thread.get().isAlive())
                .as("nor does an IllegalStateException of the source")
                .isTrue();

        clock.step(Duration.ofMinutes(10));
        await().until(() -> auditor.lastResult().orElseThrow().missingInCache().equals(List.of("default/d")));

        assertThatThrownBy(() -> auditor.startPeriodic(Duration.ofMinutes(1)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already");
        auditor.close();
        assertThat(thread.get().isAlive()).as("close waits for the thread").isFalse();
        assertThat(clock.hasWaiters()).isFalse();
    }

    @Test
    void theDefaultPeriodicThreadIsAVirtualThreadNamedAfterTheAuditor() {
        auditor.startPeriodic(Duration.ofMinutes(10));
        await().until(clock::hasWaiters);
        clock.step(Duration.ofMinutes(10));
        await().until(() -> server.lists() == 1);

        assertThat(server.lastListThread.get().getName()).isEqualTo("cache-auditor-configmaps");
        assertThat(server.lastListThread.get().isVirtual()).isTrue();
        auditor.close();
        assertThat(server.lastListThread.get().isAlive()).isFalse();
    }

    @Test
    void closeEndsAnAuditWaitingItsSettleTimeInPeriodicMode() throws Exception {
        auditor.startPeriodic(Duration.ofMinutes(1));
        await().until(clock::hasWaiters);
        server.put("default/d");
        clock.step(Duration.ofMinutes(1));
        await().until(() -> server.lists() == 1 && clock.hasWaiters()); // in the settle time

        auditor.close();

        assertThat(clock.hasWaiters()).isFalse();
        assertThat(auditor.lastResult())
                .as("the interrupted audit reports nothing")
                .isEmpty();
        assertThatThrownBy(auditor::audit)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("cache auditor configmaps is closed");
        assertThatThrownBy(() -> auditor.startPeriodic(Duration.ofMinutes(1)))
                .isInstanceOf(IllegalStateException.class);
        auditor.close(); // idempotent
    }

    // ---------------------------------------------------------------------------------------------------------
    // Builder

    @Test
    void theBuilderRejectsBadInputNamingIt() {
        var builder = CacheAuditor.builder(server, cache);
        assertThatThrownBy(builder::build)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("name");
        assertThatThrownBy(() -> builder.name(" ")).hasMessageContaining("name must not be blank");
        assertThatThrownBy(() -> builder.settleTime(Duration.ofSeconds(-1)))
                .hasMessageContaining("settleTime must be ≥ 0");
        assertThatThrownBy(() -> builder.pageSize(-1)).hasMessageContaining("pageSize must be ≥ 0: -1");
        assertThatThrownBy(() -> CacheAuditor.builder(null, cache)).hasMessageContaining("source");
        assertThatThrownBy(() -> CacheAuditor.builder(server, null)).hasMessageContaining("cache");
        assertThatThrownBy(() -> auditor.startPeriodic(Duration.ZERO))
                .hasMessageContaining("period must be " + "positive");
    }

    @Test
    void aCustomKeyFunctionIsUsedForTheServersObjects() throws Exception {
        // A cache keyed by name alone (one namespace), as a custom key function would key it.
        KnownObjects<ConfigMap> byName = new KnownObjects<>() {
            @Override
            public List<String> listKeys() {
                return cache.listKeys().stream()
                        .map(k -> k.substring(k.indexOf('/') + 1))
                        .toList();
            }

            @Override
            public Optional<ConfigMap> getByKey(String key) {
                return cache.getByKey("default/" + key);
            }
        };
        server.put("default/d");
        try (CacheAuditor<ConfigMap> a = CacheAuditor.builder(server, byName)
                .name("by-name")
                .clock(clock)
                .keyFunc(o -> ((ConfigMap) o).getMetadata().getName())
                .build()) {
            AuditResult result = auditStepping(a, () -> {});
            assertThat(result.missingInCache()).containsExactly("d");
        }
    }

    // ---------------------------------------------------------------------------------------------------------

    private CompletableFuture<AuditResult> startAudit() {
        return startAudit(auditor);
    }

    private static CompletableFuture<AuditResult> startAudit(CacheAuditor<ConfigMap> auditor) {
        CompletableFuture<AuditResult> future = new CompletableFuture<>();
        Thread.ofVirtual().name("audit-caller").start(() -> {
            try {
                future.complete(auditor.audit());
            } catch (Throwable t) {
                future.completeExceptionally(t);
            }
        });
        return future;
    }

    /** Runs an audit; if it waits its settle time, runs {@code duringSettle} and steps the clock past it. */
    private AuditResult auditStepping(Runnable duringSettle) throws InterruptedException, ExecutionException {
        return auditStepping(auditor, duringSettle);
    }

    private AuditResult auditStepping(CacheAuditor<ConfigMap> auditor, Runnable duringSettle)
            throws InterruptedException, ExecutionException {
        CompletableFuture<AuditResult> audit = startAudit(auditor);
        await().until(() -> audit.isDone() || clock.hasWaiters());
        if (!audit.isDone()) {
            duringSettle.run();
            clock.step(SETTLE);
        }
        try {
            return audit.get(30, SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("the audit did not end after the settle time", e);
        }
    }

    private static ConfigMap cm(String key, String resourceVersion) {
        String[] parts = key.split("/", 2);
        return new ConfigMapBuilder()
                .withNewMetadata()
                .withNamespace(parts[0])
                .withName(parts[1])
                .withResourceVersion(resourceVersion)
                .endMetadata()
                .build();
    }
}
