package io.kubeloop.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.clock.FakeClock;
import java.time.Duration;
import java.time.Instant;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.platform.testkit.engine.EngineExecutionResults;

/**
 * {@code fakeClock} and {@code nodes}: the server on a FakeClock the test steps; nodes without kubeloop-cluster on the
 * class path (this module's tests have none: kubeloop-cluster depends on the test kit) fail with what to add.
 */
class KubeloopTestClockAndNodesTest {

    @Sample
    @KubeloopTest(fakeClock = true)
    static class OnAFakeClock {
        @Test
        void test(FakeClock clock, KubernetesClient client) {
            ConfigMap first = client.resources(ConfigMap.class)
                    .create(new ConfigMapBuilder()
                            .withNewMetadata()
                            .withName("first")
                            .endMetadata()
                            .build());
            clock.step(Duration.ofHours(1));
            ConfigMap second = client.resources(ConfigMap.class)
                    .create(new ConfigMapBuilder()
                            .withNewMetadata()
                            .withName("second")
                            .endMetadata()
                            .build());
            Samples.see("first", Instant.parse(first.getMetadata().getCreationTimestamp()));
            Samples.see("second", Instant.parse(second.getMetadata().getCreationTimestamp()));
            Samples.see("clock", clock.now());
        }
    }

    @Test
    void theServerRunsOnTheFakeClockTheTestSteps() {
        EngineExecutionResults results = Samples.run(OnAFakeClock.class);
        assertThat(Samples.failures(results.allEvents())).isEmpty();
        results.testEvents().assertStatistics(s -> s.started(1).succeeded(1));
        Instant first = (Instant) Samples.seen("first").getFirst();
        Instant second = (Instant) Samples.seen("second").getFirst();
        assertThat(Duration.between(first, second)).isEqualTo(Duration.ofHours(1));
        assertThat(second).isEqualTo(Samples.seen("clock").getFirst());
    }

    @Sample
    @KubeloopTest
    static class AsksForAFakeClockWithoutOne {
        @Test
        void test(FakeClock clock) {}
    }

    @Test
    void aFakeClockParameterWithoutFakeClockSaysWhatToAskFor() {
        EngineExecutionResults results = Samples.run(AsksForAFakeClockWithoutOne.class);
        assertThat(Samples.failures(results.testEvents()))
                .singleElement(InstanceOfAssertFactories.THROWABLE)
                .isInstanceOf(ParameterResolutionException.class)
                .hasMessageContaining("@KubeloopTest(fakeClock = true)");
    }

    @Sample
    @KubeloopTest(nodes = 3)
    static class WithNodes {
        @Test
        void test() {}
    }

    @Test
    void nodesWithoutKubeloopClusterOnTheClassPathSayWhatToAdd() {
        EngineExecutionResults results = Samples.run(WithNodes.class);
        results.testEvents().assertStatistics(s -> s.started(0));
        assertThat(Samples.failures(results.containerEvents()))
                .singleElement(InstanceOfAssertFactories.THROWABLE)
                .isInstanceOf(ExtensionConfigurationException.class)
                .hasMessageContaining("needs kubeloop-cluster on the test class path")
                .hasMessageContaining("io.kubeloop:kubeloop-cluster");
    }

    @Sample
    @KubeloopTest(nodes = 1, speed = -1)
    static class WithANegativeSpeed {
        @Test
        void test() {}
    }

    @Test
    void aNegativeSpeedIsRefused() {
        EngineExecutionResults results = Samples.run(WithANegativeSpeed.class);
        results.testEvents().assertStatistics(s -> s.started(0));
        assertThat(Samples.failures(results.containerEvents()))
                .singleElement(InstanceOfAssertFactories.THROWABLE)
                .isInstanceOf(ExtensionConfigurationException.class)
                .hasMessageContaining("speed must be a positive number");
    }
}
