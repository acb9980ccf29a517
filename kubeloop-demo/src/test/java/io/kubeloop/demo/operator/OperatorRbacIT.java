package io.kubeloop.demo.operator;

import static io.kubeloop.demo.operator.PodSets.active;
import static io.kubeloop.demo.operator.PodSets.events;
import static io.kubeloop.demo.operator.PodSets.podSet;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.errors.ForbiddenException;
import io.kubeloop.controller.Manager;
import io.kubeloop.demo.PodGuardian;
import io.kubeloop.demo.PodSet;
import io.kubeloop.testkit.KubeloopTest;
import io.kubeloop.testkit.TestNamespace;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The operator runs with exactly the rules its manager derives ({@code manager.rbac()}, what {@code deploy/} ships),
 * on a cluster with RBAC on: the rules hold what it needs — PodSets and their status, pod writes, Deployment reads,
 * events, the Lease — and no write to Deployments; bound to its user, the operator keeps a PodSet and audits a
 * Deployment.
 */
@KubeloopTest(nodes = 2, tls = true, rbac = true)
class OperatorRbacIT {

    private static final YAMLMapper YAML = YAMLMapper.builder().build();

    @BeforeAll
    static void installTheCrd(KubernetesClient admin) {
        admin.resources(CustomResourceDefinition.class).create(PodGuardian.crd());
    }

    @Test
    void theDerivedRulesAreWhatTheOperatorNeedsAndEnough(
            EmbeddedApiServer server, KubernetesClient admin, @TestNamespace String ns, @TempDir Path dir) {
        ClientConfig config = ClientConfig.fromKubeconfig(
                        server.writeKubeconfigFor(dir.resolve("kubeconfig"), "pod-guardian"))
                .withNamespace(ns);
        try (KubernetesClient user = KubernetesClient.create(config);
                Manager manager = PodGuardian.builder(user)
                        .namespace(ns)
                        .leaderElection(ns)
                        .auditThreshold(Duration.ofSeconds(1))
                        .build()) {
            String yaml = manager.rbac("pod-guardian");
            assertThat(yaml)
                    .doesNotContain("kind: ClusterRole")
                    .contains("- apiGroups: [\"demo.kubeloop.io\"]\n  resources: [\"podsets\"]\n"
                            + "  verbs: [\"get\", \"list\", \"watch\", \"update\", \"patch\"]")
                    .contains("resources: [\"podsets/status\"]\n  verbs: [\"update\", \"patch\"]")
                    .contains("- apiGroups: [\"\"]\n  resources: [\"pods\"]\n  verbs: [\"get\", \"list\", \"watch\", "
                            + "\"create\", \"update\", \"patch\", \"delete\"]")
                    .contains("- apiGroups: [\"apps\"]\n  resources: [\"deployments\"]\n"
                            + "  verbs: [\"get\", \"list\", \"watch\"]\n")
                    .contains("- apiGroups: [\"\"]\n  resources: [\"events\"]\n  verbs: [\"create\", \"patch\"]")
                    .contains("- apiGroups: [\"coordination.k8s.io\"]\n  resources: [\"leases\"]\n"
                            + "  verbs: [\"get\", \"create\", \"update\"]")
                    .doesNotContain("deployments/status")
                    .doesNotContain("replicasets");

            Role role = YAML.readValue(yaml.substring(yaml.indexOf("apiVersion:")), Role.class);
            admin.resources(Role.class).create(role);
            admin.resources(RoleBinding.class)
                    .create(new RoleBindingBuilder()
                            .withNewMetadata()
                            .withName("pod-guardian")
                            .endMetadata()
                            .withNewRoleRef("rbac.authorization.k8s.io", "Role", "pod-guardian")
                            .addNewSubject()
                            .withApiGroup("rbac.authorization.k8s.io")
                            .withKind("User")
                            .withName("pod-guardian")
                            .endSubject()
                            .build());
            manager.start();
            await().atMost(Duration.ofSeconds(10)).until(manager::isLeader);

            admin.resources(PodSet.class).create(podSet("web", 2, 0));
            admin.resources(Deployment.class).create(ReplicaAuditIT.deployment("api", 1, true));

            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                assertThat(active(admin, "web")).hasSize(2).allMatch(PodSets::running);
                PodSet.Status status =
                        admin.resources(PodSet.class).get("web").orElseThrow().getStatus();
                assertThat(status).isNotNull();
                assertThat(status.getReadyReplicas()).isEqualTo(2);
            });
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(events(admin, "Deployment", "api"))
                    .anyMatch(e -> e.startsWith("Warning ReplicasNotReady:")));
            assertThat(manager.readinessProblems()).isNull();
            assertThatThrownBy(() -> user.resources(Deployment.class).edit("api", d -> {
                        d.getSpec().setReplicas(3);
                        return d;
                    }))
                    .as("replica-audit cannot write Deployments")
                    .isInstanceOf(ForbiddenException.class);
        }
    }
}
