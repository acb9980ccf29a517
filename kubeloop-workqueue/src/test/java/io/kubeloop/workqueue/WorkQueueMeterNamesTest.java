package io.kubeloop.workqueue;

import io.kubeloop.clock.FakeClock;
import io.kubeloop.testsupport.MeterTable;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The README's meter table is the queue's meters: Micrometer names, types, tags and Prometheus names. */
class WorkQueueMeterNamesTest {

    @Test
    void theReadmeTableListsExactlyTheMetersAQueueRegisters() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        RateLimitingQueue<String> queue = WorkQueue.<String>builder()
                .name("pods")
                .clock(new FakeClock())
                .meterRegistry(registry)
                .buildRateLimiting();
        queue.add("a");
        queue.done(queue.get());
        queue.addAfter("b", Duration.ofSeconds(1));

        MeterTable.assertDocumented(MeterTable.read("README.md"), registry);
        queue.shutDown();
    }
}
