package io.kubeloop.client.transport;

import io.kubeloop.testsupport.MeterTable;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

/** The meter table of docs/errors-and-transport.md is the client's meters: Micrometer and Prometheus names. */
class ClientMeterNamesTest {

    @Test
    void theDocumentedTableListsExactlyTheMetersTheClientRegisters() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        ClientMetrics metrics = ClientMetrics.micrometer(registry);
        metrics.recordRequest("GET", "h:1", 200, 1_000_000);
        metrics.recordRateLimiterWait("GET", "h:1", 1_000_000);
        metrics.recordRetry("GET", "h:1", 429);

        MeterTable.assertDocumented(MeterTable.read("docs/errors-and-transport.md"), registry);
    }
}
