package io.kubeloop.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * {@code kubeloop demo} in a JVM of its own, stopped by SIGTERM mid-scenario: the shutdown hook interrupts the run,
 * which closes the cluster and the operators, and the JVM ends at once with the signal's exit code.
 */
class DemoCommandSignalIT {

    @Test
    void sigtermStopsTheRunAndTheJvmEnds() throws Exception {
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(
                        javaBin,
                        "-Dorg.slf4j.simpleLogger.logFile=System.err",
                        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                        "-cp",
                        System.getProperty("java.class.path"),
                        Main.class.getName(),
                        "demo",
                        "--scenario",
                        "kill-pods",
                        "--nodes",
                        "1",
                        "--replicas",
                        "2",
                        "--duration",
                        "2m",
                        "--seed",
                        "7")
                .redirectErrorStream(true)
                .start();
        List<String> output = new CopyOnWriteArrayList<>();
        Thread reader = Thread.ofVirtual().start(() -> {
            try (BufferedReader r =
                    new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                r.lines().forEach(output::add);
            } catch (java.io.IOException | java.io.UncheckedIOException e) {
                output.add("read failed: " + e);
            }
        });
        try {
            // The first step line: the cluster, the operators and the PodSet are up, the scenario plays.
            Awaitility.await()
                    .atMost(Duration.ofSeconds(90))
                    .until(() -> output.stream().anyMatch(l -> l.contains("] kill-pods")) || !p.isAlive());
            assertThat(output.get(0))
                    .isEqualTo("kubeloop demo: scenario kill-pods, 1 node, 2 replicas, speed 10 (about 120 s); "
                            + "Ctrl-C stops it");
            assertThat(p.isAlive()).as(String.join("\n", output)).isTrue();

            p.toHandle().destroy(); // SIGTERM
            assertThat(p.waitFor(30, TimeUnit.SECONDS))
                    .as(String.join("\n", output))
                    .isTrue();
            reader.join(Duration.ofSeconds(10));
            assertThat(p.exitValue()).as(String.join("\n", output)).isEqualTo(143); // 128 + SIGTERM
            assertThat(output).as(String.join("\n", output)).anyMatch(l -> l.startsWith("kubeloop demo: stopped"));
        } finally {
            p.destroyForcibly();
        }
    }
}
