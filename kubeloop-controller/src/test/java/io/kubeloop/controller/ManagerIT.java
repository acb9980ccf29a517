package io.kubeloop.controller;

import static io.kubeloop.testsupport.TestThreads.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.clock.FakeClock;
import io.kubeloop.informer.SharedIndexInformer;
import io.kubeloop.testsupport.TestThreads;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.ConnectException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The manager against the embedded API server over HTTP: start order, endpoints, probes, caches, shutdown. */
class ManagerIT {

    private static final String NS = "manager-it";

    private static EmbeddedApiServer server;
    private static KubernetesClient client;

    @BeforeAll
    static void startServer() {
        server = EmbeddedApiServer.builder().start();
        client = KubernetesClient.create(
                ClientConfig.builder().server(server.url()).build());
        client.resources(Namespace.class)
                .create(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(NS)
                        .endMetadata()
                        .build());
    }

    @AfterAll
    static void stopServer() {
        client.close();
        server.close();
    }

    private static Manager.Builder manager() {
        return Manager.builder(client).namespace(NS).metricsPort(0).healthProbePort(0);
    }

    @Test
    void servesMetricsAndProbesAndLeavesNoThreadBehind() throws Exception {
        Set<Thread> before = Probes.liveThreads();
        client.resources(ConfigMap.class)
                .inNamespace(NS)
                .create(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName("first")
                        .endMetadata()
                        .addToData("k", "v")
                        .build());
        Manager manager = manager().build();
        SharedIndexInformer<ConfigMap> configMaps = manager.informerFactory().informerFor(ConfigMap.class);
        AtomicBoolean healthy = new AtomicBoolean(true);
        manager.addReadinessCheck("custom", () -> {
            if (!healthy.get()) {
                throw new IllegalStateException("custom says no");
            }
        });
        assertThat(manager.readinessProblems()).contains("not started");
        manager.start();
        try {
            int probes = manager.healthProbePort();
            int metrics = manager.metricsPort();
            assertThat(probes).isPositive();
            assertThat(metrics).isPositive().isNotEqualTo(probes);
            assertThat(configMaps.hasSynced()).isTrue();
            // the cache: compact, no managedFields
            ConfigMap cached = configMaps.lister().namespace(NS).get("first").orElseThrow();
            assertThat(cached.getMetadata().getManagedFields()).isNullOrEmpty();

            eventually().until(() -> Probes.get(probes, "/readyz").status() == 200);
            assertThat(Probes.get(probes, "/readyz").body()).isEqualTo("ok");
            Probes.Answer verbose = Probes.get(probes, "/readyz?verbose");
            assertThat(verbose.status()).isEqualTo(200);
            assertThat(verbose.body()).contains("[+]informers ok", "[+]rbac ok", "[+]custom ok", "readyz check passed");
            assertThat(Probes.get(probes, "/readyz/informers")).isEqualTo(new Probes.Answer(200, "ok"));
            assertThat(Probes.get(probes, "/readyz/nope").status()).isEqualTo(404);
            assertThat(Probes.get(probes, "/healthz?verbose").body())
                    .contains("[+]ping ok", "[+]runnables ok", "healthz check passed");

            healthy.set(false);
            Probes.Answer failing = Probes.get(probes, "/readyz");
            assertThat(failing.status()).isEqualTo(500);
            assertThat(failing.body()).contains("[-]custom failed: custom says no", "readyz check failed");
            assertThat(Probes.get(probes, "/readyz/custom").body()).contains("custom says no");
            assertThat(Probes.get(probes, "/readyz?exclude=custom").status()).isEqualTo(200);
            assertThat(Probes.get(probes, "/readyz?exclude=custom&verbose").body())
                    .contains("[+]custom excluded: ok");
            assertThat(Probes.get(probes, "/healthz").status()).isEqualTo(200);

            Probes.Answer scrape = Probes.get(metrics, "/metrics");
            assertThat(scrape.status()).isEqualTo(200);
            assertThat(scrape.body()).contains("informer_cache_objects");
        } finally {
            manager.close();
            manager.close(); // idempotent
        }
        int probes = manager.healthProbePort();
        assertThat(probes).isEqualTo(-1);
        assertThat(configMaps.isStopped()).isTrue();
        eventually().untilAsserted(() -> assertThat(Probes.newThreads(before)).isEmpty());
    }

