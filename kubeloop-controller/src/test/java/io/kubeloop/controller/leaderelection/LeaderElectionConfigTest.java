package io.kubeloop.controller.leaderelection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.clock.FakeClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** client-go's defaults, and a configuration that cannot work fails at build time with the values named. */
class LeaderElectionConfigTest {

    @Test
    void theDefaultsAreClientGos() {
        LeaderElectionConfig config =
                LeaderElectionConfig.builder("my-operator", "ops").build();
        assertThat(config.leaseDuration()).isEqualTo(Duration.ofSeconds(15));
        assertThat(config.renewDeadline()).isEqualTo(Duration.ofSeconds(10));
        assertThat(config.retryPeriod()).isEqualTo(Duration.ofSeconds(2));
        assertThat(config.releaseOnCancel()).isTrue();
        assertThat(config.clock()).isEmpty();
        assertThat(config.requestTimeout()).isEqualTo(Duration.ofSeconds(5)); // renewDeadline / 2
        assertThat(LeaderElectionConfig.JITTER_FACTOR).isEqualTo(1.2);
        // hostname (or POD_NAME) + "_" + a random UUID: unique per candidate
        assertThat(config.identity()).matches(".+_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
        assertThat(LeaderElectionConfig.builder("my-operator", "ops").build().identity())
                .isNotEqualTo(config.identity());
    }

    @Test
    void theRequestTimeoutIsHalfTheRenewDeadlineButAtLeastASecond() {
        LeaderElectionConfig fast = LeaderElectionConfig.builder("l", "ns")
                .leaseDuration(Duration.ofSeconds(2))
                .renewDeadline(Duration.ofMillis(1500))
                .retryPeriod(Duration.ofMillis(500))
                .build();
        assertThat(fast.requestTimeout()).isEqualTo(Duration.ofSeconds(1));
        LeaderElectionConfig slow = LeaderElectionConfig.builder("l", "ns")
                .leaseDuration(Duration.ofSeconds(60))
                .renewDeadline(Duration.ofSeconds(40))
                .build();
        assertThat(slow.requestTimeout()).isEqualTo(Duration.ofSeconds(20));
    }

    @Test
    void leaseDurationMustExceedTheRenewDeadline() {
        assertThatThrownBy(() -> LeaderElectionConfig.builder("l", "ns")
                        .leaseDuration(Duration.ofSeconds(10))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("leaseDuration (PT10S) must be greater than renewDeadline (PT10S)");
    }

    @Test
    void theRenewDeadlineMustExceedTheJitteredRetryPeriod() {
        assertThatThrownBy(() -> LeaderElectionConfig.builder("l", "ns")
                        .retryPeriod(Duration.ofMillis(8500))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("renewDeadline (PT10S) must be greater than 1.2 × retryPeriod (PT8.5S × 1.2 = PT10.2S)");
        // exactly 1.2 × is not enough either (client-go: renewDeadline <= JitterFactor*retryPeriod is an error)
        assertThatThrownBy(() -> LeaderElectionConfig.builder("l", "ns")
                        .retryPeriod(Duration.ofNanos(8_333_333_334L))
                        .build())
                .hasMessageContaining("must be greater than 1.2 × retryPeriod");
    }

    @Test
    void everyDurationMustBePositiveAndTheLeaseWholeSeconds() {
        assertThatThrownBy(() -> LeaderElectionConfig.builder("l", "ns")
                        .retryPeriod(Duration.ZERO)
                        .build())
                .hasMessage("retryPeriod must be greater than zero, was PT0S");
        assertThatThrownBy(() -> LeaderElectionConfig.builder("l", "ns")
                        .renewDeadline(Duration.ofSeconds(-1))
                        .build())
                .hasMessage("renewDeadline must be greater than zero, was PT-1S");
        assertThatThrownBy(() -> LeaderElectionConfig.builder("l", "ns")
                        .leaseDuration(Duration.ofMillis(15500))
                        .build())
                .hasMessage("leaseDuration must be a whole number of seconds (the Lease records"
                        + " leaseDurationSeconds), was PT15.5S");
    }

    @Test
    void namesAndIdentityAreChecked() {
        assertThatThrownBy(() -> LeaderElectionConfig.builder("My_Lease", "ns").build())
                .hasMessageStartingWith("leaseName must be a DNS subdomain")
                .hasMessageContaining("\"My_Lease\"");
        assertThatThrownBy(() -> LeaderElectionConfig.builder("l", "").build())
                .hasMessageStartingWith("namespace must be a DNS label");
        assertThatThrownBy(() ->
                        LeaderElectionConfig.builder("l", "ns").identity(" ").build())
                .hasMessage("identity must not be blank");
    }

    @Test
    void anElectorNeedsCallbacks() {
        try (KubernetesClient client = KubernetesClient.builder(
                        ClientConfig.builder().server("http://127.0.0.1:1").build())
                .clock(new FakeClock())
                .build()) {
            LeaderElectionConfig config =
                    LeaderElectionConfig.builder("l", "ns").build();
            assertThatThrownBy(() -> LeaderElector.builder(client, config).build())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("LeaderElector.builder(...).callbacks(...) is required");
        }
    }
}
