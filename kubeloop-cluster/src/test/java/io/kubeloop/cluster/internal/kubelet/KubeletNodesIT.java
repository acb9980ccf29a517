package io.kubeloop.cluster.internal.kubelet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.kubeloop.client.watch.WatchEvent;
import io.kubeloop.cluster.ClusterTimings;
import io.kubeloop.cluster.SimulatedNode;
import io.kubeloop.model.WatchEventType;
import io.kubeloop.testsupport.TestThreads;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Node registration, the Lease, node status and the node's states (stopped, partitioned), over HTTP against the
 * embedded API server on a fake clock. Each timing test adds a node of its own, so that its timeline starts when the
 * test does. A second set of kubelets runs at speed 10 on the same server.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KubeletNodesIT {

    private final KubeletHarness h = new KubeletHarness(ClusterTimings.DEFAULTS, NodeTemplate.defaults(2));
    private final ClusterTimings fastTimings = ClusterTimings.DEFAULTS.withSpeed(10);
    private final Kubelets fast = Kubelets.start(
            h.client,
            h.clock,
            fastTimings,
            List.of(NodeTemplate.of("fast-1", "zone-a"), NodeTemplate.of("fast-2", "zone-b")));

    @AfterAll
    void close() {
        fast.close();
        h.close();
    }

    private static NodeCondition condition(Node n, String type) {
        return n.getStatus().getConditions().stream()
                .filter(c -> c.getType().equals(type))
                .findFirst()
                .orElseThrow();
    }

    private static Instant renewTime(Lease l) {
        return l.getSpec().getRenewTime().toInstant();
    }

    private static boolean near(Instant actual, Instant expected) {
        return Duration.between(expected, actual).abs().compareTo(Duration.ofMillis(1)) < 0;
    }

    private Instant heartbeat(String node) {
        return Instant.parse(condition(h.nodes.get(node).orElseThrow(), "Ready").getLastHeartbeatTime());
    }

    @Test
    void aNodeIsRegisteredAsTheKubeletRegistersIt() {
        Node n = h.awaitNode("node-1");

        assertThat(n.getMetadata().getLabels())
                .containsEntry("kubernetes.io/hostname", "node-1")
                .containsEntry("kubernetes.io/os", "linux")
                .containsEntry("kubernetes.io/arch", "amd64")
                .containsEntry("beta.kubernetes.io/os", "linux")
                .containsEntry("beta.kubernetes.io/arch", "amd64")
                .containsEntry("topology.kubernetes.io/zone", "zone-a")
                .containsEntry("topology.kubernetes.io/region", "region-1");
        assertThat(h.awaitNode("node-2").getMetadata().getLabels())
                .containsEntry("topology.kubernetes.io/zone", "zone-b");
        assertThat(n.getMetadata().getAnnotations())
                .containsEntry("volumes.kubernetes.io/controller-managed-attach-detach", "true");
        assertThat(n.getSpec().getPodCIDR()).isEqualTo("10.244.1.0/24");
        assertThat(n.getSpec().getPodCIDRs()).containsExactly("10.244.1.0/24");
        assertThat(n.getSpec().getTaints()).isEmpty();
        assertThat(n.getStatus().getCapacity())
                .containsEntry("cpu", new Quantity("8"))
                .containsEntry("memory", new Quantity("33554432Ki"))
                .containsEntry("pods", new Quantity("110"))
                .containsEntry("ephemeral-storage", new Quantity("104857600Ki"));
        assertThat(n.getStatus().getAllocatable())
                .containsEntry("cpu", new Quantity("8"))
                .containsEntry("memory", new Quantity("33452032Ki"))
                .containsEntry("ephemeral-storage", new Quantity("96636764160"))
                .containsEntry("pods", new Quantity("110"));
        assertThat(n.getStatus().getConditions())
                .extracting(NodeCondition::getType, NodeCondition::getStatus, NodeCondition::getReason)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("MemoryPressure", "False", "KubeletHasSufficientMemory"),
                        org.assertj.core.groups.Tuple.tuple("DiskPressure", "False", "KubeletHasNoDiskPressure"),
                        org.assertj.core.groups.Tuple.tuple("PIDPressure", "False", "KubeletHasSufficientPID"),
                        org.assertj.core.groups.Tuple.tuple("Ready", "True", "KubeletReady"));
        assertThat(condition(n, "Ready").getMessage()).isEqualTo("kubelet is posting ready status");
        assertThat(condition(n, "MemoryPressure").getMessage()).isEqualTo("kubelet has sufficient memory available");
        assertThat(n.getStatus().getAddresses())
                .extracting("type", "address")
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("InternalIP", "10.0.0.1"),
                        org.assertj.core.groups.Tuple.tuple("Hostname", "node-1"));
        assertThat(n.getStatus().getNodeInfo().getKubeletVersion()).isEqualTo("v1.32.0");
        assertThat(n.getStatus().getNodeInfo().getContainerRuntimeVersion()).isEqualTo("kubeloop-sim://1.0.0");
        assertThat(n.getStatus().getNodeInfo().getOperatingSystem()).isEqualTo("linux");
        assertThat(n.getStatus().getDaemonEndpoints().getKubeletEndpoint().getPort())
                .isEqualTo(10250);

        Lease lease = h.awaitLease("node-1", l -> true);
        assertThat(lease.getSpec().getHolderIdentity()).isEqualTo("node-1");
        assertThat(lease.getSpec().getLeaseDurationSeconds()).isEqualTo(40);
        assertThat(lease.getMetadata().getOwnerReferences()).singleElement().satisfies(o -> {
            assertThat(o.getKind()).isEqualTo("Node");
            assertThat(o.getName()).isEqualTo("node-1");
            assertThat(o.getUid()).isEqualTo(n.getMetadata().getUid());
        });

        assertThat(h.kubelets.nodes()).extracting(SimulatedNode::name).startsWith("node-1", "node-2");
        assertThat(h.kubelets.node("node-2").zone()).isEqualTo("zone-b");
        assertThatThrownBy(() -> h.kubelets.node("nope"))
                .isInstanceOf(NoSuchElementException.class)
                .hasMessageContaining("nope");
        assertThatThrownBy(() -> h.kubelets.addNode(NodeTemplate.of("node-1", null)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("already simulated");
    }

    @Test
    void anExistingNodeIsReconciledNotReplaced() {
        h.nodes.create(new NodeBuilder()
                .withNewMetadata()
                .withName("pre-1")
                .withLabels(Map.of("team", "blue"))
                .endMetadata()
                .build());

        h.kubelets.addNode(NodeTemplate.of("pre-1", "zone-c"));

        Node n = h.awaitNode("pre-1");
        assertThat(n.getMetadata().getLabels())
                .containsEntry("team", "blue")
                .containsEntry("kubernetes.io/hostname", "pre-1")
                .containsEntry("topology.kubernetes.io/zone", "zone-c");
        assertThat(n.getSpec().getPodCIDR()).startsWith("10.244.");
        assertThat(condition(n, "Ready").getStatus()).isEqualTo("True");
    }

    @Test
    void theLeaseIsRenewedEveryTenSecondsOfClusterTime() {
        SimulatedNode node = h.kubelets.addNode(NodeTemplate.of("lease-1", "zone-a"));
        Instant t0 = h.now();
        assertThat(renewTime(h.awaitLease("lease-1", l -> true))).isEqualTo(t0);
        Duration first = Kubelets.firstTick(Duration.ofSeconds(10), ((NodeKubelet) node).number);
        assertThat(first).isBetween(Duration.ofSeconds(10), Duration.ofSeconds(20));

        h.step(first.minusMillis(1));
        assertThat(renewTime(h.leases.get("lease-1").orElseThrow())).isEqualTo(t0);
        h.step(Duration.ofMillis(1));
        h.awaitLease("lease-1", l -> near(renewTime(l), t0.plus(first)));
        h.step(Duration.ofSeconds(10));
        h.awaitLease("lease-1", l -> near(renewTime(l), t0.plus(first).plusSeconds(10)));
    }

    @Test
    void nodeStatusIsReportedEveryFiveMinutesWhenNothingChanged() {
        h.kubelets.addNode(NodeTemplate.of("status-1", "zone-b"));
        Instant t0 = h.now();
        h.awaitNode("status-1");
        assertThat(heartbeat("status-1")).isEqualTo(t0);

        h.step(Duration.ofSeconds(290)); // 28 or 29 status checks, nothing changed: nothing posted
        assertThat(heartbeat("status-1")).isEqualTo(t0);
        h.step(Duration.ofSeconds(20));
        TestThreads.eventually().until(() -> heartbeat("status-1"), t -> t.equals(t0.plusSeconds(310)));
        Node n = h.nodes.get("status-1").orElseThrow();
        assertThat(condition(n, "Ready").getLastTransitionTime()).isEqualTo(t0.toString());
    }

    @Test
    void aStoppedKubeletDoesNothingUntilStarted() {
        SimulatedNode node = h.kubelets.addNode(NodeTemplate.of("stop-1", "zone-c"));
        Instant t0 = h.now();
        h.awaitLease("stop-1", l -> true);

        node.stop();
        node.stop();
        assertThat(node.state()).isEqualTo(SimulatedNode.State.STOPPED);
        String ns = h.namespace();
        Pod pod = h.create(KubeletHarness.pod(ns, "waiting", "stop-1", Map.of()).build());
        h.step(Duration.ofSeconds(30));
        assertThat(renewTime(h.leases.get("stop-1").orElseThrow())).isEqualTo(t0);
        assertThat(h.get(pod).getStatus().getConditions()).isEmpty();

        node.start();
        assertThat(node.state()).isEqualTo(SimulatedNode.State.RUNNING);
        Instant restarted = h.now();
        h.awaitLease("stop-1", l -> renewTime(l).equals(restarted));
        TestThreads.eventually().until(() -> heartbeat("stop-1"), restarted::equals);
        h.awaitPod(pod, p -> "Running".equals(p.getStatus().getPhase()));
    }

    @Test
    void aPartitionedNodeRunsItsPodsButReportsNothingUntilItReconnects() {
        SimulatedNode node = h.kubelets.addNode(NodeTemplate.of("part-1", "zone-a"));
        h.awaitLease("part-1", l -> true);
        String ns = h.namespace();
        Pod pod = h.create(KubeletHarness.pod(ns, "cut-off", "part-1", Map.of()).build());
        h.awaitPod(pod, p -> "Running".equals(p.getStatus().getPhase()));

        node.partition(Duration.ofSeconds(30));
        assertThat(node.state()).isEqualTo(SimulatedNode.State.PARTITIONED);
        Instant cut = h.now();
        h.kubelets.crashContainer(ns, "cut-off");
        h.step(Duration.ofSeconds(29));
        assertThat(h.get(pod).getStatus().getContainerStatuses().get(0).getRestartCount())
                .isZero();
        assertThat(renewTime(h.leases.get("part-1").orElseThrow())).isBefore(cut.plusSeconds(1));

        h.step(Duration.ofSeconds(1));
        assertThat(node.state()).isEqualTo(SimulatedNode.State.RUNNING);
        Instant back = h.now();
        h.awaitLease("part-1", l -> renewTime(l).equals(back));
        h.awaitPod(pod, p -> p.getStatus().getContainerStatuses().get(0).getRestartCount() == 1);

        assertThatThrownBy(() -> node.partition(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        node.stop();
        assertThatThrownBy(() -> node.partition(Duration.ofSeconds(1)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("stopped");
        node.start();
    }

    @Test
    void atSpeedTenTheLeaseIsRenewedEverySecondOfClock() {
        Lease lease = h.awaitLease("fast-1", l -> true);
        Instant t0 = renewTime(lease);
        NodeKubelet node = (NodeKubelet) fast.node("fast-1");
        // the lease keeps kube's values; only the clock time between renewals is divided by the speed
        assertThat(lease.getSpec().getLeaseDurationSeconds()).isEqualTo(40);
        assertThat(Kubelets.firstTick(fastTimings.wall(Duration.ofSeconds(10)), node.number))
                .isBetween(Duration.ofSeconds(1), Duration.ofSeconds(2));
        // whatever the phase, two steps of a second renew it twice, a second apart
        h.step(Duration.ofSeconds(2));
        Instant r1 = renewTime(h.awaitLease("fast-1", l -> renewTime(l).isAfter(t0)));
        h.step(Duration.ofSeconds(1));
        h.awaitLease("fast-1", l -> renewTime(l).equals(r1.plusSeconds(1)));
    }

    @Test
    void atSpeedTenAGracefulDeletionEndsAfterTheGracePeriodInClusterTime() {
        String ns = h.namespace();
        List<WatchEvent.Change<Pod>> events = h.record(ns);
        Pod pod = h.create(KubeletHarness.pod(ns, "leaving", "fast-1", Map.of()).build());
        h.awaitPod(pod, p -> "Running".equals(p.getStatus().getPhase()));

        h.pods.inNamespace(ns).delete("leaving"); // terminationGracePeriodSeconds 30: 3 s of clock
        h.awaitPod(pod, p -> p.getMetadata().getDeletionTimestamp() != null);
        h.step(Duration.ofMillis(2999));
        assertThat(h.pods.inNamespace(ns).get("leaving")).isPresent();
        h.step(Duration.ofMillis(1));
        h.awaitGone(pod);

        // the kubelet reported the containers stopped, then deleted the pod
        TestThreads.eventually().until(() -> events.stream().anyMatch(e -> e.type() == WatchEventType.DELETED));
        Pod last = events.get(events.size() - 2).object();
        assertThat(last.getStatus().getPhase()).isEqualTo("Succeeded");
        assertThat(last.getStatus().getContainerStatuses().get(0).getState().getTerminated())
                .isNotNull();
    }

    @Test
    void aStoppedNodeLeavesItsDeletedPodsTerminating() {
        String ns = h.namespace();
        Pod pod = h.create(KubeletHarness.pod(ns, "stuck", "fast-2", Map.of()).build());
        h.awaitPod(pod, p -> "Running".equals(p.getStatus().getPhase()));
        SimulatedNode node = fast.node("fast-2");

        node.stop();
        h.pods.inNamespace(ns).delete("stuck");
        h.step(Duration.ofSeconds(10)); // beyond the 3 s the grace period takes at speed 10
        assertThat(h.get(pod).getMetadata().getDeletionTimestamp()).isNotNull();
        assertThat(h.get(pod).getStatus().getPhase()).isEqualTo("Running");

        node.start(); // the kubelet sees the deletion now and gives the containers their grace period
        h.awaitPod(pod, p -> true);
        h.step(Duration.ofSeconds(3));
        h.awaitGone(pod);
    }
}
