package io.kubeloop.controller;

import static io.kubeloop.controller.ControllerHarness.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.clock.Clock;
import io.kubeloop.testkit.KubeloopTest;
import io.kubeloop.testkit.TestNamespace;
import io.kubeloop.testsupport.MeterTable;
import io.micrometer.core.instrument.config.MeterFilter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The README's meter table is what a controller registers, and the reconcile histograms have upstream's buckets. */
@KubeloopTest(shared = true)
class ControllerMeterNamesTest {

    @Test
    void theReadmeTableListsExactlyTheMetersAControllerRegisters(KubernetesClient client, @TestNamespace String ns)
            throws Exception {
        try (ControllerHarness h = new ControllerHarness(client, ns, Clock.system())) {
            // the informers' meters are documented by kubeloop-informer
            h.registry.config().meterFilter(MeterFilter.denyNameStartsWith("informer"));
            h.registry.config().meterFilter(MeterFilter.denyNameStartsWith("reflector"));
            h.registry.config().meterFilter(MeterFilter.denyNameStartsWith("cache.resync"));
            Recorder<ConfigMap> recorder = new Recorder<>();
            recorder.answering((r, n) -> n == 1 ? Result.requeueAfter(Duration.ofMillis(1)) : Result.done());
            h.manager.newControllerFor(ConfigMap.class).named("pods-like").complete(recorder);
            h.start();
            h.create("a");
            eventually().until(() -> recorder.count("a") == 2);

            MeterTable.assertDocumented(MeterTable.read("README.md"), h.registry);
        }
    }

    @Test
    void theReconcileHistogramsHaveControllerRuntimesBuckets(KubernetesClient client, @TestNamespace String ns)
            throws Exception {
        try (ControllerHarness h = new ControllerHarness(client, ns, Clock.system())) {
            Recorder<ConfigMap> recorder = new Recorder<>();
            h.manager.newControllerFor(ConfigMap.class).complete(recorder);
            h.start();
            h.create("a");
            eventually().until(() -> recorder.count("a") == 1);
            String scrape = h.registry.scrape();
            List<String> expected = List.of(
                    "0.005", "0.01", "0.025", "0.05", "0.1", "0.15", "0.2", "0.25", "0.3", "0.35", "0.4", "0.45", "0.5",
                    "0.6", "0.7", "0.8", "0.9", "1.0", "1.25", "1.5", "1.75", "2.0", "2.5", "3.0", "3.5", "4.0", "4.5",
                    "5.0", "6.0", "7.0", "8.0", "9.0", "10.0", "15.0", "20.0", "25.0", "30.0", "40.0", "50.0", "60.0",
                    "+Inf");
            for (String histogram :
                    List.of("controller_runtime_reconcile_time_seconds", "reconcile_duration_seconds")) {
                assertThat(buckets(scrape, histogram)).as(histogram).isEqualTo(expected);
                // "a" and the namespace's kube-root-ca.crt
                assertThat(scrape).containsPattern("(?m)^" + histogram + "_count\\{controller=\"configmap\"} 2");
            }
        }
    }

    private static List<String> buckets(String scrape, String histogram) {
        Matcher m = Pattern.compile("(?m)^" + histogram + "_bucket\\{controller=\"configmap\",le=\"([^\"]+)\"}")
                .matcher(scrape);
        List<String> les = new ArrayList<>();
        while (m.find()) {
            les.add(m.group(1));
        }
        return les;
    }
}
