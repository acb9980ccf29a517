package io.kubeloop.cluster.internal.nodelifecycle;

import static io.kubeloop.cluster.internal.nodelifecycle.TestCluster.toleration;
import static io.kubeloop.testsupport.TestThreads.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.kubeloop.cluster.ClusterTimings;
import io.kubeloop.controller.Manager;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The taint eviction controller alone, with NoExecute taints the test puts on nodes itself: kube's rules for which
 * pods go at once, which after their {@code tolerationSeconds}, which never, and the cancellation when the taint goes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TaintEvictionControllerTest {

    private static final String MAINTENANCE = "example.com/maintenance";

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

    private void startController() {
        Manager manager = cluster.newManager(ClusterTimings.DEFAULTS);
        TaintEvictionController.register(manager, ClusterTimings.DEFAULTS);
        start = cluster.clock.now();
        cluster.start();
    }

    private void taintNode(String node, Instant timeAdded) {
        cluster.nodes().edit(node, n -> {
            Taint t = NodeTaints.taint(MAINTENANCE, "NoExecute");
            t.setValue("true");
            t.setTimeAdded(NodeTaints.timestamp(timeAdded));
            var taints = new ArrayList<>(NodeTaints.taints(n));
            taints.add(t);
            n.getSpec().setTaints(taints);
            return n;
        });
    }

    private static io.fabric8.kubernetes.api.model.Toleration tolerateMaintenance(Long seconds) {
        return new TolerationBuilder()
                .withKey(MAINTENANCE)
                .withOperator("Equal")
                .withValue("true")
                .withEffect("NoExecute")
                .withTolerationSeconds(seconds)
                .build();
    }

    private Instant at(long seconds) {
        return start.plusSeconds(seconds);
    }

    private static Instant truncated(Instant instant) {
        return NodeTaints.parse(NodeTaints.timestamp(instant));
    }

    @Test
    void podsThatDoNotTolerateGoAtOnceTheOthersAfterTheirTolerationSecondsOrNever() {
        cluster.addNode("node-1", "zone-a");
        cluster.addNode("node-2", "zone-a");
        cluster.addPod("none", "node-1");
        cluster.addPod(
                "other-value",
                "node-1",
                new TolerationBuilder()
                        .withKey(MAINTENANCE)
                        .withOperator("Equal")
                        .withValue("false")
                        .withEffect("NoExecute")
                        .build());
        Pod sixty = cluster.addPod("sixty", "node-1", tolerateMaintenance(60L), tolerateMaintenance(600L));
        cluster.addPod("forever", "node-1", tolerateMaintenance(null));
        cluster.addPod(
                "exists",
                "node-1",
                new TolerationBuilder().withOperator("Exists").build());
        cluster.addPod("elsewhere", "node-2");
        startController();

        taintNode("node-1", cluster.clock.now());
        eventually().until(() -> cluster.deletedAt("none") != null && cluster.deletedAt("other-value") != null);
        assertThat(cluster.deletedAt("none")).isEqualTo(truncated(at(0)));
        cluster.advance(Duration.ofSeconds(55));
        assertThat(cluster.deletedAt("sixty")).isNull();
        cluster.advance(Duration.ofSeconds(5));
        eventually().until(() -> cluster.deletedAt("sixty") != null);
        assertThat(cluster.deletedAt("sixty")).isEqualTo(truncated(at(60)));
        assertThat(Pods.condition(cluster.pod("sixty"), "DisruptionTarget").getReason())
                .isEqualTo("DeletionByTaintManager");
        cluster.advance(Duration.ofSeconds(60));
        assertThat(cluster.deletedAt("forever")).isNull();
        assertThat(cluster.deletedAt("exists")).isNull();
        assertThat(cluster.deletedAt("elsewhere")).isNull();
        eventually().untilAsserted(() -> assertThat(cluster.events(sixty))
                .containsExactly("Normal TaintManagerEviction: Marking for deletion Pod default/sixty"));
    }

    @Test
    void aTaintRemovedInTimeCancelsTheEviction() {
        cluster.addNode("node-1", "zone-a");
        Pod sixty = cluster.addPod("sixty", "node-1", tolerateMaintenance(60L));
        startController();
        taintNode("node-1", cluster.clock.now());
        cluster.advance(Duration.ofSeconds(30));
        cluster.nodes().edit("node-1", n -> {
            n.getSpec().setTaints(null);
            return n;
        });
        eventually().untilAsserted(() -> assertThat(cluster.events(sixty))
                .containsExactly("Normal TaintManagerEviction: Cancelling deletion of Pod default/sixty"));
        cluster.advance(Duration.ofSeconds(35));
        assertThat(cluster.deletedAt("sixty")).isNull();
    }

    @Test
    void theCountStartsWhenTheTaintWasAddedEvenBeforeTheControllerStarted() {
        cluster.addNode("node-1", "zone-a");
        cluster.addPod("sixty", "node-1", tolerateMaintenance(60L), toleration(NodeTaints.UNREACHABLE, 300L));
        taintNode("node-1", cluster.clock.now());
        cluster.clock.step(Duration.ofSeconds(40)); // the control plane restarts 40 s after the taint
        startController();
        cluster.advance(Duration.ofSeconds(15));
        assertThat(cluster.deletedAt("sixty")).isNull();
        cluster.advance(Duration.ofSeconds(5));
        eventually().until(() -> cluster.deletedAt("sixty") != null);
        assertThat(cluster.deletedAt("sixty")).isEqualTo(truncated(at(20)));
    }
}
