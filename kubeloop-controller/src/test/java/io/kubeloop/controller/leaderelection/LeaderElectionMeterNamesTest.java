package io.kubeloop.controller.leaderelection;

import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.clock.FakeClock;
import io.kubeloop.testsupport.MeterTable;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

/** docs/leader-election.md's meter table is the elector's meters: names, types, tags and Prometheus names. */
class LeaderElectionMeterNamesTest {

    @Test
    void theDocsTableListsExactlyTheMetersAnElectorRegisters() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (KubernetesClient client = KubernetesClient.builder(
                        ClientConfig.builder().server("http://127.0.0.1:1").build())
                .clock(new FakeClock())
                .build()) {
            LeaderElector.builder(
                            client,
                            LeaderElectionConfig.builder("my-operator", "ops").build())
                    .callbacks(LeaderCallbacks.of(() -> {}, () -> {}))
                    .meterRegistry(registry)
                    .build();
            MeterTable.assertDocumented(MeterTable.read("docs/leader-election.md"), registry);
        }
    }
}
