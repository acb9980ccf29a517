package io.kubeloop.informer.reflector;

import static io.kubeloop.informer.reflector.ReflectorHarness.cm;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.kubeloop.informer.testing.ApiErrors;
import io.kubeloop.informer.testing.PrometheusScrape;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The reflector's metrics, as Prometheus reads them. */
class ReflectorMetricsTest {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final String NAME = "name=\"configmaps under test\"";

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

    private double value(String series) {
        return PrometheusScrape.value(registry, series);
    }

    @Test
    void countsListsItemsEventsRelistsRestartsAndFailuresUnderClientGoNames() throws Exception {
        try (ReflectorHarness h = new ReflectorHarness()) {
            h.source.add(cm("a"));
            h.source.add(cm("b"));
            h.start(b -> b.meterRegistry(registry));
            h.awaitWatching();
            ConfigMap c = h.source.add(cm("c"));
            h.source.modify(c);
            h.source.bookmark();
            await().atMost(WAIT)
                    .until(() -> h.reflector.lastSyncResourceVersion().equals("4")
                            && value("reflector_watch_events_total{" + NAME + ",type=\"BOOKMARK\"}") == 1);

            assertThat(value("reflector_lists_total{" + NAME + "}")).isEqualTo(1);
            assertThat(value("reflector_list_duration_seconds_count{" + NAME + "}"))
                    .isEqualTo(1);
            assertThat(value("reflector_items_total{" + NAME + "}"))
                    .as("2 listed + 2 events")
                    .isEqualTo(4);
            assertThat(value("reflector_watch_events_total{" + NAME + ",type=\"ADDED\"}"))
                    .isEqualTo(1);
            assertThat(value("reflector_watch_events_total{" + NAME + ",type=\"MODIFIED\"}"))
                    .isEqualTo(1);
            assertThat(value("reflector_last_event_timestamp_seconds{" + NAME + "}"))
                    .isEqualTo(h.clock.now().getEpochSecond());

            // A 410 on the watch: a restart and a relist by reason "expired"; a refused watch: a failure.
            h.source.failNextWatches(1, ApiErrors::connectionRefused);
            h.source.expireWatches();
            h.stepWhenWaiting(Duration.ofMillis(800));
            h.stepWhenWaiting(Duration.ofMillis(1600));
            h.awaitWatching();
            assertThat(value("reflector_watch_restarts_total{" + NAME + ",reason=\"expired\"}"))
                    .isEqualTo(1);
            assertThat(value("reflector_relists_total{" + NAME + ",reason=\"expired\"}"))
                    .isEqualTo(1);
            assertThat(value("reflector_lists_total{" + NAME + "}")).isEqualTo(2);
            assertThat(value("api_request_failures{" + NAME + ",verb=\"watch\"}"))
                    .isEqualTo(1);
        }
        assertThat(registry.scrape())
                .as("the gauge goes with the reflector")
                .doesNotContain("reflector_last_event_timestamp_seconds{");
        assertThat(registry.getMeters())
                .as("every meter goes with the reflector: stopped reflectors leave none")
                .isEmpty();
    }
}
