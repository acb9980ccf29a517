package io.kubeloop.demo.deploy;

import static io.kubeloop.demo.deploy.DeployFiles.DEPLOY;
import static io.kubeloop.demo.deploy.DeployFiles.MONITORING;
import static io.kubeloop.demo.deploy.DeployFiles.NAME;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The files of {@code deploy/} that are derived from the code are what the code derives today, and the hand-written
 * ones say what the issue asks of them. No server: {@code DeployKubectlIT} applies them, {@code DeployMetricsIT}
 * checks the monitoring files' metric names against a scrape.
 */
class DeployManifestsTest {

    @Test
    void theRbacIsWhatTheManagerOfKubeloopRunDerives() {
        String derived = DeployFiles.rbacYaml();
        DeployFiles.assertGenerated(
                DEPLOY.resolve("30-rbac.yaml"),
                derived,
                "PodGuardian.builder(client).leaderElection(\"pod-guardian\").build().rbac(\"pod-guardian\")");
        List<JsonNode> roles = DeployFiles.documents(DEPLOY.resolve("30-rbac.yaml"));
        assertThat(roles).extracting(r -> r.path("kind").asString()).containsExactly("ClusterRole", "Role");
        assertThat(roles.get(1).path("metadata").path("namespace").asString()).isEqualTo(NAME);
    }

    @Test
    void theCrdIsPodGuardianCrd() {
        DeployFiles.assertGenerated(DEPLOY.resolve("10-crd.yaml"), DeployFiles.crdYaml(), "PodGuardian.crd()");
    }

    @Test
    void theDashboardConfigMapHoldsTheDashboard() {
        String json = DeployFiles.read(DeployFiles.DASHBOARD);
        DeployFiles.JSON.readTree(json); // valid JSON
        DeployFiles.assertGenerated(
                MONITORING.resolve("grafana-dashboard-configmap.yaml"),
                DeployFiles.dashboardConfigMap(json),
                "deploy/monitoring/dashboards/grafana-dashboard.json");
        JsonNode configMap = DeployFiles.document(MONITORING.resolve("grafana-dashboard-configmap.yaml"), "ConfigMap");
        assertThat(configMap.path("data").path("pod-guardian.json").asString()).isEqualTo(json);
    }

    @Test
    void everyAlertHasItsRunbookInTheOperationsGuide() {
        String guide = DeployFiles.read(DeployFiles.OPERATIONS);
        JsonNode rule = DeployFiles.document(MONITORING.resolve("prometheusrule.yaml"), "PrometheusRule");
        List<String> alerts = new ArrayList<>();
        for (JsonNode group : rule.path("spec").path("groups")) {
            for (JsonNode r : group.path("rules")) {
                String alert = r.path("alert").asString();
                alerts.add(alert);
                assertThat(guide).as("a runbook section for " + alert).contains("\n### " + alert + "\n");
                assertThat(r.path("annotations").path("runbook").asString())
                        .endsWith("docs/operations.md#" + alert.toLowerCase(java.util.Locale.ROOT));
            }
        }
        assertThat(alerts).hasSizeGreaterThanOrEqualTo(5);
    }

    @Test
    void theBindingsGrantBothRolesToTheServiceAccount() {
        JsonNode sa = DeployFiles.document(DEPLOY.resolve("20-serviceaccount.yaml"), "ServiceAccount");
        assertThat(sa.path("metadata").path("name").asString()).isEqualTo(NAME);
        assertThat(sa.path("metadata").path("namespace").asString()).isEqualTo(NAME);
        for (String kind : List.of("ClusterRoleBinding", "RoleBinding")) {
            JsonNode binding = DeployFiles.document(DEPLOY.resolve("31-rbac-bindings.yaml"), kind);
            assertThat(binding.path("roleRef").path("kind").asString()).isEqualTo(kind.replace("Binding", ""));
            assertThat(binding.path("roleRef").path("name").asString()).isEqualTo(NAME);
            JsonNode subject = binding.path("subjects").get(0);
            assertThat(subject.path("kind").asString()).isEqualTo("ServiceAccount");
            assertThat(subject.path("name").asString()).isEqualTo(NAME);
            assertThat(subject.path("namespace").asString()).isEqualTo(NAME);
        }
        assertThat(DeployFiles.document(DEPLOY.resolve("31-rbac-bindings.yaml"), "RoleBinding")
                        .path("metadata")
                        .path("namespace")
                        .asString())
                .isEqualTo(NAME);
    }

