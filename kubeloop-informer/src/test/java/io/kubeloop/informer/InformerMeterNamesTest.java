package io.kubeloop.informer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.kubeloop.clock.FakeClock;
import io.kubeloop.informer.reflector.Backoff;
import io.kubeloop.informer.testing.ApiErrors;
import io.kubeloop.informer.testing.FakeSource;
import io.kubeloop.testsupport.MeterTable;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The meter tables of docs/informers.md and docs/reflector.md are the meters an informer registers: Micrometer
 * names, types, tags, and the names a Prometheus registry renders. Every meter that is registered lazily (per watch
 * event type, relist reason, restart reason, failed verb) is made to appear first.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InformerMeterNamesTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @Test
    void theDocumentedTablesListExactlyTheMetersAnInformerAndItsReflectorRegister() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        FakeClock clock = new FakeClock();
        FakeSource<Pod> source = new FakeSource<>();
        source.add(pod("a"));
        SharedIndexInformer<Pod> informer = SharedIndexInformer.builder(source, Pod.class)
                .name("pods")
                .clock(clock)
                .meterRegistry(registry)
                .reflector(r -> r.backoff(
                        Backoff.DEFAULT.withInitial(Duration.ofMillis(1)).withJitter(0)))
                .build();
        informer.addEventHandler(new ResourceEventHandler<>() {});
        try {
            informer.start();
            await().atMost(WAIT).until(() -> informer.hasSynced() && informer.isWatching());
            source.add(pod("b")); // a watch event
            source.failNextWatches(1, ApiErrors::connectionRefused); // an API request failure
            source.expireWatches(); // a restart and a relist
            await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(() -> {
                if (clock.hasWaiters()) {
                    clock.step(Duration.ofSeconds(1));
                }
                return registry.find("api_request_failures").gauge() != null
                        && registry.find("reflector.relists").counter() != null
                        && registry.find("reflector.watch.restarts").counter() != null
                        && registry.find("reflector.watch.events").counter() != null;
            });

            List<MeterTable.Row> documented = new ArrayList<>(MeterTable.read("docs/informers.md"));
            documented.addAll(MeterTable.read("docs/reflector.md"));
            MeterTable.assertDocumented(documented, registry);
        } finally {
            informer.stop();
            source.shutdown();
        }
        assertThat(registry.getMeters())
                .as("a stopped informer leaves no meters")
                .isEmpty();
    }

    private static Pod pod(String name) {
        return new PodBuilder()
                .withNewMetadata()
                .withNamespace("ns")
                .withName(name)
                .endMetadata()
                .build();
    }
}
