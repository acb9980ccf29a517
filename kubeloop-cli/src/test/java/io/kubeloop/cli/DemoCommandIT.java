package io.kubeloop.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code kubeloop demo} end to end, in-process through {@link Main}: a short kill-pods run on a two-node embedded
 * cluster, quiet, with a JSON report.
 */
class DemoCommandIT {

    private final PrintStream originalOut = System.out;
    private final PrintStream originalErr = System.err;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @BeforeEach
    void capture() {
        // The log where the test's goes, not to a temporary file that the command would leave behind.
        System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restore() {
        System.clearProperty("org.slf4j.simpleLogger.logFile");
        System.setOut(originalOut);
        System.setErr(originalErr);
    }

    @Test
    void aQuietKillPodsRunPrintsTheBannerThenTheReportAndWritesItsJson(@TempDir Path tmp) throws Exception {
        Path report = tmp.resolve("report.json");
        int exit = Main.run(
                "demo",
                "--scenario",
                "kill-pods",
                "--nodes",
                "2",
                "--replicas",
                "4",
                "--duration",
                "6",
                "--speed",
                "10",
                "--quiet",
                "--seed",
                "1",
                "--report",
                report.toString());
        String printed = out.toString(StandardCharsets.UTF_8);
        assertThat(exit).as(printed + err.toString(StandardCharsets.UTF_8)).isZero();

        assertThat(printed.lines().findFirst())
                .contains(
                        "kubeloop demo: scenario kill-pods, 2 nodes, 4 replicas, speed 10 (about 6 s); Ctrl-C stops it");
        assertThat(printed).contains("PASSED: the PodSet converged with nothing lost");
        assertThat(printed).as("quiet: no step lines").doesNotContain("[ +");

        JsonNode json = JsonMapper.builder().build().readTree(Files.readString(report));
        assertThat(json.path("scenario").asString()).isEqualTo("kill-pods");
        assertThat(json.path("seed").asLong()).isEqualTo(1);
        assertThat(json.path("nodes").asInt()).isEqualTo(2);
        assertThat(json.path("replicas").asInt()).isEqualTo(4);
        assertThat(json.path("passed").asBoolean()).isTrue();
        assertThat(json.path("cacheDrift").asLong()).isZero();
        assertThat(json.path("incidents")).isNotEmpty().allSatisfy(incident -> {
            assertThat(incident.path("cause").asString()).isEqualTo("killed");
            assertThat(incident.path("replacementRunningMs").isNumber()).isTrue();
        });
        assertThat(json.path("faults")).isNotEmpty();
    }
}
