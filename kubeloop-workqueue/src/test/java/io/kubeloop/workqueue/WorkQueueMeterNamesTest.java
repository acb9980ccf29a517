package io.kubeloop.workqueue;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.clock.FakeClock;
import io.kubeloop.testsupport.MeterTable;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The README's meter table is the queues' meters: Micrometer names, types, tags and Prometheus names. A plain
 * queue and a priority queue share one registry, as in a manager; the table's tags are the union of theirs
 * (the priority queue adds {@code priority} to {@code workqueue.depth}, which PriorityWorkQueueMetricsTest
 * checks queue by queue).
 */
class WorkQueueMeterNamesTest {

    @Test
    void theReadmeTableListsExactlyTheMetersThePlainAndThePriorityQueueRegister() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        WorkQueueBuilder<String> builder =
                WorkQueue.<String>builder().clock(new FakeClock()).meterRegistry(registry);
        RateLimitingQueue<String> plain = builder.name("pods").buildRateLimiting();
        PriorityWorkQueue<String> priority = builder.name("nodes").buildPriority();
        for (RateLimitingQueue<String> queue : List.of(plain, priority)) {
            queue.add("a");
            queue.done(queue.get());
            queue.addAfter("b", Duration.ofSeconds(1));
        }
        priority.add("c", PriorityWorkQueue.LOW_PRIORITY);

        MeterTable.assertDocumented(MeterTable.read("README.md"), registry);
        assertThat(registry.scrape())
                .contains("workqueue_depth{name=\"pods\"} 0")
                .contains("workqueue_depth{name=\"nodes\",priority=\"-100\"} 1");
        plain.shutDown();
        priority.shutDown();
    }
}
