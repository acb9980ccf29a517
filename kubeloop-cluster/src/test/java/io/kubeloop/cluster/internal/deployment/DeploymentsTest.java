package io.kubeloop.cluster.internal.deployment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** kube's deployment_util arithmetic, with the cases of its own tests and comments. */
class DeploymentsTest {

    private static Deployment rolling(int replicas, String surge, String unavailable) {
        return DeploymentHarness.deployment("d", replicas, "nginx")
                .editSpec()
                .withNewStrategy()
                .withType("RollingUpdate")
                .withNewRollingUpdate()
                .withMaxSurge(DeploymentHarness.intOrString(surge))
                .withMaxUnavailable(DeploymentHarness.intOrString(unavailable))
                .endRollingUpdate()
                .endStrategy()
                .endSpec()
                .build();
    }

    @Test
    void percentagesRoundSurgeUpAndUnavailabilityDown() {
        assertThat(Deployments.scaled(new IntOrString("25%"), 3, true)).isEqualTo(1);
        assertThat(Deployments.scaled(new IntOrString("25%"), 3, false)).isZero();
        assertThat(Deployments.scaled(new IntOrString("25%"), 10, true)).isEqualTo(3);
        assertThat(Deployments.scaled(new IntOrString("25%"), 10, false)).isEqualTo(2);
        assertThat(Deployments.scaled(new IntOrString(7), 10, false)).isEqualTo(7);
        assertThatThrownBy(() -> Deployments.scaled(new IntOrString("7"), 10, false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a percentage");
    }

    @Test
    void resolveFencepostsAsKubesComment() {
        // "1 desired, max unavailable 1%, surge 0% - should scale old(-1), then new(+1)": both resolve to 0 → 1.
        assertThat(Deployments.resolveFenceposts(rolling(1, "0%", "1%"))).containsExactly(0, 1);
        // "2 desired, max unavailable 25%, surge 1%": surge rounds up to 1, unavailable down to 0.
        assertThat(Deployments.resolveFenceposts(rolling(2, "1%", "25%"))).containsExactly(1, 0);
        assertThat(Deployments.maxUnavailable(rolling(2, "0", "5"))).isEqualTo(2); // capped at the replicas
        assertThat(Deployments.maxUnavailable(rolling(0, "1", "1"))).isZero();
    }

    @Test
    void newReplicaSetGrowsWithinTheSurge() {
        Deployment d = rolling(10, "3", "2");
        ReplicaSet old = rs("old", 10, null);
        ReplicaSet fresh = rs("new", 0, null);
        assertThat(Deployments.newRSNewReplicas(d, java.util.List.of(old, fresh), fresh))
                .isEqualTo(3);
        ReplicaSet eight = rs("old", 8, null);
        ReplicaSet three = rs("new", 3, null);
        assertThat(Deployments.newRSNewReplicas(d, java.util.List.of(eight, three), three))
                .isEqualTo(5);
    }

    @Test
    void proportionsFollowTheMaxReplicasAnnotation() {
        Deployment d = rolling(20, "3", "2");
        // 8 of 13 max-replicas, growing to 23: round(8·23/13) − 8 = 6, capped by what is left to add.
        assertThat(Deployments.proportion(rs("a", 8, "13"), d, 10, 0)).isEqualTo(6);
        assertThat(Deployments.proportion(rs("b", 5, "13"), d, 10, 6)).isEqualTo(4);
        assertThat(Deployments.proportion(rs("b", 5, "13"), d, 10, 10)).isZero();
        assertThat(Deployments.goRound(2.5)).isEqualTo(3);
        assertThat(Deployments.goRound(-2.5)).isEqualTo(-3);
    }

    @Test
    void aReusedReplicaSetKeepsItsOldRevisionsInTheHistory() {
        Deployment d = rolling(1, "1", "0");
        d.getMetadata().setAnnotations(Map.of("kubernetes.io/change-cause", "undo", Deployments.LAST_APPLIED, "{}"));
        ReplicaSet reused = rs("r", 1, null);
        reused.getMetadata().getAnnotations().put(Deployments.REVISION, "1");

        assertThat(Deployments.setNewReplicaSetAnnotations(d, reused, "3", true))
                .isTrue();
        assertThat(reused.getMetadata().getAnnotations())
                .containsEntry(Deployments.REVISION, "3")
                .containsEntry(Deployments.REVISION_HISTORY, "1")
                .containsEntry("kubernetes.io/change-cause", "undo")
                .doesNotContainKey(Deployments.LAST_APPLIED);
        assertThat(Deployments.setNewReplicaSetAnnotations(d, reused, "5", true))
                .isTrue();
        assertThat(reused.getMetadata().getAnnotations())
                .containsEntry(Deployments.REVISION, "5")
                .containsEntry(Deployments.REVISION_HISTORY, "1,3");
        assertThat(Deployments.setNewReplicaSetAnnotations(d, reused, "4", true))
                .isFalse(); // never goes back
    }

    private static ReplicaSet rs(String name, int replicas, String maxReplicas) {
        ReplicaSet rs = new ReplicaSetBuilder()
                .withNewMetadata()
                .withName(name)
                .withAnnotations(new java.util.HashMap<>())
                .endMetadata()
                .withNewSpec()
                .withReplicas(replicas)
                .endSpec()
                .build();
        if (maxReplicas != null) {
            rs.getMetadata().getAnnotations().put(Deployments.MAX_REPLICAS, maxReplicas);
        }
        return rs;
    }
}
