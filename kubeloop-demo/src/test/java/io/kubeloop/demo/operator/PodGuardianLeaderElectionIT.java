package io.kubeloop.demo.operator;

import static io.kubeloop.demo.operator.PodSets.active;
import static io.kubeloop.demo.operator.PodSets.podSet;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.resource.DeleteOptions;
import io.kubeloop.controller.Manager;
import io.kubeloop.demo.PodGuardian;
import io.kubeloop.demo.PodSet;
import io.kubeloop.testkit.KubeloopTest;
import io.kubeloop.testkit.TestNamespace;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two pod-guardians with leader election on one cluster: only the leader reconciles (creates pods); when it stops,
 * the standby takes the Lease and replaces the next pod that goes.
 */
@KubeloopTest(nodes = 2)
class PodGuardianLeaderElectionIT {

    @BeforeAll
    static void installTheCrd(KubernetesClient admin) {
        admin.resources(CustomResourceDefinition.class).create(PodGuardian.crd());
    }

    private static Manager guardian(KubernetesClient client, String ns, String identity, ListenerRecorder listener) {
        PodGuardian.Builder b = PodGuardian.builder(client)
                .namespace(ns)
                .leaderElection(ns)
                // 1.5 s is rounded up to 2 s: the Lease stores whole seconds
                .leaderElectionTimings(Duration.ofMillis(1500), Duration.ofSeconds(1), Duration.ofMillis(200))
                .listener(listener);
        if (identity != null) {
            b.identity(identity);
        }
        return b.build();
    }

    @Test
    void onlyTheLeaderReconcilesAndTheStandbyTakesOver(KubernetesClient client, @TestNamespace String ns) {
        ListenerRecorder a = new ListenerRecorder();
        ListenerRecorder b = new ListenerRecorder();
        Manager first = guardian(client, ns, "guardian-a", a);
        Manager second = guardian(client, ns, null, b);
        try {
            first.start();
            await().atMost(Duration.ofSeconds(10)).until(first::isLeader);
            second.start();
            Lease lease = client.resources(Lease.class).get(PodGuardian.LEASE).orElseThrow();
            assertThat(lease.getSpec().getHolderIdentity()).isEqualTo("guardian-a");
            assertThat(lease.getSpec().getLeaseDurationSeconds()).isEqualTo(2);

            client.resources(PodSet.class).create(podSet("web", 2, 0));
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> active(client, "web").stream()
                                    .filter(PodSets::running)
                                    .count()
                            == 2);
            assertThat(a.created()).hasSize(2);
            assertThat(second.isLeader()).isFalse();
            assertThat(b.created()).as("the standby creates nothing").isEmpty();

            first.close(); // releases the Lease
            await().atMost(Duration.ofSeconds(10)).until(second::isLeader);
            assertThat(client.resources(Lease.class)
                            .get(PodGuardian.LEASE)
                            .orElseThrow()
                            .getSpec()
                            .getHolderIdentity())
                    .as("the default identity: host name, '-', 5 random characters")
                    .matches(".+-[a-z0-9]{5}");
            String victim = active(client, "web").get(0).getMetadata().getName();
            client.resources(Pod.class).delete(victim, DeleteOptions.defaults().withGracePeriodSeconds(0L));

            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                assertThat(active(client, "web")).hasSize(2).allMatch(PodSets::running);
                assertThat(b.created()).hasSize(1);
            });
            assertThat(a.created()).hasSize(2);
        } finally {
            first.close();
            second.close();
        }
    }
}