    @Test
    void closedManagerAnswersNoMore() throws Exception {
        Manager manager = manager().build();
        manager.informerFactory().informerFor(ConfigMap.class);
        manager.start();
        int port = manager.healthProbePort();
        assertThat(Probes.get(port, "/healthz").status()).isEqualTo(200);
        manager.close();
        assertThatThrownBy(() -> Probes.get(port, "/healthz")).isInstanceOf(ConnectException.class);
        assertThatThrownBy(manager::start).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void endpointsCanBeTurnedOff() {
        try (Manager manager = Manager.builder(client)
                .namespace(NS)
                .metricsPort(-1)
                .healthProbePort(-1)
                .build()) {
            manager.start();
            assertThat(manager.metricsPort()).isEqualTo(-1);
            assertThat(manager.healthProbePort()).isEqualTo(-1);
            assertThat(manager.readinessProblems()).isNull();
            assertThat(manager.livenessProblems()).isNull();
        }
    }

    @Test
    void startsOthersAfterCachesThenLeaderRunnablesAndStopsInReverse() {
        List<String> events = new CopyOnWriteArrayList<>();
        Manager manager = manager().metricsPort(-1).healthProbePort(-1).build();
        SharedIndexInformer<ConfigMap> configMaps = manager.informerFactory().informerFor(ConfigMap.class);
        manager.add(new Recording("controller", true, events, configMaps));
        manager.add(new Recording("other", false, events, configMaps));
        manager.start();
        assertThat(events).containsExactly("start other synced=true", "start controller synced=true");
        manager.close();
        assertThat(events).endsWith("stop controller", "stop other");
    }

    @Test
    void aControllersOwnedAndWatchedInformersSyncWithTheOthersBeforeItStarts() {
        try (Manager manager = manager().metricsPort(-1).healthProbePort(-1).build()) {
            manager.newControllerFor(ConfigMap.class)
                    .owns(io.fabric8.kubernetes.api.model.Secret.class)
                    .complete(request -> Result.done());
            manager.start();
            assertThat(manager.informerFactory().informers().values())
                    .extracting(SharedIndexInformer::name)
                    .contains("configmaps in " + NS, "secrets in " + NS);
            assertThat(manager.informerFactory().informers().values()).allMatch(SharedIndexInformer::hasSynced);
        }
    }

    @Test
    void theDefaultTwoMinuteCacheSyncTimeoutRunsOnTheManagersClock() throws Exception {
        FakeClock clock = new FakeClock();
        server.faults().partition(Duration.ofMinutes(10), "cut-off/"); // this client's list never answers
        try (KubernetesClient cutOff = KubernetesClient.builder(
                                ClientConfig.builder().server(server.url()).build())
                        .clock(clock)
                        .userAgent("cut-off/1.0")
                        .build();
                Manager manager = Manager.builder(cutOff)
                        .namespace(NS)
                        .metricsPort(-1)
                        .healthProbePort(-1)
                        .build()) {
            manager.informerFactory().informerFor(ConfigMap.class);
            TestThreads.Call<Void> starting = TestThreads.start(() -> {
                manager.start();
                return null;
            });
            eventually().until(() -> clock.waiterCount() > 0 && starting.isParkedOrDone());
            clock.step(Duration.ofMinutes(2).minusSeconds(1));
            starting.awaitBlocked();
            clock.step(Duration.ofSeconds(1));
            assertThatThrownBy(starting::join)
                    .hasRootCauseInstanceOf(IllegalStateException.class)
                    .rootCause()
                    .hasMessageContaining("WaitForCacheSync timed out after PT2M")
                    .hasMessageContaining("configmaps in " + NS);
        } finally {
            server.faults().clear();
        }
    }

    @Test
    void anotherKindOfRegistryIsCombinedWithThePrometheusOneBehindMetrics() throws Exception {
        SimpleMeterRegistry simple = new SimpleMeterRegistry();
        try (Manager manager =
                manager().meterRegistry(simple).healthProbePort(-1).build()) {
            manager.informerFactory().informerFor(ConfigMap.class);
            manager.start();
            assertThat(simple.find("informer.cache.objects").gauge()).isNotNull();
            assertThat(Probes.get(manager.metricsPort(), "/metrics").body()).contains("informer_cache_objects");
        }
    }

    @Test
    void closeLetsAnInFlightReconcileFinishAndTakesNoNewKeys() throws Exception {
        CountDownLatch inReconcile = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<String> finished = new CopyOnWriteArrayList<>();
        Manager manager = manager().metricsPort(-1).healthProbePort(-1).build();
        manager.newControllerFor(ConfigMap.class).named("graceful").complete(request -> {
            if (request.name().equals("slow")) {
                inReconcile.countDown();
                if (!release.await(TestThreads.TIMEOUT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
                    throw new IllegalStateException("never released");
                }
            }
            finished.add(request.name());
            return Result.done();
        });
        manager.start();
        client.resources(ConfigMap.class)
                .inNamespace(NS)
                .create(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName("slow")
                        .endMetadata()
                        .build());
        assertThat(inReconcile.await(TestThreads.TIMEOUT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS))
                .isTrue();
        TestThreads.Call<Void> closing = TestThreads.start(() -> {
            manager.close();
            return null;
        });
        closing.awaitBlocked(); // waits for the reconcile in flight
        release.countDown();
        closing.join();
        assertThat(finished).contains("slow");
        client.resources(ConfigMap.class).inNamespace(NS).delete("slow");
    }

    @Test
    void aRunnableThatFailsToStartFailsLiveness() throws Exception {
        try (Manager manager = manager().metricsPort(-1).build()) {
            manager.add(new ManagedRunnable() {
                @Override
                public void start() {
                    throw new IllegalStateException("boom");
                }

                @Override
                public void stop(Duration timeout) {}

                @Override
                public String toString() {
                    return "exploding";
                }
            });
            manager.start();
            Probes.Answer healthz = Probes.get(manager.healthProbePort(), "/healthz");
            assertThat(healthz.status()).isEqualTo(500);
            assertThat(healthz.body()).contains("[-]runnables failed: exploding: start failed", "boom");
        }
    }

    @Test
    void rejectsBadSettings() {
        assertThatThrownBy(() -> Manager.builder(client).metricsPort(70000))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("metricsPort 70000");
        assertThatThrownBy(() -> Manager.builder(client).namespace(" "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("namespace is blank");
        assertThatThrownBy(() -> Manager.builder(client).build().addReadinessCheck("a b", () -> {}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("a b");
    }

    @Test
    void aPortInUseFailsStartNamingThePort() {
        try (Manager first = manager().healthProbePort(-1).build()) {
            first.start();
            try (Manager second = manager().metricsPort(first.metricsPort()).build()) {
                assertThatThrownBy(second::start)
                        .hasMessageContaining("cannot serve metrics on")
                        .hasMessageContaining(":" + first.metricsPort());
            }
        }
    }

    /** Records its start (with whether the cache has synced) and stop. */
    private record Recording(String name, boolean leader, List<String> events, SharedIndexInformer<?> informer)
            implements ManagedRunnable {
        @Override
        public void start() {
            events.add("start " + name + " synced=" + informer.hasSynced());
        }

        @Override
        public void stop(Duration timeout) {
            events.add("stop " + name);
        }

        @Override
        public boolean needsLeaderElection() {
            return leader;
        }
    }
}
