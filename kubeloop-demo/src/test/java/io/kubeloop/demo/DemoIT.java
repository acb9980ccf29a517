package io.kubeloop.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Whole demo runs on the embedded cluster, small and fast. */
class DemoIT {

    @Test
    @Timeout(60)
    void killPodsRecoversEveryPodAndMeasuresEveryStage() throws InterruptedException {
        DemoReport report = Demo.builder()
                .scenario("kill-pods")
                .nodes(2)
                .replicas(5)
                .duration(Duration.ofSeconds(8))
                .speed(10)
                .seed(42)
                .quiet(true)
                .build()
                .run();

        assertThat(report.passed()).as(report.reason()).isTrue();
        assertThat(report.reason()).isEmpty();
        assertThat(report.scenario()).isEqualTo("kill-pods");
        assertThat(report.seed()).isEqualTo(42);
        assertThat(report.incidents()).hasSizeGreaterThanOrEqualTo(3);
        assertThat(report.incidents()).allSatisfy(i -> {
            assertThat(i.cause()).isEqualTo("killed");
            assertThat(i.informerSawMs()).as(i.pod() + " t1").isNotNull();
            assertThat(i.reconcileStartedMs()).as(i.pod() + " t2").isNotNull();
            assertThat(i.replacementCreatedMs()).as(i.pod() + " t3").isNotNull();
            assertThat(i.replacementRunningMs()).as(i.pod() + " t4").isNotNull();
            assertThat(i.replacement()).isNotBlank().isNotEqualTo(i.pod());
        });
        assertThat(report.stages())
                .filteredOn(s -> s.stage().equals("gone→created"))
                .singleElement()
                .satisfies(
                        s -> assertThat(s.count()).isEqualTo(report.incidents().size()));
        assertThat(report.faults()).isNotEmpty().allMatch(f -> f.fault().equals("kill-pods"));
        assertThat(report.cacheDrift()).isZero();
    }

    @Test
    @Timeout(90)
    void theIncidentPlaysEveryFaultAndConverges() throws InterruptedException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        DemoReport report = Demo.builder()
                .scenario("incident")
                .nodes(3)
                .replicas(6)
                .duration(Duration.ofSeconds(15))
                .speed(50)
                .seed(7)
                .out(new PrintStream(out, true, StandardCharsets.UTF_8))
                .build()
                .run();
        String printed = out.toString(StandardCharsets.UTF_8);

        assertThat(report.passed()).as(report.reason() + "\n" + printed).isTrue();
        assertThat(report.faults())
                .extracting(DemoReport.Fault::fault)
                .contains(
                        "kill-pods",
                        "node-failure",
                        "node-restore",
                        "network-cut",
                        "network-restore",
                        "compaction",
                        "leader-kill",
                        "noisy-neighbour");
        assertThat(report.incidents()).extracting(DemoReport.Incident::cause).contains("killed", "evicted");
        assertThat(report.cacheDrift()).isZero();
        assertThat(printed)
                .contains("cluster: 3 nodes Ready in")
                .contains("is the leader")
                .contains("PodSet demo/web: 6/6 Running in")
                .contains("network-cut: guardian-a and guardian-b cut off from the API server for 30 s")
                .contains("failover: ")
                .contains("converged in");
    }

    @Test
    @Timeout(60)
    void anInterruptStopsTheRunAndClosesTheCluster() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Demo demo = Demo.builder()
                .scenario("kill-pods")
                .nodes(1)
                .replicas(2)
                .duration(Duration.ofSeconds(60))
                .speed(10)
                .seed(1)
                .out(new PrintStream(out, true, StandardCharsets.UTF_8))
                .build();
        AtomicReference<Throwable> ended = new AtomicReference<>();
        Thread runner = Thread.ofPlatform().name("demo-it-runner").start(() -> {
            try {
                demo.run();
                ended.set(new AssertionError("the run ended without the interrupt"));
            } catch (Throwable t) {
                ended.set(t);
            }
        });
        await().atMost(Duration.ofSeconds(40))
                .until(() -> out.toString(StandardCharsets.UTF_8).contains("kill-pods: deleted"));
        Matcher url = Pattern.compile("API server (http://[0-9.:]+)").matcher(out.toString(StandardCharsets.UTF_8));
        assertThat(url.find()).isTrue();

        runner.interrupt();
        runner.join(Duration.ofSeconds(20));

        assertThat(runner.isAlive()).as("the run ended").isFalse();
        assertThat(ended.get()).isInstanceOf(InterruptedException.class);
        URI server = URI.create(url.group(1));
        assertThatThrownBy(() -> {
                    try (Socket s = new Socket(server.getHost(), server.getPort())) {
                        s.getInputStream();
                    }
                })
                .as("the cluster's API server is closed")
                .isInstanceOf(IOException.class);
    }

    @Test
    void badSettingsAreRefusedBeforeAnythingStarts() {
        assertThatThrownBy(() -> Demo.builder().scenario("chaos").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown scenario 'chaos'; the scenarios are: incident, kill-pods");
        assertThatThrownBy(() -> Demo.builder()
                        .scenario("node-failure")
                        .duration(Duration.ofSeconds(10))
                        .speed(10)
                        .build()
                        .run())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("needs at least 130 s of cluster time")
                .hasMessageContaining("duration of at least 13 s at speed 10");
    }
}
