package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.clock.FakeClock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The real kubectl's human-readable output, which comes from server-side tables: the columns of
 * {@code get pods} (and {@code -o wide}, {@code -A}, {@code --show-labels}), {@code get deploy}, and
 * {@code get -w}. The server runs on a fake clock five minutes after the objects were created, so ages are exact.
 */
class KubectlTablesIT extends KubectlTest {

    private final FakeClock clock = new FakeClock();

    @Override
    EmbeddedApiServer.Builder configure(EmbeddedApiServer.Builder builder) {
        return builder.clock(clock);
    }

    @BeforeEach
    void start() {
        api.createWithStatus("/api/v1/namespaces/default/pods", """
                {"metadata":{"name":"web-1","labels":{"app":"web","tier":"front"}},
                 "spec":{"nodeName":"node-1","containers":[{"name":"app","image":"nginx"}]},
                 "status":{"phase":"Running","podIP":"10.0.0.7","podIPs":[{"ip":"10.0.0.7"}],"containerStatuses":[
                   {"name":"app","ready":true,"restartCount":0,"state":{"running":{}}}]}}
                """);
        api.createWithStatus(
                "/api/v1/namespaces/default/pods", """
                {"metadata":{"name":"crashy","labels":{"app":"crashy"}},
                 "spec":{"nodeName":"node-2","containers":[{"name":"app","image":"busybox"}]},
                 "status":{"phase":"Running","podIP":"10.0.0.8","containerStatuses":[
                   {"name":"app","ready":false,"restartCount":3,"state":{"waiting":{"reason":"CrashLoopBackOff"}},
                    "lastState":{"terminated":{"exitCode":1,"reason":"Error",
                      "finishedAt":"%s"}}}]}}
                """.formatted(clock.now().plus(Duration.ofMinutes(3))));
        api.create("/api/v1/namespaces/kube-system/pods", """
                {"metadata":{"name":"dns"},"spec":{"containers":[{"name":"dns","image":"coredns"}]}}
                """);
        api.createWithStatus("/apis/apps/v1/namespaces/default/deployments", """
                {"metadata":{"name":"web"},"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},
                 "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[
                   {"name":"nginx","image":"nginx:1.25"}]}}},
                 "status":{"replicas":3,"readyReplicas":2,"updatedReplicas":3,"availableReplicas":2}}
                """);
        clock.step(Duration.ofMinutes(5));
    }

    /** Output lines split into columns (kubectl pads columns with at least three spaces). */
    private static List<List<String>> table(String output) {
        return output.lines()
                .map(l -> Arrays.asList(l.strip().split("\\s{2,}")))
                .toList();
    }

    @Test
    void getPods() throws Exception {
        String out = kubectl.run("get", "pods").ok().out();
        assertThat(table(out))
                .containsExactly(
                        List.of("NAME", "READY", "STATUS", "RESTARTS", "AGE"),
                        List.of("crashy", "0/1", "CrashLoopBackOff", "3 (2m ago)", "5m"),
                        List.of("web-1", "1/1", "Running", "0", "5m"));
        assertThat(table(kubectl.run("get", "pod", "web-1").ok().out()))
                .containsExactly(
                        List.of("NAME", "READY", "STATUS", "RESTARTS", "AGE"),
                        List.of("web-1", "1/1", "Running", "0", "5m"));
    }

    @Test
    void getPodsWide() throws Exception {
        String out = kubectl.run("get", "pods", "-o", "wide").ok().out();
        assertThat(table(out))
                .containsExactly(
                        List.of(
                                "NAME",
                                "READY",
                                "STATUS",
                                "RESTARTS",
                                "AGE",
                                "IP",
                                "NODE",
                                "NOMINATED NODE",
                                "READINESS GATES"),
                        List.of(
                                "crashy",
                                "0/1",
                                "CrashLoopBackOff",
                                "3 (2m ago)",
                                "5m",
                                "10.0.0.8",
                                "node-2",
                                "<none>",
                                "<none>"),
                        List.of("web-1", "1/1", "Running", "0", "5m", "10.0.0.7", "node-1", "<none>", "<none>"));
    }

    @Test
    void getPodsInAllNamespaces() throws Exception {
        String out = kubectl.run("get", "pods", "-A").ok().out();
        assertThat(table(out))
                .containsExactly(
                        List.of("NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "AGE"),
                        List.of("default", "crashy", "0/1", "CrashLoopBackOff", "3 (2m ago)", "5m"),
                        List.of("default", "web-1", "1/1", "Running", "0", "5m"),
                        List.of("kube-system", "dns", "0/1", "Pending", "0", "5m"));
    }

    @Test
    void getPodsShowLabels() throws Exception {
        String out = kubectl.run("get", "pods", "--show-labels").ok().out();
        assertThat(table(out))
                .containsExactly(
                        List.of("NAME", "READY", "STATUS", "RESTARTS", "AGE", "LABELS"),
                        List.of("crashy", "0/1", "CrashLoopBackOff", "3 (2m ago)", "5m", "app=crashy"),
                        List.of("web-1", "1/1", "Running", "0", "5m", "app=web,tier=front"));
    }

    @Test
    void getDeployments() throws Exception {
        assertThat(table(kubectl.run("get", "deploy").ok().out()))
                .containsExactly(
                        List.of("NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"),
                        List.of("web", "2/3", "3", "2", "5m"));
        assertThat(table(kubectl.run("get", "deploy", "-o", "wide").ok().out()))
                .containsExactly(
                        List.of("NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"),
                        List.of("web", "2/3", "3", "2", "5m", "nginx", "nginx:1.25", "app=web"));
    }

    @Test
    void otherKindsAndEmptyLists() throws Exception {
        assertThat(table(kubectl.run("get", "namespaces").ok().out()))
                .contains(List.of("NAME", "STATUS", "AGE"), List.of("default", "Active", "5m"));
        assertThat(table(kubectl.run("get", "leases", "-n", "kube-node-lease")
                        .ok()
                        .err()))
                .containsExactly(List.of("No resources found in kube-node-lease namespace."));
    }

    @Test
    void getWatchPrintsHeadersOnceThenRows() throws Exception {
        Path watchOut = dir.resolve("watch.txt");
        Process watch = kubectl.start(watchOut, "get", "pods", "-w");
        try {
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> Files.readString(
                            watchOut, StandardCharsets.UTF_8)
                    .contains("web-1"));
            api.delete("/api/v1/namespaces/default/pods/crashy");
            Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> Files.readString(watchOut, StandardCharsets.UTF_8)
                                    .lines()
                                    .filter(l -> l.startsWith("crashy"))
                                    .count()
                            >= 2);
            List<List<String>> lines = table(Files.readString(watchOut, StandardCharsets.UTF_8));
            assertThat(lines.get(0)).containsExactly("NAME", "READY", "STATUS", "RESTARTS", "AGE");
            assertThat(lines).filteredOn(l -> l.get(0).equals("NAME")).hasSize(1);
            assertThat(lines.get(lines.size() - 1).get(0)).isEqualTo("crashy");
        } finally {
            watch.destroy();
            watch.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
