package io.kubeloop.cluster.internal.nodelifecycle;

import static io.kubeloop.testsupport.TestThreads.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.kubeloop.cluster.ClusterTimings;
import io.kubeloop.controller.Manager;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The pod garbage collector: orphaned pods after the quarantine, terminated pods beyond the threshold. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PodGarbageCollectorTest {

    private static final String HOLD = "test.kubeloop.io/hold";

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

    private void startCollector(int threshold) {
        Manager manager = cluster.newManager(ClusterTimings.DEFAULTS);
        cluster.podGc = PodGarbageCollector.register(manager, ClusterTimings.DEFAULTS, threshold);
        start = cluster.clock.now();
        cluster.start();
    }

    /** Steps 20 s (one collection period) and waits for the pass. */
    private void nextPass() {
        long before = cluster.podGc.completedPasses();
        cluster.advance(Duration.ofSeconds(20));
        eventually().until(() -> cluster.podGc.completedPasses() > before);
        cluster.awaitCaches();
    }

    @Test
    void anOrphanedPodIsForceDeletedAfterTheQuarantine() {
        cluster.addNode("node-1", "zone-a");
        cluster.addPod("kept", "node-1");
        Pod orphan = cluster.addPod("orphan", "ghost");
        // a finalizer keeps the object visible after its deletion, to read what the collector wrote
        cluster.pods().edit("orphan", p -> {
            p.getMetadata().setFinalizers(List.of(HOLD));
            return p;
        });
        startCollector(PodGarbageCollector.DEFAULT_TERMINATED_POD_THRESHOLD);
        nextPass(); // 20 s: the node has been missing for 20 s
        assertThat(cluster.pod("orphan").getMetadata().getDeletionTimestamp()).isNull();
        nextPass(); // 40 s: quarantine over, the API server confirms the node is gone
        eventually().until(() -> cluster.pod("orphan").getMetadata().getDeletionTimestamp() != null);
        Pod deleted = cluster.pod("orphan");
        assertThat(deleted.getMetadata().getUid())
                .isEqualTo(orphan.getMetadata().getUid());
        assertThat(deleted.getMetadata().getDeletionGracePeriodSeconds()).isZero();
        assertThat(deleted.getMetadata().getDeletionTimestamp()).isEqualTo(NodeTaints.timestamp(start.plusSeconds(40)));
        assertThat(deleted.getStatus().getPhase()).isEqualTo("Failed");
        assertThat(Pods.condition(deleted, "DisruptionTarget")).satisfies(c -> {
            assertThat(c.getStatus()).isEqualTo("True");
            assertThat(c.getReason()).isEqualTo("DeletionByPodGC");
            assertThat(c.getMessage()).isEqualTo("PodGC: node no longer exists");
        });
        assertThat(cluster.pod("kept").getMetadata().getDeletionTimestamp()).isNull();
    }

    @Test
    void terminatedPodsBeyondTheThresholdAreDeletedEvictedFirstThenTheOldest() {
        cluster.addNode("node-1", "zone-a");
        for (String name : List.of("t1", "t2", "t3", "t4")) {
            terminated(name, "Succeeded", null);
            cluster.clock.step(Duration.ofSeconds(1));
        }
        terminated("evicted", "Failed", "Evicted");
        cluster.addPod("running", "node-1");
        startCollector(3);
        eventually().until(() -> names().equals(List.of("running", "t2", "t3", "t4")));
        nextPass();
        assertThat(names()).containsExactly("running", "t2", "t3", "t4");
    }

    private void terminated(String name, String phase, String reason) {
        Pod pod = cluster.addPod(name, "node-1");
        pod.getStatus().setPhase(phase);
        pod.getStatus().setReason(reason);
        pod.getStatus().getConditions().forEach(c -> {
            if (c.getType().equals("Ready") || c.getType().equals("ContainersReady")) {
                c.setStatus("False");
            }
        });
        cluster.pods().updateStatus(pod);
    }

    private List<String> names() {
        return cluster.pods().list().items().stream()
                .map(p -> p.getMetadata().getName())
                .sorted()
                .toList();
    }
}
