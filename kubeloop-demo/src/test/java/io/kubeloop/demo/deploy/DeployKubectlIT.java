package io.kubeloop.demo.deploy;

import static io.kubeloop.demo.deploy.DeployFiles.DEPLOY;
import static io.kubeloop.demo.deploy.DeployFiles.MONITORING;
import static io.kubeloop.demo.deploy.DeployFiles.NAME;
import static io.kubeloop.testsupport.TestThreads.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.controller.Manager;
import io.kubeloop.demo.PodGuardian;
import io.kubeloop.demo.PodSet;
import io.kubeloop.testsupport.Kubectl;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code deploy/} against the embedded API server with TLS and RBAC on, through the real kubectl: the manifests
 * pass a server-side dry run (the monitoring ones once the Prometheus Operator's CRDs are there), and once applied
 * for real, the operator running as the ServiceAccount — with exactly the rules of {@code 30-rbac.yaml}, through the
 * bindings of {@code 31-rbac-bindings.yaml} — gets ready, leads and reconciles a PodSet, status and Events included.
 * The dry runs go first: the last test applies the manifests for real.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DeployKubectlIT {

    private static final String SERVICE_ACCOUNT = "system:serviceaccount:" + NAME + ":" + NAME;

    /** Just enough of the Prometheus Operator's CRDs for a dry run of deploy/monitoring. */
    private static final String MONITORING_CRDS = """
            apiVersion: apiextensions.k8s.io/v1
            kind: CustomResourceDefinition
            metadata:
              name: prometheusrules.monitoring.coreos.com
            spec:
              group: monitoring.coreos.com
              names: {kind: PrometheusRule, listKind: PrometheusRuleList, plural: prometheusrules, singular: prometheusrule}
              scope: Namespaced
              versions:
              - name: v1
                served: true
                storage: true
                schema:
                  openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
            ---
            apiVersion: apiextensions.k8s.io/v1
            kind: CustomResourceDefinition
            metadata:
              name: servicemonitors.monitoring.coreos.com
            spec:
              group: monitoring.coreos.com
              names: {kind: ServiceMonitor, listKind: ServiceMonitorList, plural: servicemonitors, singular: servicemonitor}
              scope: Namespaced
              versions:
              - name: v1
                served: true
                storage: true
                schema:
                  openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
            """;

    @TempDir
    static Path dir;

    private static EmbeddedApiServer server;
    private static KubernetesClient admin;
    private static Kubectl kubectl;

    @BeforeAll
    static void startServer() throws Exception {
        Kubectl.assumeInstalled();
        server = EmbeddedApiServer.builder().tls().rbac(true).start();
        admin = KubernetesClient.create(ClientConfig.fromKubeconfig(server.writeKubeconfig(dir.resolve("kubeconfig"))));
        kubectl = new Kubectl(dir);
        // a dry run persists nothing, so the namespace the other objects go into must exist for real
        kubectl.run("apply", "-f", DEPLOY.resolve("00-namespace.yaml").toString())
                .ok();
    }

    @AfterAll
    static void stopServer() {
        if (admin != null) {
            admin.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    @Order(1)
    void deployPassesAServerSideDryRun() throws Exception {
        Kubectl.Result result = kubectl.run("apply", "--dry-run=server", "-f", DEPLOY.toString())
                .ok();
        assertThat(result.out())
                .contains(
                        "namespace/pod-guardian",
                        "customresourcedefinition.apiextensions.k8s.io/podsets.demo.kubeloop.io created (server dry run)",
                        "serviceaccount/pod-guardian created (server dry run)",
                        "clusterrole.rbac.authorization.k8s.io/pod-guardian created (server dry run)",
                        "role.rbac.authorization.k8s.io/pod-guardian created (server dry run)",
                        "clusterrolebinding.rbac.authorization.k8s.io/pod-guardian created (server dry run)",
                        "rolebinding.rbac.authorization.k8s.io/pod-guardian created (server dry run)",
                        "deployment.apps/pod-guardian created (server dry run)",
                        "service/pod-guardian-metrics created (server dry run)");
    }

    @Test
    @Order(2)
    void monitoringPassesAServerSideDryRunWithThePrometheusOperatorsCrds() throws Exception {
        kubectl.runWithInput(MONITORING_CRDS, "apply", "-f", "-").ok();
        kubectl.run(
                        "wait",
                        "--for",
                        "condition=established",
                        "--timeout=20s",
                        "crd/prometheusrules.monitoring.coreos.com",
                        "crd/servicemonitors.monitoring.coreos.com")
                .ok();
        Kubectl.Result result = kubectl.run("apply", "--dry-run=server", "-f", MONITORING.toString())
                .ok();
        assertThat(result.out())
                .contains(
                        "prometheusrule.monitoring.coreos.com/pod-guardian created (server dry run)",
                        "servicemonitor.monitoring.coreos.com/pod-guardian created (server dry run)",
                        "configmap/pod-guardian-dashboard created (server dry run)");
    }

    @Test
    @Order(3)
    void theServiceAccountsRulesAreEnoughToRunTheOperator() throws Exception {
        List<Path> files;
        try (Stream<Path> list = Files.list(DEPLOY)) {
            files = list.filter(f -> f.toString().endsWith(".yaml"))
                    .filter(f -> !f.getFileName().toString().equals("40-deployment.yaml"))
                    .sorted()
                    .toList();
        }
        for (Path file : files) {
            kubectl.run("apply", "-f", file.toString()).ok();
        }
        kubectl.run("wait", "--for", "condition=established", "--timeout=20s", "crd/podsets.demo.kubeloop.io")
                .ok();
        assertThat(kubectl.run("auth", "can-i", "list", "pods", "--all-namespaces", "--as", SERVICE_ACCOUNT)
                        .out()
                        .trim())
                .isEqualTo("yes");
        assertThat(kubectl.run("auth", "can-i", "list", "secrets", "--all-namespaces", "--as", SERVICE_ACCOUNT)
                        .out()
                        .trim())
                .as("nothing beyond what the operator needs")
                .isEqualTo("no");
        Workloads.namespace(admin, "shop");
        admin.resources(Deployment.class).inNamespace("shop").create(Workloads.deployment("api", 1));

        Path saConfig = server.writeKubeconfigFor(
                dir.resolve("sa.yaml"), SERVICE_ACCOUNT, "system:serviceaccounts", "system:serviceaccounts:" + NAME);
        try (KubernetesClient sa = KubernetesClient.create(ClientConfig.fromKubeconfig(saConfig));
                Manager operator = PodGuardian.builder(sa)
                        .leaderElection(NAME)
                        .identity("as-service-account")
                        .bindAddress(InetAddress.getLoopbackAddress())
                        .metricsPort(-1)
                        .healthProbePort(0)
                        .build()) {
            operator.start();
            eventually().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                var ready = Workloads.get(operator.healthProbePort(), "/readyz?verbose");
                assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
            });
            eventually().atMost(Duration.ofSeconds(20)).until(operator::isLeader);

            admin.resources(PodSet.class).inNamespace("shop").create(Workloads.podSet("web", 2));
            eventually().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                List<Pod> pods = admin.resources(Pod.class).inNamespace("shop").list().items().stream()
                        .filter(p -> "web".equals(p.getMetadata().getLabels().get(PodSet.NAME_LABEL)))
                        .toList();
                assertThat(pods).hasSize(2);
                PodSet web = admin.resources(PodSet.class)
                        .inNamespace("shop")
                        .get("web")
                        .orElseThrow();
                assertThat(web.getStatus())
                        .as("status written (podsets/status)")
                        .isNotNull();
                assertThat(web.getStatus().getReplicas()).isEqualTo(2);
                assertThat(admin.resources(Event.class)
                                .inNamespace("shop")
                                .list()
                                .items())
                        .as("Events written")
                        .anySatisfy(e -> assertThat(e.getReason()).isEqualTo("SuccessfulCreate"));
            });
            assertThat(Workloads.get(operator.healthProbePort(), "/healthz").statusCode())
                    .isEqualTo(200);
        }
    }
}
