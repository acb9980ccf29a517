package io.kubeloop.cluster.internal.nodelifecycle;

import static io.kubeloop.cluster.internal.nodelifecycle.TestCluster.defaultTolerations;
import static io.kubeloop.cluster.internal.nodelifecycle.TestCluster.ready;
import static io.kubeloop.cluster.internal.nodelifecycle.TestCluster.taint;
import static io.kubeloop.cluster.internal.nodelifecycle.TestCluster.taintNames;
import static io.kubeloop.cluster.internal.nodelifecycle.TestCluster.toleration;
import static io.kubeloop.testsupport.TestThreads.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import io.kubeloop.cluster.ClusterTimings;
import io.kubeloop.controller.Manager;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The node lifecycle controller and the taint eviction controller together, over HTTP against the embedded API
 * server on a fake clock: kube's node failure timeline (§10.3 of the reference: Unknown 50 s (+ up to one 5 s monitor
 * period) after the last heartbeat the controller saw, the unreachable taint on the next pass, eviction 300 s later),
 * at speed 1 and 10, recovery, the per-zone rate, partial and full disruption, the startup grace period and the
 * condition taints.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NodeLifecycleControllerTest {

    private static final Duration S = Duration.ofSeconds(1);

    private final TestCluster cluster = new TestCluster();
    private Instant start;

    @AfterEach
    void reset() {
        cluster.reset();
    }

    @AfterAll
    void close() {
        cluster.close();
    }

    private void startControlPlane(ClusterTimings timings) {
        startControlPlane(timings, NodeLifecycleController.LARGE_CLUSTER_THRESHOLD);
    }

    private void startControlPlane(ClusterTimings timings, int largeClusterThreshold) {
        Manager manager = cluster.newManager(timings);
        cluster.nodeLifecycle = NodeLifecycleController.register(
                manager, timings, largeClusterThreshold, NodeLifecycleController.UNHEALTHY_ZONE_THRESHOLD);
        TaintEvictionController.register(manager, timings);
        start = cluster.clock.now();
        cluster.start();
    }

    /** The clock's instant at {@code clusterSeconds} of cluster time after the control plane started. */
    private Instant at(long clusterSeconds) {
        return start.plus(cluster.timings.wallSeconds(clusterSeconds));
    }

    private String ts(long clusterSeconds) {
        return NodeTaints.timestamp(at(clusterSeconds));
    }

    /** Advances to {@code clusterSeconds} after the start (a multiple of the 5 s monitor period). */
    private void advanceTo(long clusterSeconds) {
        cluster.advance(Duration.ofSeconds(clusterSeconds).minus(cluster.elapsed()));
        assertThat(cluster.elapsed()).isEqualTo(Duration.ofSeconds(clusterSeconds));
    }

    @ParameterizedTest(name = "speed {0}")
    @ValueSource(doubles = {1, 10})
    void aNodeWhoseKubeletStopsGoesUnknownIsTaintedAndItsPodsAreEvictedAfterTheirTolerations(double speed) {
        ClusterTimings timings = ClusterTimings.DEFAULTS.withSpeed(speed);
        Node node1 = cluster.addNode("node-1", "zone-a");
        cluster.addNode("node-2", "zone-b");
        cluster.addNode("node-3", "zone-c");
        Pod web1 = cluster.addPod("web-1", "node-1", defaultTolerations(300));
        // what admission cannot change: a pod that tolerates the unreachable taint for 0 s goes at once
        cluster.addPod("web-2", "node-1", toleration(NodeTaints.UNREACHABLE, 0L), toleration(NodeTaints.NOT_READY, 0L));
        cluster.addPod("web-3", "node-2", defaultTolerations(300));
        cluster.stopKubelet("node-1"); // its lease was renewed when it was created, never again
        startControlPlane(timings);

        // the first pass (0 s) is the last to see a renewal; Unknown on the first pass more than 50 s after it
        advanceTo(50);
        assertThat(ready(cluster.node("node-1")).getStatus()).isEqualTo("True");

        cluster.tick(); // 55 s
        Node n = cluster.node("node-1");
        NodeCondition ready = ready(n);
        assertThat(ready.getStatus()).isEqualTo("Unknown");
        assertThat(ready.getReason()).isEqualTo("NodeStatusUnknown");
        assertThat(ready.getMessage()).isEqualTo("Kubelet stopped posting node status.");
        assertThat(ready.getLastTransitionTime()).isEqualTo(ts(55));
        assertThat(n.getStatus().getConditions())
                .extracting(NodeCondition::getType, NodeCondition::getStatus)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple("Ready", "Unknown"),
                        org.assertj.core.groups.Tuple.tuple("MemoryPressure", "Unknown"),
                        org.assertj.core.groups.Tuple.tuple("DiskPressure", "Unknown"),
                        org.assertj.core.groups.Tuple.tuple("PIDPressure", "Unknown"));
        assertThat(ready(cluster.node("node-2")).getStatus()).isEqualTo("True");
        // the pods of the node are marked not ready; the others are not touched
        eventually()
                .until(() ->
                        podReady("web-1").equals("False") && podReady("web-2").equals("False"));
        assertThat(podReady("web-3")).isEqualTo("True");
        // the NoExecute taint comes with the next pass, which sees Unknown; the NoSchedule one follows the condition
        assertThat(taint(n, NodeTaints.UNREACHABLE, "NoExecute")).isNull();
        eventually()
                .until(() -> taintNames(cluster.node("node-1")).contains("node.kubernetes.io/unreachable:NoSchedule"));

        cluster.tick(); // 60 s
        Taint unreachable = taint(cluster.node("node-1"), NodeTaints.UNREACHABLE, "NoExecute");
        assertThat(unreachable).isNotNull();
        assertThat(unreachable.getTimeAdded()).isEqualTo(ts(60));
        eventually().until(() -> cluster.deletedAt("web-2") != null);
        assertThat(cluster.deletedAt("web-2")).isEqualTo(truncated(at(60)));
        assertThat(cluster.deletedAt("web-1")).isNull();

        advanceTo(355); // one period before 60 s + 300 s
        assertThat(cluster.deletedAt("web-1")).isNull();
        cluster.tick(); // 360 s
        eventually().until(() -> cluster.deletedAt("web-1") != null);
        assertThat(cluster.deletedAt("web-1")).isEqualTo(truncated(at(360)));
        Pod evicted = cluster.pod("web-1");
        assertThat(evicted.getStatus().getConditions())
                .filteredOn(c -> c.getType().equals("DisruptionTarget"))
                .singleElement()
                .satisfies(c -> {
                    assertThat(c.getStatus()).isEqualTo("True");
                    assertThat(c.getReason()).isEqualTo("DeletionByTaintManager");
                    assertThat(c.getMessage()).isEqualTo("Taint manager: deleting due to NoExecute taint");
                });
        assertThat(cluster.deletedAt("web-3")).isNull();
        // the whole timeline took a speed-th of the clock time
        assertThat(Duration.between(start, cluster.clock.now()))
                .isEqualTo(Duration.ofNanos((long) (Duration.ofSeconds(360).toNanos() / speed)));

        eventually().untilAsserted(() -> {
            assertThat(cluster.events(node1))
                    .contains(
                            "Normal RegisteredNode: Registered Node node-1 in Controller",
                            "Normal NodeNotReady: Node node-1 status is now: NodeNotReady");
            assertThat(cluster.events(web1))
                    .contains(
                            "Warning NodeNotReady: Node is not ready",
                            "Normal TaintManagerEviction: Marking for deletion Pod default/web-1");
        });
        assertThat(cluster.nodeLifecycle.zoneStates())
                .containsEntry("region-1:\\x00:zone-a", "FullDisruption")
                .containsEntry("region-1:\\x00:zone-b", "Normal");
    }

    private static Instant truncated(Instant instant) {
        return NodeTaints.parse(NodeTaints.timestamp(instant));
    }

    private String podReady(String name) {
        Pod pod = cluster.pod(name);
        return Pods.condition(pod, "Ready").getStatus();
    }

    @Test
    void aNodeThatComesBackIsUntaintedAndItsPendingEvictionsAreCancelled() {
        cluster.addNode("node-1", "zone-a");
        cluster.addNode("node-2", "zone-b");
        Pod web1 = cluster.addPod("web-1", "node-1", defaultTolerations(60));
        cluster.stopKubelet("node-1");
        startControlPlane(ClusterTimings.DEFAULTS);
        advanceTo(60);
        assertThat(taintNames(cluster.node("node-1"))).contains("node.kubernetes.io/unreachable:NoExecute");

        advanceTo(100);
        cluster.startKubelet("node-1");
        cluster.tick(); // 105 s: the pass sees Ready and removes the NoExecute taint; the NoSchedule one follows
        assertThat(taint(cluster.node("node-1"), NodeTaints.UNREACHABLE, "NoExecute"))
                .isNull();
        eventually().until(() -> taintNames(cluster.node("node-1")).isEmpty());
        eventually().untilAsserted(() -> assertThat(cluster.events(web1))
                .contains("Normal TaintManagerEviction: Cancelling deletion of Pod default/web-1"));

        advanceTo(130); // past 60 s + 60 s: the cancelled eviction does not happen
        assertThat(cluster.deletedAt("web-1")).isNull();
        assertThat(ready(cluster.node("node-1")).getStatus()).isEqualTo("True");
        assertThat(cluster.nodeLifecycle.zoneStates().values()).containsOnly("Normal");
    }

    @Test
    void aPodBoundToANodeThatIsNotReadyIsMarkedNotReadyAndGetsItsWholeToleration() {
        cluster.addNode("node-1", "zone-a");
        cluster.addNode("node-2", "zone-b");
        cluster.stopKubelet("node-1");
        startControlPlane(ClusterTimings.DEFAULTS);
        advanceTo(70); // Unknown at 55 s, tainted at 60 s
        cluster.addPod("late", "node-1", defaultTolerations(60));
        eventually().until(() -> podReady("late").equals("False"));
        // its 60 s count from its binding (70 s), not from the taint (60 s)
        advanceTo(125);
        assertThat(cluster.deletedAt("late")).isNull();
        advanceTo(130);
        eventually().until(() -> cluster.deletedAt("late") != null);
        assertThat(cluster.deletedAt("late")).isEqualTo(truncated(at(130)));
    }

    @Test
    void theNodesOfOneZoneAreTaintedAtTheEvictionRate() {
        for (int i = 1; i <= 6; i++) {
            cluster.addNode("a" + i, "zone-a");
        }
        cluster.addNode("b1", "zone-b");
        cluster.stopKubelet("a1");
        cluster.stopKubelet("a2");
        startControlPlane(ClusterTimings.DEFAULTS);
        advanceTo(60); // both Unknown at 55 s; 2 of 6 not ready: the zone stays Normal, 0.1 nodes/s, burst 1
        assertThat(tainted("a1", "a2")).hasSize(1);
        advanceTo(65);
        assertThat(tainted("a1", "a2")).hasSize(1);
        advanceTo(70);
        assertThat(tainted("a1", "a2")).hasSize(2);
        assertThat(tainted("a1", "a2").values()).containsExactlyInAnyOrder(ts(60), ts(70));
        assertThat(cluster.nodeLifecycle.zoneStates()).containsEntry("region-1:\\x00:zone-a", "Normal");
    }

    @Test
    void aPartiallyDisruptedLargeZoneIsTaintedAtTheSecondaryRate() {
        for (int i = 1; i <= 4; i++) {
            cluster.addNode("a" + i, "zone-a");
        }
        cluster.addNode("b1", "zone-b");
        Stream.of("a1", "a2", "a3").forEach(cluster::stopKubelet);
        startControlPlane(ClusterTimings.DEFAULTS.withSpeed(10), 3); // zones of more than 3 nodes count as large
        advanceTo(55); // 3 of 4 not ready: PartialDisruption, 0.01 nodes/s (the unused token is kept)
        assertThat(cluster.nodeLifecycle.zoneStates()).containsEntry("region-1:\\x00:zone-a", "PartialDisruption");
        advanceTo(60);
        assertThat(tainted("a1", "a2", "a3")).hasSize(1);
        advanceTo(155);
        assertThat(tainted("a1", "a2", "a3")).hasSize(1);
        advanceTo(160);
        assertThat(tainted("a1", "a2", "a3").values()).containsExactlyInAnyOrder(ts(60), ts(160));
    }

    @Test
    void aPartiallyDisruptedSmallZoneIsNotTainted() {
        for (int i = 1; i <= 4; i++) {
            cluster.addNode("a" + i, "zone-a");
        }
        cluster.addNode("b1", "zone-b");
        Stream.of("a1", "a2", "a3").forEach(cluster::stopKubelet);
        startControlPlane(ClusterTimings.DEFAULTS);
        advanceTo(90);
        assertThat(cluster.nodeLifecycle.zoneStates()).containsEntry("region-1:\\x00:zone-a", "PartialDisruption");
        assertThat(tainted("a1", "a2", "a3")).isEmpty();
        // the condition taints do not depend on the zone
        assertThat(taintNames(cluster.node("a1"))).containsExactly("node.kubernetes.io/unreachable:NoSchedule");
    }

    @Test
    void whenEveryZoneIsFullyDisruptedNothingIsTaintedUntilANodeComesBack() {
        cluster.addNode("node-1", "zone-a");
        cluster.addNode("node-2", "zone-b");
        cluster.addPod("web-1", "node-1", toleration(NodeTaints.UNREACHABLE, 0L));
        cluster.stopKubelet("node-1");
        cluster.stopKubelet("node-2");
        startControlPlane(ClusterTimings.DEFAULTS);
        advanceTo(55);
        assertThat(cluster.nodeLifecycle.zoneStates().values()).containsOnly("FullDisruption");
        advanceTo(100);
        assertThat(tainted("node-1", "node-2")).isEmpty();
        assertThat(cluster.deletedAt("web-1")).isNull();

        cluster.startKubelet("node-2");
        cluster.tick(); // 105 s: some nodes are Ready: the zones get their rates back, the new bucket starts empty
        assertThat(cluster.nodeLifecycle.zoneStates())
                .containsEntry("region-1:\\x00:zone-a", "FullDisruption")
                .containsEntry("region-1:\\x00:zone-b", "Normal");
        assertThat(tainted("node-1")).isEmpty();
        advanceTo(115);
        assertThat(tainted("node-1", "node-2")).containsExactly(Map.entry("node-1", ts(115)));
        eventually().until(() -> cluster.deletedAt("web-1") != null);
        assertThat(cluster.deletedAt("web-1")).isEqualTo(truncated(at(115)));
    }

    @Test
    void aNodeThatNeverPostedStatusIsUnknownAfterTheStartupGracePeriod() {
        cluster.addNode("node-1", "zone-a");
        Node bare = cluster.addBareNode("node-9", "zone-b");
        startControlPlane(ClusterTimings.DEFAULTS);
        advanceTo(60);
        assertThat(ready(cluster.node("node-9"))).isNull();
        advanceTo(65);
        Node n = cluster.node("node-9");
        assertThat(n.getStatus().getConditions()).hasSize(4).allSatisfy(c -> {
            assertThat(c.getStatus()).isEqualTo("Unknown");
            assertThat(c.getReason()).isEqualTo("NodeStatusNeverUpdated");
            assertThat(c.getMessage()).isEqualTo("Kubelet never posted node status.");
            assertThat(c.getLastHeartbeatTime()).isEqualTo(bare.getMetadata().getCreationTimestamp());
            assertThat(c.getLastTransitionTime()).isEqualTo(ts(65));
        });
        advanceTo(75); // queued since the first pass (kube judges a node that never posted as Unknown), tainted
        // once its Ready condition exists, when the zone's rate allows
        assertThat(tainted("node-9")).containsOnlyKeys("node-9");
        assertThat(ready(cluster.node("node-1")).getStatus()).isEqualTo("True");
    }

    @Test
    void conditionTaintsFollowTheConditionsAndCordon() {
        cluster.addNode("node-1", "zone-a");
        cluster.addNode("node-2", "zone-b");
        startControlPlane(ClusterTimings.DEFAULTS);
        assertThat(taintNames(cluster.node("node-1"))).isEmpty();

        setCondition("node-1", "MemoryPressure", "True");
        eventually().until(() -> taintNames(cluster.node("node-1"))
                .equals(List.of("node.kubernetes.io/memory-pressure:NoSchedule")));
        cluster.nodes().edit("node-1", n -> {
            n.getSpec().setUnschedulable(true); // kubectl cordon
            return n;
        });
        eventually().until(() -> taintNames(cluster.node("node-1"))
                .equals(List.of(
                        "node.kubernetes.io/memory-pressure:NoSchedule",
                        "node.kubernetes.io/unschedulable:NoSchedule")));
        assertThat(taint(cluster.node("node-1"), NodeTaints.UNSCHEDULABLE, "NoSchedule")
                        .getTimeAdded())
                .isEqualTo(NodeTaints.timestamp(cluster.clock.now()));

        // the kubelet reports NotReady: not-ready NoSchedule at once, NoExecute on the next pass
        setCondition("node-1", "Ready", "False");
        eventually()
                .until(() -> taintNames(cluster.node("node-1")).contains("node.kubernetes.io/not-ready:NoSchedule"));
        cluster.tick();
        assertThat(taintNames(cluster.node("node-1"))).contains("node.kubernetes.io/not-ready:NoExecute");

        cluster.nodes().edit("node-1", n -> {
            n.getSpec().setUnschedulable(false); // kubectl uncordon
            return n;
        });
        setCondition("node-1", "MemoryPressure", "False");
        setCondition("node-1", "Ready", "True");
        cluster.tick();
        eventually().until(() -> taintNames(cluster.node("node-1")).isEmpty());
    }

    /** The kubelet posts one condition (with a new heartbeat). */
    private void setCondition(String node, String type, String status) {
        for (int attempt = 1; ; attempt++) {
            try {
                trySetCondition(node, type, status);
                return;
            } catch (io.kubeloop.client.errors.ConflictException e) {
                if (attempt == 5) {
                    throw e; // the controllers' taint patches raced us more than a few times
                }
            }
        }
    }

    private void trySetCondition(String node, String type, String status) {
        String now = NodeTaints.timestamp(cluster.clock.now());
        Node n = cluster.node(node);
        for (NodeCondition c : n.getStatus().getConditions()) {
            if (c.getType().equals(type) && !c.getStatus().equals(status)) {
                c.setStatus(status);
                c.setLastTransitionTime(now);
            }
            c.setLastHeartbeatTime(now);
        }
        cluster.nodes().updateStatus(n);
        cluster.awaitCaches();
    }

    /** The given nodes that have the unreachable NoExecute taint, with its timeAdded. */
    private Map<String, String> tainted(String... nodes) {
        Map<String, String> out = new java.util.TreeMap<>();
        for (String name : nodes) {
            Taint t = taint(cluster.node(name), NodeTaints.UNREACHABLE, "NoExecute");
            if (t != null) {
                out.put(name, t.getTimeAdded());
            }
        }
        return out;
    }
}