    @Test
    void theDeploymentRunsTwoLeaderElectingNonRootReplicasWithProbesAndResources() {
        JsonNode deployment = DeployFiles.document(DEPLOY.resolve("40-deployment.yaml"), "Deployment");
        assertThat(deployment.path("spec").path("replicas").asInt()).isEqualTo(2);
        JsonNode pod = deployment.path("spec").path("template").path("spec");
        assertThat(pod.path("serviceAccountName").asString()).isEqualTo(NAME);
        assertThat(pod.path("securityContext").path("runAsNonRoot").asBoolean()).isTrue();
        JsonNode container = pod.path("containers").get(0);
        assertThat(container.path("image").asString()).isEqualTo("kubeloop/pod-guardian:0.1.0-SNAPSHOT");
        List<String> args = new ArrayList<>();
        container.path("args").forEach(a -> args.add(a.asString()));
        assertThat(args).containsExactly("--leader-election", "--metrics-port", "8080", "--health-port", "8081");
        assertThat(container.path("livenessProbe").path("httpGet").path("path").asString())
                .isEqualTo("/healthz");
        assertThat(container.path("readinessProbe").path("httpGet").path("path").asString())
                .isEqualTo("/readyz");
        assertThat(container.path("ports").findValuesAsString("name")).contains("metrics", "health");
        assertThat(container.path("ports").findValues("containerPort"))
                .extracting(JsonNode::asInt)
                .containsExactlyInAnyOrder(8080, 8081);
        JsonNode resources = container.path("resources");
        assertThat(resources.path("requests").path("cpu").asString()).isEqualTo("100m");
        assertThat(resources.path("requests").path("memory").asString()).isEqualTo("256Mi");
        assertThat(resources.path("limits").path("memory").asString()).isEqualTo("512Mi");
        JsonNode security = container.path("securityContext");
        assertThat(security.path("runAsNonRoot").asBoolean()).isTrue();
        assertThat(security.path("runAsUser").asInt()).isEqualTo(65532);
        assertThat(security.path("readOnlyRootFilesystem").asBoolean()).isTrue();
        assertThat(security.path("allowPrivilegeEscalation").asBoolean()).isFalse();
        assertThat(security.path("capabilities").path("drop").get(0).asString()).isEqualTo("ALL");
        assertThat(security.path("seccompProfile").path("type").asString()).isEqualTo("RuntimeDefault");

        JsonNode service = DeployFiles.document(DEPLOY.resolve("50-service.yaml"), "Service");
        assertThat(service.path("spec").path("selector"))
                .isEqualTo(deployment.path("spec").path("selector").path("matchLabels"));
        assertThat(service.path("spec").path("ports").get(0).path("port").asInt())
                .isEqualTo(8080);
        assertThat(service.path("spec").path("ports").get(0).path("targetPort").asString())
                .isEqualTo("metrics");
    }

    @Test
    void everyManifestParsesAndLivesInNamespacePodGuardianUnlessClusterScoped() throws IOException {
        List<Path> files;
        try (Stream<Path> list = Stream.concat(Files.list(DEPLOY), Files.list(MONITORING))) {
            files = list.filter(f -> f.toString().endsWith(".yaml")).sorted().toList();
        }
        assertThat(files)
                .extracting(f -> f.getFileName().toString())
                .contains(
                        "00-namespace.yaml",
                        "10-crd.yaml",
                        "20-serviceaccount.yaml",
                        "30-rbac.yaml",
                        "31-rbac-bindings.yaml",
                        "40-deployment.yaml",
                        "50-service.yaml",
                        "prometheusrule.yaml");
        List<String> clusterScoped =
                List.of("Namespace", "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding");
        for (Path file : files) {
            for (JsonNode doc : DeployFiles.documents(file)) {
                String kind = doc.path("kind").asString();
                assertThat(kind).as(file.toString()).isNotEmpty();
                String namespace = doc.path("metadata").path("namespace").asString("");
                if (clusterScoped.contains(kind)) {
                    assertThat(namespace).as(file + " " + kind).isEmpty();
                } else {
                    assertThat(namespace).as(file + " " + kind).isEqualTo(NAME);
                }
            }
        }
    }
}
