package io.kubeloop.cluster.internal.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.kubeloop.clock.Clock;
import io.kubeloop.cluster.ClusterTimings;
import io.kubeloop.testsupport.Kubectl;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What kubectl does with Deployments works against the controller: {@code rollout status} (its text and exit),
 * {@code set image}, {@code rollout history} and {@code undo} (client-side, from the ReplicaSets' revisions),
 * {@code rollout restart}. ({@code scale} and {@code rollout pause|resume} are plain patches of the spec: the
 * controller's side of them is in {@link DeploymentControllerIT}.) The stand-in ReplicaSet controller makes every
 * pod available at once; the clock is the system's (nothing here waits for cluster time).
 */
class DeploymentKubectlIT {

    @TempDir
    Path dir;

    private DeploymentHarness h;
    private Kubectl kubectl;

    @BeforeEach
    void start() throws Exception {
        Kubectl.assumeInstalled();
        h = new DeploymentHarness(Clock.system(), ClusterTimings.DEFAULTS);
        h.server.writeKubeconfig(dir.resolve("kubeconfig"));
        kubectl = new Kubectl(dir);
    }

    @AfterEach
    void stop() {
        if (h != null) {
            h.close();
        }
    }

    private String rolledOut() throws Exception {
        Kubectl.Result r = kubectl.run("rollout", "status", "deployment/web", "--timeout=30s");
        assertThat(r.exit()).as("rollout status: %s %s", r.out(), r.err()).isZero();
        assertThat(r.out()).endsWith("deployment \"web\" successfully rolled out\n");
        return r.out();
    }

    private ReplicaSet withRevision(long revision) {
        return h.eventually(
                        () -> h.replicaSetsOf("web").stream()
                                .filter(rs -> Deployments.revision(rs) == revision)
                                .toList(),
                        l -> l.size() == 1)
                .get(0);
    }

    @Test
    void rolloutStatusSetImageHistoryUndoRestart() throws Exception {
        kubectl.run("create", "deployment", "web", "--image=nginx:1.25", "--replicas=3")
                .ok();
        rolledOut();

        kubectl.run("set", "image", "deployment/web", "nginx=nginx:1.27").ok();
        h.eventually(() -> h.sizes("web"), s -> s.equals(List.of(0, 3)));
        assertThat(withRevision(2)
                        .getSpec()
                        .getTemplate()
                        .getSpec()
                        .getContainers()
                        .get(0)
                        .getImage())
                .isEqualTo("nginx:1.27");
        String history =
                kubectl.run("rollout", "history", "deployment/web").ok().out();
        assertThat(history).contains("REVISION").containsPattern("(?m)^1 ").containsPattern("(?m)^2 ");

        assertThat(kubectl.run("rollout", "undo", "deployment/web").ok().out())
                .contains("deployment.apps/web rolled back");
        ReplicaSet reused = withRevision(3);
        assertThat(reused.getSpec()
                        .getTemplate()
                        .getSpec()
                        .getContainers()
                        .get(0)
                        .getImage())
                .isEqualTo("nginx:1.25");
        assertThat(reused.getMetadata().getAnnotations())
                .containsEntry("deployment.kubernetes.io/revision-history", "1");
        rolledOut();
        assertThat(h.sizes("web")).containsExactly(0, 3);
        assertThat(kubectl.run("rollout", "history", "deployment/web").ok().out())
                .containsPattern("(?m)^2 ")
                .containsPattern("(?m)^3 ")
                .doesNotContainPattern("(?m)^1 ");

        assertThat(kubectl.run("rollout", "restart", "deployment/web").ok().out())
                .contains("deployment.apps/web restarted");
        assertThat(withRevision(4).getSpec().getTemplate().getMetadata().getAnnotations())
                .containsKey("kubectl.kubernetes.io/restartedAt");
        h.eventually(() -> h.sizes("web"), s -> s.equals(List.of(0, 0, 3)));

        assertThat(h.events("web", "ScalingReplicaSet"))
                .anyMatch(m -> m.matches("Scaled up replica set web-[4-9bcdf]+ from 0 to \\d"));
    }
}
