package io.kubeloop.informer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.kubeloop.clock.FakeClock;
import io.kubeloop.informer.testing.FakeSource;
import io.kubeloop.informer.testing.PrometheusScrape;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The informer's metrics as Prometheus reads them: names, types, labels and values. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InformerMetricsTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final Pattern TYPE = Pattern.compile("^# TYPE (\\S+) (\\S+)$", Pattern.MULTILINE);

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final FakeClock clock = new FakeClock();
    private final FakeSource<Pod> source = new FakeSource<>();

    private static Pod pod(String name) {
        return new PodBuilder()
                .withNewMetadata()
                .withNamespace("ns")
                .withName(name)
                .endMetadata()
                .build();
    }

    /** Informer and resync families → Prometheus type. */
    private Map<String, String> families() {
        Map<String, String> out = new TreeMap<>();
        Matcher m = TYPE.matcher(registry.scrape());
        while (m.find()) {
            if (m.group(1).startsWith("informer_") || m.group(1).startsWith("cache_")) {
                out.put(m.group(1), m.group(2));
            }
        }
        return out;
    }

    private double value(String series) {
        return PrometheusScrape.value(registry, series);
    }

    @Test
    void namesTypesAndValuesUnderPrometheus() {
        source.add(pod("a"));
        source.add(pod("b"));
        SharedIndexInformer<Pod> informer = SharedIndexInformer.builder(source, Pod.class)
                .name("pods")
                .clock(clock)
                .meterRegistry(registry)
                .resyncPeriod(Duration.ofSeconds(10))
                .build();
        ResourceEventHandlerRegistration ok = informer.addEventHandler(new ResourceEventHandler<>() {});
        ResourceEventHandlerRegistration failing = informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onDelete(Object object) {
                throw new IllegalStateException("boom");
            }
        });
        try {
            informer.start();
            await().atMost(WAIT).until(() -> informer.hasSynced() && informer.isWatching());
            source.modify(pod("a"));
            source.delete(pod("b"));
            await().atMost(WAIT)
                    .until(() -> clock.hasWaiters()
                            && value("informer_notifications_total{name=\"pods\",type=\"delete\"}") == 1);
            clock.step(Duration.ofSeconds(10)); // one resync round: both handlers are due
            await().atMost(WAIT)
                    .until(() -> value("informer_notifications_total{name=\"pods\",type=\"sync\"}") == 1
                            && value("informer_handler_duration_seconds_count{handler=\"" + ok.name()
                                            + "\",name=\"pods\"}")
                                    == 5);

            assertThat(families())
                    .containsAllEntriesOf(Map.of(
                            "informer_cache_objects", "gauge",
                            "informer_handler_buffer_length", "gauge",
                            "informer_handler_duration_seconds", "histogram",
                            "informer_handler_errors_total", "counter",
                            "informer_notifications_total", "counter",
                            "informer_process_errors_total", "counter",
                            "cache_resync_count", "gauge"));
            assertThat(value("informer_process_errors_total{name=\"pods\",reason=\"failed\"}"))
                    .isZero();
            assertThat(value("informer_cache_objects{name=\"pods\"}")).isEqualTo(1);
            assertThat(value("informer_notifications_total{name=\"pods\",type=\"add\"}"))
                    .isEqualTo(2);
            assertThat(value("informer_notifications_total{name=\"pods\",type=\"update\"}"))
                    .isEqualTo(1);
            assertThat(value("cache_resync_count{name=\"pods\"}")).isEqualTo(1);
            assertThat(value("informer_handler_errors_total{handler=\"" + failing.name() + "\",name=\"pods\"}"))
                    .isEqualTo(1);
            assertThat(value("informer_handler_errors_total{handler=\"" + ok.name() + "\",name=\"pods\"}"))
                    .isZero();
            assertThat(value("informer_handler_buffer_length{handler=\"" + ok.name() + "\",name=\"pods\"}"))
                    .isZero();

            failing.remove();
            await().atMost(WAIT).until(() -> !registry.scrape().contains("handler=\"" + failing.name() + "\""));
        } finally {
            informer.stop();
            source.shutdown();
        }
        assertThat(families()).as("an informer's meters go when it stops").isEmpty();
    }

    @Test
    void aFailureOfTheProcessLoopIsCountedAndTheLoopGoesOn() {
        source.add(pod("good"));
        source.add(pod("poison"));
        SharedIndexInformer<Pod> informer = SharedIndexInformer.builder(source, Pod.class)
                .name("pods")
                .clock(clock)
                .meterRegistry(registry)
                .indexers(Map.of("broken", pod -> {
                    if (pod.getMetadata().getName().equals("poison")) {
                        throw new IllegalStateException("an index function that throws");
                    }
                    return java.util.List.of(pod.getMetadata().getName());
                }))
                .build();
        try {
            informer.start();
            await().atMost(WAIT)
                    .until(() -> value("informer_process_errors_total{name=\"pods\",reason=\"failed\"}") == 1);
            source.add(pod("after"));
            await().atMost(WAIT)
                    .until(() -> informer.indexer().getByKey("ns/after").isPresent());
            assertThat(informer.indexer().getByKey("ns/good")).isPresent();
            assertThat(value("informer_process_errors_total{name=\"pods\",reason=\"mutation\"}"))
                    .isZero();
        } finally {
            informer.stop();
            source.shutdown();
        }
    }
}
