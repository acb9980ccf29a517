package io.kubeloop.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.resource.ResourceClient;
import io.kubeloop.clock.Clock;
import io.kubeloop.informer.SharedIndexInformer;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.core.ConditionFactory;

/**
 * A manager on the embedded API server (over HTTP), in one test namespace, with the clock the test chooses, and
 * helpers to write ConfigMaps and read the controller's meters.
 */
final class ControllerHarness implements AutoCloseable {

    static final Duration WAIT = Duration.ofSeconds(20);

    final Manager manager;
    final ResourceClient<ConfigMap> configMaps;
    final KubernetesClient client;
    final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final AtomicInteger probes = new AtomicInteger();

    ControllerHarness(KubernetesClient client, String namespace, Clock clock) {
        this.manager = Manager.builder(client)
                .metricsPort(0)
                .healthProbePort(0)
                .namespace(namespace)
                .clock(clock)
                .meterRegistry(registry)
                .gracefulShutdownTimeout(Duration.ZERO)
                .build();
        this.client = client;
        this.configMaps = client.resources(ConfigMap.class).inNamespace(namespace);
    }

    static ConditionFactory eventually() {
        return await().atMost(WAIT).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(2));
    }

    /**
     * Starts the informers and waits (in real time) for them to sync, then starts the manager: its own wait for the
     * caches then returns at once, even on a fake clock.
     */
    @SafeVarargs
    final void start(Class<? extends io.fabric8.kubernetes.api.model.HasMetadata>... types) throws Exception {
        manager.informerFactory().start();
        for (Class<? extends io.fabric8.kubernetes.api.model.HasMetadata> type : types) {
            SharedIndexInformer<?> informer = informer(type);
            eventually().until(informer::hasSynced);
        }
        manager.start();
    }

    void start() throws Exception {
        start(ConfigMap.class);
    }

    ConfigMap create(String name, Map<String, String> data) {
        return configMaps.create(new ConfigMapBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withData(data)
                .build());
    }

    ConfigMap create(String name) {
        return create(name, Map.of());
    }

    ConfigMap setData(String name, String key, String value) {
        return configMaps.edit(
                name, cm -> new ConfigMapBuilder(cm).addToData(key, value).build());
    }

    /** Waits until {@code name} was reconciled {@code times} times and no reconcile is in progress. */
    void awaitSettled(Recorder<?> recorder, String name, int times) {
        eventually().until(() -> recorder.count(name) >= times && activeWorkers() == 0);
        assertThat(recorder.count(name)).as("reconciles of %s", name).isEqualTo(times);
    }

    /**
     * Asserts that {@code name} is still at {@code times} reconciles once a fresh probe object, created now, has been
     * reconciled: with one worker and nothing due, a request of {@code name} ready before the probe would have gone
     * first.
     */
    void assertStillAt(Recorder<?> recorder, String name, int times) {
        String probe = "probe-" + probes.incrementAndGet();
        create(probe);
        eventually().until(() -> recorder.count(probe) >= 1 && activeWorkers() == 0);
        assertThat(recorder.count(name)).as("reconciles of %s", name).isEqualTo(times);
    }

    double counter(String name, String... tags) {
        Counter c = registry.find(name).tags(tags).counter();
        assertThat(c).as("counter %s %s", name, String.join(",", tags)).isNotNull();
        return c.count();
    }

    double gauge(String name, String... tags) {
        Gauge g = registry.find(name).tags(tags).gauge();
        assertThat(g).as("gauge %s %s", name, String.join(",", tags)).isNotNull();
        return g.value();
    }

    /** The controller's queue depth summed over its priorities. */
    double depth(String controller) {
        return registry.find("workqueue.depth").tag("name", controller).gauges().stream()
                .mapToDouble(Gauge::value)
                .sum();
    }

    double activeWorkers() {
        Gauge g = registry.find("controller.runtime.active.workers").gauge();
        return g == null ? 0 : g.value();
    }

    <T extends io.fabric8.kubernetes.api.model.HasMetadata> SharedIndexInformer<T> informer(Class<T> type) {
        return manager.informerFactory().informerFor(type);
    }

    @Override
    public void close() {
        manager.close();
    }
}
