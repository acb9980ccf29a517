package io.kubeloop.controller;

import static io.kubeloop.testsupport.TestThreads.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.informer.SharedIndexInformer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Seed 001 §8.1: a manager whose user lacks an RBAC rule must say so within seconds, not hang. Runs against the
 * embedded API server with TLS (each client its own user) and RBAC on; the manager's user is {@code ctrl}, bound to
 * exactly what {@link Manager#rbac(String)} generates.
 */
class ManagerRbacIT {

    private static final YAMLMapper YAML = YAMLMapper.builder().build();

    @TempDir
    static Path dir;

    private static EmbeddedApiServer server;
    private static KubernetesClient admin;
    private static KubernetesClient ctrl;

    @BeforeAll
    static void startServer() {
        server = EmbeddedApiServer.builder().tls().rbac(true).start();
        admin = KubernetesClient.create(ClientConfig.fromKubeconfig(server.writeKubeconfig(dir.resolve("admin.yaml"))));
        ctrl = KubernetesClient.create(
                ClientConfig.fromKubeconfig(server.writeKubeconfigFor(dir.resolve("ctrl.yaml"), "ctrl")));
        for (String ns : new String[] {"granted", "partial", "timeout", "reconciled"}) {
            admin.resources(Namespace.class)
                    .create(new NamespaceBuilder()
                            .withNewMetadata()
                            .withName(ns)
                            .endMetadata()
                            .build());
        }
    }

    @AfterAll
    static void stopServer() {
        ctrl.close();
        admin.close();
        server.close();
    }

    /** Creates every Role and ClusterRole of {@code yaml} and binds each to the user {@code ctrl}. */
    private static void applyAndBind(String yaml) {
        for (String doc : yaml.split("(?m)^---$")) {
            JsonNode node = YAML.readTree(doc);
            String kind = node.path("kind").asString();
            if (kind.equals("Role")) {
                Role role = YAML.treeToValue(node, Role.class);
                String ns = role.getMetadata().getNamespace();
                admin.resources(Role.class).inNamespace(ns).create(role);
                admin.resources(RoleBinding.class)
                        .inNamespace(ns)
                        .create(new RoleBindingBuilder()
                                .withNewMetadata()
                                .withName(role.getMetadata().getName())
                                .withNamespace(ns)
                                .endMetadata()
                                .withNewRoleRef(
                                        "rbac.authorization.k8s.io",
                                        "Role",
                                        role.getMetadata().getName())
                                .addNewSubject()
                                .withApiGroup("rbac.authorization.k8s.io")
                                .withKind("User")
                                .withName("ctrl")
                                .endSubject()
                                .build());
            } else if (kind.equals("ClusterRole")) {
                ClusterRole role = YAML.treeToValue(node, ClusterRole.class);
                admin.resources(ClusterRole.class).create(role);
                admin.resources(ClusterRoleBinding.class)
                        .create(new ClusterRoleBindingBuilder()
                                .withNewMetadata()
                                .withName(role.getMetadata().getName())
                                .endMetadata()
                                .withNewRoleRef(
                                        "rbac.authorization.k8s.io",
                                        "ClusterRole",
                                        role.getMetadata().getName())
                                .addNewSubject()
                                .withApiGroup("rbac.authorization.k8s.io")
                                .withKind("User")
                                .withName("ctrl")
                                .endSubject()
                                .build());
            } else {
                throw new AssertionError("unexpected document in the generated RBAC: " + doc);
            }
        }
    }

    private static Manager.Builder manager(String namespace) {
        return Manager.builder(ctrl).namespace(namespace).metricsPort(-1).healthProbePort(0);
    }

    @Test
    void theGeneratedRulesAreEnoughToSync() {
        try (Manager manager = manager("granted").build()) {
            manager.informerFactory().informerFor(ConfigMap.class);
            manager.informerFactory().informerFor(Secret.class);
            manager.informerFactory().informerFor(Namespace.class); // cluster-scoped: a ClusterRole
            String yaml = manager.rbac("granted-ctrl");
            assertThat(yaml)
                    .contains("kind: ClusterRole\n", "kind: Role\n", "namespace: \"granted\"")
                    .contains("resources: [\"configmaps\"]\n  verbs: [\"get\", \"list\", \"watch\"]")
                    .contains("resources: [\"secrets\"]", "resources: [\"namespaces\"]");
            applyAndBind(yaml);
            manager.start();
            eventually()
                    .untilAsserted(() -> assertThat(manager.readinessProblems()).isNull());
        }
    }

    @Test
    void aReadOnlyControllerIsGrantedOnlyReadsOnItsType() {
        try (Manager manager = manager("readonly").build()) {
            manager.newControllerFor(Deployment.class).readOnly().complete(request -> Result.done());
            manager.newControllerFor(ConfigMap.class).complete(request -> Result.done());
            String yaml = manager.rbac("readonly-ctrl");
            assertThat(yaml)
                    .contains("resources: [\"deployments\"]\n  verbs: [\"get\", \"list\", \"watch\"]\n")
                    .doesNotContain("deployments/status")
                    .contains(
                            "resources: [\"configmaps\"]\n  verbs: [\"get\", \"list\", \"watch\", \"update\", \"patch\"]");
        }
    }

    @Test
    void aControllerWithExactlyTheGeneratedRulesReconciles() {
        try (Manager manager = manager("reconciled").build()) {
            manager.newControllerFor(Deployment.class).owns(ConfigMap.class).complete(request -> {
                // writes an owned object: needs the create verb the rules grant for owned types
                if (ctrl.resources(ConfigMap.class)
                        .inNamespace(request.namespace())
                        .get(request.name())
                        .isEmpty()) {
                    ctrl.resources(ConfigMap.class)
                            .inNamespace(request.namespace())
                            .create(new ConfigMapBuilder()
                                    .withNewMetadata()
                                    .withName(request.name())
                                    .endMetadata()
                                    .addToData("reconciled", "yes")
                                    .build());
                }
                return Result.done();
            });
            String yaml = manager.rbac("reconciled-ctrl");
            assertThat(yaml)
                    .contains("- apiGroups: [\"apps\"]\n  resources: [\"deployments\"]\n"
                            + "  verbs: [\"get\", \"list\", \"watch\", \"update\", \"patch\"]")
                    .contains("resources: [\"deployments/status\"]\n  verbs: [\"update\", \"patch\"]")
                    .contains("resources: [\"configmaps\"]\n  verbs: [\"get\", \"list\", \"watch\", "
                            + "\"create\", \"update\", \"patch\", \"delete\"]")
                    .doesNotContain("kind: ClusterRole");
            applyAndBind(yaml);
            manager.start();
            eventually()
                    .untilAsserted(() -> assertThat(manager.readinessProblems()).isNull());
            admin.resources(Deployment.class)
                    .inNamespace("reconciled")
                    .create(new DeploymentBuilder()
                            .withNewMetadata()
                            .withName("web")
                            .endMetadata()
                            .withNewSpec()
                            .withNewSelector()
                            .addToMatchLabels("app", "web")
                            .endSelector()
                            .withNewTemplate()
                            .withNewMetadata()
                            .addToLabels("app", "web")
                            .endMetadata()
                            .withNewSpec()
                            .addNewContainer()
                            .withName("web")
                            .withImage("nginx")
                            .endContainer()
                            .endSpec()
                            .endTemplate()
                            .endSpec()
                            .build());
            eventually().untilAsserted(() -> assertThat(admin.resources(ConfigMap.class)
                            .inNamespace("reconciled")
                            .get("web"))
                    .isPresent());
        }
    }

    @Test
    void aMissingRuleIsLoggedOnceWithinSecondsAndKeepsTheManagerUnready() throws Exception {
        try (Manager onlyConfigMaps = manager("partial").build()) {
            onlyConfigMaps.informerFactory().informerFor(ConfigMap.class);
            applyAndBind(onlyConfigMaps.rbac("partial-ctrl"));
        }
        Manager manager =
                manager("partial").cacheSyncTimeout(Duration.ofMinutes(1)).build();
        try (Probes.CapturedLog log = new Probes.CapturedLog()) {
            manager.informerFactory().informerFor(ConfigMap.class);
            SharedIndexInformer<Secret> secrets = manager.informerFactory().informerFor(Secret.class);
            long began = System.nanoTime();
            CompletableFuture<Void> starting = CompletableFuture.runAsync(manager::start);
            String rule = "{apiGroups: [\"\"], resources: [\"secrets\"], verbs: [\"get\", \"list\", \"watch\"]}";
            eventually().atMost(Duration.ofSeconds(5)).until(() -> !log.lines("RBAC forbids list on secrets")
                    .isEmpty());
            Duration toLog = Duration.ofNanos(System.nanoTime() - began);
            assertThat(log.lines("RBAC forbids list on secrets").getFirst())
                    .contains("ERROR", "in namespace \"partial\"", rule, "Role in namespace \"partial\"");

            eventually().untilAsserted(() -> {
                Probes.Answer ready = Probes.get(manager.healthProbePort(), "/readyz");
                assertThat(ready.status()).isEqualTo(500);
                assertThat(ready.body())
                        .contains("[-]informers failed", "secrets in partial: not synced")
                        .contains("[-]rbac failed: RBAC forbids list on secrets in namespace \"partial\"", rule);
            });
            // retries go on, the log line does not repeat
            eventually()
                    .atMost(Duration.ofSeconds(15))
                    .until(() -> secrets.health().consecutiveFailures() >= 3);
            assertThat(log.lines("RBAC forbids")).hasSize(1);
            assertThat(starting).isNotDone();
            manager.close();
            assertThatThrownBy(starting::join).hasMessageContaining("closed while");
            System.out.println("ManagerRbacIT: the missing rule was logged " + toLog.toMillis() + " ms after start");
        } finally {
            manager.close();
        }
    }

    @Test
    void cachesThatDoNotSyncInTimeFailTheStartNamingTheTypes() {
        try (Probes.CapturedLog log = new Probes.CapturedLog();
                Manager manager = manager("timeout")
                        .cacheSyncTimeout(Duration.ofSeconds(2))
                        .build()) {
            manager.informerFactory().informerFor(Secret.class);
            assertThatThrownBy(manager::start)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("WaitForCacheSync timed out")
                    .hasMessageContaining("secrets in timeout");
            assertThat(log.lines("WaitForCacheSync timed out"))
                    .singleElement()
                    .asString()
                    .contains("ERROR", "secrets in timeout", "RBAC forbids list on secrets");
            assertThat(manager.healthProbePort()).isEqualTo(-1); // closed
        }
    }
}
