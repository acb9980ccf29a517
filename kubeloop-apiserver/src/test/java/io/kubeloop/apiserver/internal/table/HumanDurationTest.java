package io.kubeloop.apiserver.internal.table;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HumanDurationTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        // kube's own duration_test.go cases
        "PT1S, 1s",
        "PT70S, 70s",
        "PT190S, 3m10s",
        "PT70M, 70m",
        "PT47H, 47h",
        "PT49H, 2d1h",
        "PT194H, 8d",
        "PT8808H, 367d",
        "PT17545H, 2y1d",
        "PT70082H, 8y",
        // boundaries
        "PT0S, 0s",
        "PT119.9S, 119s",
        "PT2M, 2m",
        "PT5S, 5s",
        "PT3M12S, 3m12s",
        "PT9M59S, 9m59s",
        "PT10M, 10m",
        "PT179M59S, 179m",
        "PT3H, 3h",
        "PT5H10M, 5h10m",
        "PT7H59M59S, 7h59m",
        "PT8H, 8h",
        "PT51H, 2d3h",
        "PT72H, 3d",
        "PT17520H, 2y",
        // clock skew: up to 2 s in the future (excluded) is "0s"
        "PT-1S, 0s",
        "PT-1.5S, 0s",
        "PT-2S, <invalid>",
    })
    void formatsLikeKube(String iso, String expected) {
        assertThat(HumanDuration.format(Duration.parse(iso))).isEqualTo(expected);
    }
}
