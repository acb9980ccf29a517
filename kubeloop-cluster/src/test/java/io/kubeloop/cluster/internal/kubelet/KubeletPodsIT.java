package io.kubeloop.cluster.internal.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.kubeloop.client.resource.PatchOptions;
import io.kubeloop.client.resource.PatchType;
import io.kubeloop.client.watch.WatchEvent;
import io.kubeloop.cluster.ClusterTimings;
import io.kubeloop.model.WatchEventType;
import io.kubeloop.testsupport.TestThreads;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The pod lifecycle the simulated kubelet reports, over HTTP against the embedded API server on a fake clock, with
 * pods created already bound ({@code spec.nodeName}). The expected values are kubelet 1.32's
 * ({@code generateAPIPodStatus}, {@code status/generate.go}, {@code getPhase}, {@code doBackOff}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KubeletPodsIT {

    private final KubeletHarness h = new KubeletHarness(ClusterTimings.DEFAULTS, NodeTemplate.defaults(2));

    @AfterAll
    void close() {
        h.close();
    }

    private static Map<String, String> conditions(Pod p) {
        Map<String, String> m = new java.util.LinkedHashMap<>();
        for (PodCondition c : p.getStatus().getConditions()) {
            m.put(c.getType(), c.getStatus());
        }
        return m;
    }

    private static PodCondition condition(Pod p, String type) {
        return p.getStatus().getConditions().stream()
                .filter(c -> c.getType().equals(type))
                .findFirst()
                .orElseThrow();
    }

    private static ContainerStatus app(Pod p) {
        return p.getStatus().getContainerStatuses().get(0);
    }

    private static boolean running(Pod p) {
        return p.getStatus() != null && "Running".equals(p.getStatus().getPhase());
    }

    @Test
    void aBoundPodGoesContainerCreatingThenRunningInTwoStatusWrites() {
        String ns = h.namespace();
        List<WatchEvent.Change<Pod>> events = h.record(ns);
        Pod pod = h.create(KubeletHarness.pod(ns, "web", "node-1", Map.of()).build());
        String created = h.now().toString().replace(".000", "");

        Pod p = h.awaitPod(pod, KubeletPodsIT::running);

        assertThat(p.getStatus().getPhase()).isEqualTo("Running");
        assertThat(conditions(p))
                .containsExactly(
                        Map.entry("PodReadyToStartContainers", "True"),
                        Map.entry("Initialized", "True"),
                        Map.entry("Ready", "True"),
                        Map.entry("ContainersReady", "True"),
                        Map.entry("PodScheduled", "True"));
        assertThat(condition(p, "Ready").getLastTransitionTime()).isEqualTo(created);
        assertThat(p.getStatus().getHostIP()).isEqualTo("10.0.0.1");
        assertThat(p.getStatus().getHostIPs()).extracting("ip").containsExactly("10.0.0.1");
        assertThat(p.getStatus().getPodIP()).startsWith("10.244.1.");
        assertThat(p.getStatus().getPodIPs())
                .extracting("ip")
                .containsExactly(p.getStatus().getPodIP());
        assertThat(p.getStatus().getStartTime()).isEqualTo(created);
        assertThat(p.getStatus().getQosClass()).isEqualTo("BestEffort");
        ContainerStatus c = app(p);
        assertThat(c.getName()).isEqualTo("app");
        assertThat(c.getReady()).isTrue();
        assertThat(c.getStarted()).isTrue();
        assertThat(c.getRestartCount()).isZero();
        assertThat(c.getImage()).isEqualTo("docker.io/library/nginx:latest");
        assertThat(c.getImageID()).matches("docker\\.io/library/nginx@sha256:[0-9a-f]{64}");
        assertThat(c.getContainerID()).matches("kubeloop-sim://[0-9a-f]{64}");
        assertThat(c.getState().getRunning().getStartedAt()).isEqualTo(created);
        assertThat(c.getLastState().getTerminated()).isNull();

        // ADDED, then the kubelet's two status writes: ContainerCreating, Running
        TestThreads.eventually().until(() -> events.size() >= 3);
        assertThat(events.get(0).type()).isEqualTo(WatchEventType.ADDED);
        Pod creating = events.get(1).object();
        assertThat(creating.getStatus().getPhase()).isEqualTo("Pending");
        assertThat(app(creating).getState().getWaiting().getReason()).isEqualTo("ContainerCreating");
        assertThat(app(creating).getImage()).isEqualTo("nginx");
        assertThat(app(creating).getImageID()).isEmpty();
        assertThat(creating.getStatus().getPodIP()).isNull();
        assertThat(events.get(2).object().getStatus().getPhase()).isEqualTo("Running");
    }

    @Test
    void aStartDelayKeepsThePodContainerCreatingForThatClusterTime() {
        String ns = h.namespace();
        Pod pod = h.create(KubeletHarness.pod(ns, "slow", "node-2", Map.of("sim.kubeloop.io/start-delay", "5s"))
                .build());

        Pod creating =
                h.awaitPod(pod, p -> !p.getStatus().getContainerStatuses().isEmpty());
        assertThat(creating.getStatus().getPhase()).isEqualTo("Pending");
        assertThat(conditions(creating))
                .containsEntry("PodReadyToStartContainers", "False")
                .containsEntry("Ready", "False");
        assertThat(condition(creating, "Ready").getReason()).isEqualTo("ContainersNotReady");
        assertThat(condition(creating, "Ready").getMessage()).isEqualTo("containers with unready status: [app]");
        assertThat(app(creating).getState().getWaiting().getReason()).isEqualTo("ContainerCreating");
        assertThat(creating.getStatus().getHostIP()).isEqualTo("10.0.0.2");

        h.step(Duration.ofMillis(4999));
        assertThat(h.get(pod).getStatus().getPhase()).isEqualTo("Pending");
        h.step(Duration.ofMillis(1));
        Pod p = h.awaitPod(pod, KubeletPodsIT::running);
        assertThat(p.getStatus().getPodIP()).startsWith("10.244.2.");
    }

    @Test
    void initContainersRunToCompletionFirst() {
        String ns = h.namespace();
        Pod pod = h.create(KubeletHarness.pod(ns, "with-init", "node-1", Map.of("sim.kubeloop.io/init-duration", "3s"))
                .editSpec()
                .addNewInitContainer()
                .withName("setup")
                .withImage("busybox:1.36")
                .endInitContainer()
                .endSpec()
                .build());

        Pod init = h.awaitPod(
                pod,
                p -> !p.getStatus().getInitContainerStatuses().isEmpty()
                        && p.getStatus()
                                        .getInitContainerStatuses()
                                        .get(0)
                                        .getState()
                                        .getRunning()
                                != null);
        assertThat(init.getStatus().getPhase()).isEqualTo("Pending");
        assertThat(condition(init, "Initialized").getStatus()).isEqualTo("False");
        assertThat(condition(init, "Initialized").getReason()).isEqualTo("ContainersNotInitialized");
        assertThat(condition(init, "Initialized").getMessage()).isEqualTo("containers with incomplete status: [setup]");
        assertThat(app(init).getState().getWaiting().getReason()).isEqualTo("PodInitializing");

        h.step(Duration.ofSeconds(3));
        Pod p = h.awaitPod(pod, KubeletPodsIT::running);
        ContainerStatus setup = p.getStatus().getInitContainerStatuses().get(0);
        assertThat(setup.getState().getTerminated().getExitCode()).isZero();
        assertThat(setup.getState().getTerminated().getReason()).isEqualTo("Completed");
        assertThat(setup.getImage()).isEqualTo("docker.io/library/busybox:1.36");
        assertThat(setup.getReady()).isTrue();
        assertThat(condition(p, "Initialized").getStatus()).isEqualTo("True");
        assertThat(app(p).getState().getRunning()).isNotNull();
    }

    @Test
    void readinessGatesKeepThePodNotReadyUntilTheirConditionIsTrue() {
        String ns = h.namespace();
        Pod pod = h.create(KubeletHarness.pod(ns, "gated", "node-1", Map.of())
                .editSpec()
                .addNewReadinessGate("example.com/lb-ready")
                .endSpec()
                .build());

        Pod p = h.awaitPod(pod, KubeletPodsIT::running);
        assertThat(condition(p, "ContainersReady").getStatus()).isEqualTo("True");
        assertThat(condition(p, "Ready").getStatus()).isEqualTo("False");
        assertThat(condition(p, "Ready").getReason()).isEqualTo("ReadinessGatesNotReady");
        assertThat(condition(p, "Ready").getMessage())
                .isEqualTo("corresponding condition of pod readiness gate \"example.com/lb-ready\" does not exist.");

        h.pods.inNamespace(ns)
                .patchStatus(
                        "gated",
                        PatchType.STRATEGIC,
                        "{\"status\":{\"conditions\":[{\"type\":\"example.com/lb-ready\",\"status\":\"True\"}]}}",
                        PatchOptions.none());

        Pod ready = h.awaitPod(pod, x -> condition(x, "Ready").getStatus().equals("True"));
        assertThat(conditions(ready)).containsKey("example.com/lb-ready");
        assertThat(ready.getStatus().getConditions().get(0).getType()).isEqualTo("example.com/lb-ready");
    }

    @Test
    void aCrashLoopRestartsWithBackOffDoublingFromTenSeconds() {
        String ns = h.namespace();
        Pod pod = h.create(KubeletHarness.pod(ns, "crasher", "node-2", Map.of("sim.kubeloop.io/crash-loop", "true"))
                .build());
        String uid = pod.getMetadata().getUid();

        // exits at once, restarts at once (no back-off yet), exits again: back-off 10s
        Pod p = h.awaitPod(
                pod,
                x -> x.getStatus().getContainerStatuses() != null
                        && app(x).getState().getWaiting() != null
                        && "CrashLoopBackOff"
                                .equals(app(x).getState().getWaiting().getReason()));
        assertThat(app(p).getRestartCount()).isEqualTo(1);
        assertThat(app(p).getState().getWaiting().getMessage())
                .isEqualTo("back-off 10s restarting failed container=app pod=crasher_" + ns + "(" + uid + ")");
        assertThat(app(p).getLastState().getTerminated().getExitCode()).isEqualTo(1);
        assertThat(app(p).getLastState().getTerminated().getReason()).isEqualTo("Error");
        assertThat(app(p).getReady()).isFalse();
        assertThat(app(p).getStarted()).isFalse();
        assertThat(p.getStatus().getPhase()).isEqualTo("Running");

        h.step(Duration.ofSeconds(9));
        assertThat(app(h.get(pod)).getRestartCount()).isEqualTo(1);
        h.step(Duration.ofSeconds(1));
        p = h.awaitPod(pod, x -> app(x).getRestartCount() == 2);
        assertThat(app(p).getState().getWaiting().getMessage()).startsWith("back-off 20s restarting failed container");

        h.step(Duration.ofSeconds(20));
        p = h.awaitPod(pod, x -> app(x).getRestartCount() == 3);
        assertThat(app(p).getState().getWaiting().getMessage()).startsWith("back-off 40s ");
        // each back-off ends with a restart and a crash, and the next back-off is twice as long, up to 5 minutes
        List<Duration> waits =
                List.of(Duration.ofSeconds(40), Duration.ofSeconds(80), Duration.ofSeconds(160), Duration.ofMinutes(5));
        List<String> next = List.of("1m20s", "2m40s", "5m0s", "5m0s");
        for (int i = 0; i < waits.size(); i++) {
            int count = app(p).getRestartCount();
            h.step(waits.get(i));
            p = h.awaitPod(pod, x -> app(x).getRestartCount() == count + 1);
            assertThat(app(p).getState().getWaiting().getMessage()).startsWith("back-off " + next.get(i) + " ");
        }
    }

    @Test
    void aCrashedContainerIsRestartedAtOnceThenBackedOff() {
        String ns = h.namespace();
        Pod pod = h.create(KubeletHarness.pod(ns, "victim", "node-1", Map.of()).build());
        h.awaitPod(pod, KubeletPodsIT::running);

        h.kubelets.crashContainer(ns, "victim");
        Pod p = h.awaitPod(pod, x -> app(x).getRestartCount() == 1);
        assertThat(app(p).getState().getRunning()).isNotNull();
        assertThat(app(p).getLastState().getTerminated().getExitCode()).isEqualTo(137);
        assertThat(app(p).getLastState().getTerminated().getReason()).isEqualTo("Error");
        assertThat(app(p).getContainerID())
                .isNotEqualTo(app(h.get(pod)).getLastState().getTerminated().getContainerID());

        h.kubelets.crashContainer(ns, "victim");
        p = h.awaitPod(pod, x -> app(x).getState().getWaiting() != null);
        assertThat(app(p).getState().getWaiting().getReason()).isEqualTo("CrashLoopBackOff");
        assertThat(condition(p, "Ready").getStatus()).isEqualTo("False");
        h.step(Duration.ofSeconds(10));
        h.awaitPod(pod, x -> app(x).getRestartCount() == 2 && app(x).getReady());

        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> h.kubelets.crashContainer(ns, "nope")))
                .isInstanceOf(java.util.NoSuchElementException.class)
                .hasMessageContaining(ns + "/nope");
    }

    @Test
    void anExitCodeEndsThePodPerItsRestartPolicy() {
        String ns = h.namespace();
        Pod ok = h.create(KubeletHarness.pod(
                        ns,
                        "ok",
                        "node-1",
                        Map.of("sim.kubeloop.io/exit-code", "0", "sim.kubeloop.io/run-duration", "5s"))
                .editSpec()
                .withRestartPolicy("Never")
                .endSpec()
                .build());
        Pod bad = h.create(KubeletHarness.pod(ns, "bad", "node-1", Map.of("sim.kubeloop.io/exit-code", "3"))
                .editSpec()
                .withRestartPolicy("Never")
                .endSpec()
                .build());
        Pod retried = h.create(KubeletHarness.pod(ns, "retried", "node-2", Map.of("sim.kubeloop.io/exit-code", "0"))
                .editSpec()
                .withRestartPolicy("OnFailure")
                .endSpec()
                .build());

        h.awaitPod(ok, KubeletPodsIT::running);
        Pod failed = h.awaitPod(bad, x -> "Failed".equals(x.getStatus().getPhase()));
        assertThat(app(failed).getState().getTerminated().getExitCode()).isEqualTo(3);
        assertThat(app(failed).getState().getTerminated().getReason()).isEqualTo("Error");
        assertThat(condition(failed, "Ready").getReason()).isEqualTo("PodFailed");
        assertThat(condition(failed, "PodReadyToStartContainers").getStatus()).isEqualTo("False");
        Pod done = h.awaitPod(retried, x -> "Succeeded".equals(x.getStatus().getPhase()));
        assertThat(app(done).getRestartCount()).isZero();

        h.step(Duration.ofSeconds(5));
        Pod succeeded = h.awaitPod(ok, x -> "Succeeded".equals(x.getStatus().getPhase()));
        assertThat(app(succeeded).getState().getTerminated().getExitCode()).isZero();
        assertThat(app(succeeded).getState().getTerminated().getReason()).isEqualTo("Completed");
        assertThat(condition(succeeded, "Ready").getReason()).isEqualTo("PodCompleted");
        assertThat(condition(succeeded, "ContainersReady").getReason()).isEqualTo("PodCompleted");
        assertThat(app(succeeded).getReady()).isFalse();
    }

    @Test
    void neverReadyAndReadyDelay() {
        String ns = h.namespace();
        Pod never = h.create(KubeletHarness.pod(ns, "never", "node-2", Map.of("sim.kubeloop.io/never-ready", "true"))
                .build());
        Pod later = h.create(KubeletHarness.pod(ns, "later", "node-2", Map.of("sim.kubeloop.io/ready-delay", "1m"))
                .build());

        Pod n = h.awaitPod(never, KubeletPodsIT::running);
        assertThat(app(n).getReady()).isFalse();
        assertThat(condition(n, "Ready").getMessage()).isEqualTo("containers with unready status: [app]");
        Pod l = h.awaitPod(later, KubeletPodsIT::running);
        assertThat(app(l).getReady()).isFalse();

        h.step(Duration.ofMinutes(1));
        h.awaitPod(
                later,
                x -> app(x).getReady() && condition(x, "Ready").getStatus().equals("True"));
        assertThat(app(h.get(never)).getReady()).isFalse();
        assertThat(app(h.get(never)).getState().getRunning()).isNotNull();
    }

    @Test
    void podsOfANodeGetDistinctIpsFromItsPodCidr() {
        String ns = h.namespace();
        List<Pod> created = new java.util.ArrayList<>();
        for (int i = 0; i < 5; i++) {
            created.add(
                    h.create(KubeletHarness.pod(ns, "p" + i, "node-2", Map.of()).build()));
        }
        List<String> ips = created.stream()
                .map(p -> h.awaitPod(p, KubeletPodsIT::running).getStatus().getPodIP())
                .toList();
        assertThat(ips)
                .doesNotHaveDuplicates()
                .allMatch(ip -> ip.matches("10\\.244\\.2\\.([2-9]|[1-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|25[0-4])"));
    }
}
