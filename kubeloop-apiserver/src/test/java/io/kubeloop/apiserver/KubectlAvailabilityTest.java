package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.testsupport.Kubectl.Availability;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The rule every kubectl test starts with: run where kubectl is installed, skip without it, fail on CI without it. */
class KubectlAvailabilityTest {

    @ParameterizedTest(name = "CI={0}, installed={1} -> {2}")
    @CsvSource(
            nullValues = "unset",
            value = {
                "unset, true,  RUN",
                "true,  true,  RUN",
                "unset, false, SKIP",
                "'',    false, SKIP",
                "false, false, SKIP",
                "FALSE, false, SKIP",
                "0,     false, SKIP",
                "true,  false, FAIL",
                "1,     false, FAIL",
                "yes,   false, FAIL",
            })
    void decidesFromTheEnvironmentAndTheProbe(String ci, boolean installed, Availability expected) {
        Map<String, String> env = ci == null ? Map.of("PATH", "/usr/bin") : Map.of("PATH", "/usr/bin", "CI", ci);
        assertThat(Kubectl.availability(env, installed)).isEqualTo(expected);
    }
}
