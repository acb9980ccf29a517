package io.kubeloop.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.apiserver.EmbeddedApiServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * {@code kubeloop run} in a JVM of its own: SIGTERM (what Kubernetes sends a pod) runs the CLI's shutdown hook, which
 * closes the manager gracefully.
 */
class RunCommandIT {

    @Test
    void runsTheManagerUntilSigtermThenClosesItGracefully() throws Exception {
        try (EmbeddedApiServer server = EmbeddedApiServer.builder().start()) {
            String javaBin =
                    Path.of(System.getProperty("java.home"), "bin", "java").toString();
            Process p = new ProcessBuilder(
                            javaBin,
                            "-Dsample.server=" + server.url(),
                            "-cp",
                            System.getProperty("java.class.path"),
                            Main.class.getName(),
                            "run",
                            "--class",
                            SampleOperator.class.getName())
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
                Awaitility.await()
                        .atMost(java.time.Duration.ofSeconds(60))
                        .until(() -> output.stream().anyMatch(l -> l.contains("kubeloop: manager")) || !p.isAlive());
                assertThat(output).as(String.join("\n", output)).anyMatch(l -> l.contains("started; metrics on port"));
                p.toHandle().destroy(); // SIGTERM; Process.destroy() would also close the output pipe
                assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
                reader.join(10_000);
                assertThat(output)
                        .as(String.join("\n", output))
                        .anyMatch(l -> l.contains("manager: stopping"))
                        .anyMatch(l -> l.contains("manager: stopped"));
            } finally {
                p.destroyForcibly();
            }
        }
    }
}
