package io.kubeloop.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubeloop.testsupport.Kubectl;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The root README's walk-through with the real kubectl against {@code EmbeddedCluster} with 3 nodes at speed 10 on the system
 * clock, step by step in order (each step starts from where the one before left the cluster): a Deployment's pods
 * Running on three nodes, rollout status, scale, a deleted pod replaced, cordon, drain, rollout restart and undo, a
 * Service's endpoints, and the commands that need what the cluster does not have (top, logs) failing clearly.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KubectlWalkthroughIT {

    @TempDir
    static Path dir;

    private static EmbeddedCluster cluster;
    private static Kubectl kubectl;

    @BeforeAll
    static void start() {
        Kubectl.assumeInstalled();
        cluster = EmbeddedCluster.builder().nodes(3).speed(10).start(); // a 30 s grace period in 3 s
        cluster.apiServer().writeKubeconfig(dir.resolve("kubeconfig"));
        kubectl = new Kubectl(dir);
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Kubectl.Result kubectl(String... args) throws Exception {
        return kubectl.run(args);
    }

    /** The rows of {@code kubectl get pods -o wide -l app=web} (header dropped), split on blanks. */
    private static List<String[]> podRows() throws Exception {
        String out = kubectl("get", "pods", "-o", "wide", "-l", "app=web").ok().out();
        return out.lines().skip(1).map(l -> l.trim().split("\\s+")).toList();
    }

    private static List<String[]> runningPods() throws Exception {
        // NAME READY STATUS RESTARTS AGE IP NODE NOMINATED-NODE READINESS-GATES
        return podRows().stream()
                .filter(r -> r.length >= 7 && r[2].equals("Running") && r[1].equals("1/1"))
                .toList();
    }

    private static void awaitRunning(int count) {
        await().atMost(Duration.ofSeconds(15))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> podRows().stream()
                                        .filter(r -> !r[2].equals("Terminating"))
                                        .count()
                                == count
                        && runningPods().size() == count);
    }

    @Test
    @Order(1)
    void threeReadyNodes() throws Exception {
        String nodes = kubectl("get", "nodes").ok().out();
        assertThat(nodes.lines().skip(1)).hasSize(3).allSatisfy(l -> assertThat(l)
                .containsPattern("^node-\\d +Ready +<none> +\\S+ +v1\\.32"));
    }

    @Test
    @Order(2)
    void aDeploymentGetsThreeRunningPodsOnThreeNodes() throws Exception {
        assertThat(kubectl("create", "deployment", "web", "--image=nginx", "--replicas=3")
                        .ok()
                        .out())
                .contains("deployment.apps/web created");
        assertThat(kubectl("rollout", "status", "deploy/web", "--timeout=15s")
                        .ok()
                        .out())
                .contains("deployment \"web\" successfully rolled out");
        awaitRunning(3);
        Set<String> nodes = runningPods().stream().map(r -> r[6]).collect(Collectors.toSet());
        assertThat(nodes).containsExactlyInAnyOrder("node-1", "node-2", "node-3");
        assertThat(runningPods()).allSatisfy(r -> assertThat(r[5]).startsWith("10.244."));
        // ReplicaSets are named by the pod template's hash, pods by the ReplicaSet's name and a random suffix
        String rs =
                kubectl("get", "rs", "-l", "app=web", "-o", "name").ok().out().strip();
        assertThat(rs).matches("replicaset.apps/web-[a-z0-9]{8,10}");
        String rsName = rs.substring(rs.indexOf('/') + 1);
        assertThat(runningPods()).allSatisfy(r -> assertThat(r[0]).matches(rsName + "-[a-z0-9]{5}"));
        assertThat(kubectl("get", "deploy", "web").ok().out()).containsPattern("web +3/3 +3 +3");
    }

    @Test
    @Order(3)
    void scaleUpAndDown() throws Exception {
        kubectl("scale", "deploy/web", "--replicas=5").ok();
        kubectl("rollout", "status", "deploy/web", "--timeout=15s").ok();
        awaitRunning(5);
        kubectl("scale", "deploy/web", "--replicas=3").ok();
        awaitRunning(3);
    }

    @Test
    @Order(4)
    void aDeletedPodComesBack() throws Exception {
        String victim = runningPods().getFirst()[0];
        assertThat(kubectl("delete", "pod", victim, "--wait=false").ok().out())
                .contains("pod \"" + victim + "\" deleted");
        await().atMost(Duration.ofSeconds(15))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> runningPods().size() == 3 && runningPods().stream().noneMatch(r -> r[0].equals(victim)));
    }

    @Test
    @Order(5)
    void cordonMarksTheNodeUnschedulable() throws Exception {
        assertThat(kubectl("cordon", "node-1").ok().out()).contains("node/node-1 cordoned");
        assertThat(kubectl("get", "node", "node-1").ok().out()).contains("Ready,SchedulingDisabled");
        assertThat(kubectl("uncordon", "node-1").ok().out()).contains("node/node-1 uncordoned");
        assertThat(kubectl("get", "node", "node-1").ok().out()).doesNotContain("SchedulingDisabled");
    }

    @Test
    @Order(6)
    void drainEvictsThePodsToTheOtherNodes() throws Exception {
        Kubectl.Result drain = kubectl("drain", "node-1", "--ignore-daemonsets", "--grace-period=1", "--timeout=15s")
                .ok();
        assertThat(drain.out()).contains("node/node-1 cordoned").contains("node/node-1 drained");
        awaitRunning(3);
        assertThat(runningPods()).noneSatisfy(r -> assertThat(r[6]).isEqualTo("node-1"));
        kubectl("uncordon", "node-1").ok();
    }

    @Test
    @Order(7)
    void rolloutRestartAndUndo() throws Exception {
        String before = kubectl("get", "rs", "-l", "app=web", "-o", "name").ok().out();
        assertThat(kubectl("rollout", "restart", "deploy/web").ok().out()).contains("deployment.apps/web restarted");
        assertThat(kubectl("rollout", "status", "deploy/web", "--timeout=15s")
                        .ok()
                        .out())
                .contains("successfully rolled out");
        awaitRunning(3);
        assertThat(kubectl("get", "rs", "-l", "app=web").ok().out().lines().skip(1))
                .hasSize(2)
                .anySatisfy(l -> assertThat(l).containsPattern(" 3 +3 +3 "))
                .anySatisfy(l -> assertThat(l).containsPattern(" 0 +0 +0 "));
        assertThat(kubectl("rollout", "history", "deploy/web").ok().out())
                .contains("1 ")
                .contains("2 ");
        assertThat(kubectl("rollout", "undo", "deploy/web").ok().out()).contains("deployment.apps/web rolled back");
        kubectl("rollout", "status", "deploy/web", "--timeout=15s").ok();
        awaitRunning(3);
        String after = kubectl("get", "rs", "-l", "app=web", "-o", "name").ok().out();
        assertThat(Arrays.asList(after.split("\n")))
                .containsAll(Arrays.asList(before.strip().split("\n")));
    }

    @Test
    @Order(8)
    void aServiceGetsTheReadyPodsAsEndpoints() throws Exception {
        kubectl("expose", "deploy/web", "--port=80").ok();
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(100))
                .untilAsserted(
                        () -> assertThat(kubectl("get", "endpoints", "web").ok().out())
                                .containsPattern(
                                        "web +10\\.244\\.\\d+\\.\\d+:80,10\\.244\\.\\d+\\.\\d+:80,10\\.244\\.\\d+\\.\\d+:80"));
        assertThat(kubectl("get", "endpointslices", "-l", "kubernetes.io/service-name=web")
                        .ok()
                        .out())
                .containsPattern("web-[a-z0-9]{5} +IPv4 +80 ");
    }

    @Test
    @Order(9)
    void topAndLogsFailClearly() throws Exception {
        Kubectl.Result top = kubectl("top", "pods");
        assertThat(top.exit()).isNotZero();
        assertThat(top.err()).contains("Metrics API not available");
        String pod = runningPods().getFirst()[0];
        Kubectl.Result logs = kubectl("logs", pod);
        assertThat(logs.exit()).isNotZero();
        assertThat(logs.err()).contains("which has no container runtime");
    }
}
