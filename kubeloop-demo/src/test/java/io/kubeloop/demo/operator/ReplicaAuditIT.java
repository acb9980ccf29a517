package io.kubeloop.demo.operator;

import static io.kubeloop.demo.operator.PodSets.events;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.resource.PatchOptions;
import io.kubeloop.client.resource.PatchType;
import io.kubeloop.controller.Manager;
import io.kubeloop.demo.PodGuardian;
import io.kubeloop.testkit.KubeloopTest;
import io.kubeloop.testkit.TestNamespace;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * replica-audit on the embedded cluster: a Deployment whose pods never become ready is reported once the threshold
 * has passed — a WARN line, one Warning Event {@code ReplicasNotReady}, {@code replica_audit_warnings_total} and
 * {@code replica_audit_unready_deployments} — and its recovery is logged; a healthy Deployment is not reported.
 */
@KubeloopTest(nodes = 2)
class ReplicaAuditIT {

    @BeforeAll
    static void installTheCrd(KubernetesClient admin) {
        admin.resources(CustomResourceDefinition.class).create(PodGuardian.crd());
    }

    static Deployment deployment(String name, int replicas, boolean neverReady) {
        Map<String, String> annotations = new HashMap<>();
        if (neverReady) {
            annotations.put("sim.kubeloop.io/never-ready", "true");
        }
        return new DeploymentBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .withReplicas(replicas)
                .withNewSelector()
                .addToMatchLabels("app", name)
                .endSelector()
                .withNewTemplate()
                .withNewMetadata()
                .addToLabels("app", name)
                .withAnnotations(annotations)
                .endMetadata()
                .withNewSpec()
                .withTerminationGracePeriodSeconds(0L)
                .addNewContainer()
                .withName("app")
                .withImage("nginx")
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build();
    }

    @Test
    void aDeploymentThatStaysUnreadyPastTheThresholdIsReportedOnceAndItsRecoveryLogged(
            KubernetesClient client, @TestNamespace String ns) {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream original = System.err;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try (Manager manager = PodGuardian.builder(client)
                .namespace(ns)
                .auditThreshold(Duration.ofSeconds(1))
                .build()) {
            // a healthy Deployment (ready before the audit starts: on a loaded machine a pod may take longer than
            // the test's 1 s threshold to start, and that would rightly be reported)
            client.resources(Deployment.class).create(deployment("web", 1, false));
            await().atMost(Duration.ofSeconds(20)).until(() -> Integer.valueOf(1)
                    .equals(client.resources(Deployment.class)
                            .get("web")
                            .orElseThrow()
                            .getStatus()
                            .getReadyReplicas()));
            manager.start();
            client.resources(Deployment.class).create(deployment("api", 2, true));

            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(events(client, "Deployment", "api"))
                    .anyMatch(e -> e.matches("Warning ReplicasNotReady: 0 of 2 replicas ready for 1(\\.\\d)? s "
                            + "\\(threshold 1 s\\)")));
            Counter warnings = manager.meterRegistry()
                    .find("replica.audit.warnings")
                    .tags("namespace", ns, "deployment", "api")
                    .counter();
            assertThat(warnings).isNotNull();
            assertThat(warnings.count()).isEqualTo(1.0);
            Gauge unready = manager.meterRegistry()
                    .find("replica.audit.unready.deployments")
                    .gauge();
            assertThat(unready.value())
                    .as(captured.toString(StandardCharsets.UTF_8))
                    .isEqualTo(1.0);
            assertThat(manager.meterRegistry()
                            .find("replica.audit.warnings")
                            .tags("deployment", "web")
                            .counter())
                    .as("the healthy Deployment is not reported")
                    .isNull();

            // the pods become ready: a new template without the annotation rolls out
            // (a merge patch: the deployment controller writes the Deployment's status meanwhile, and an edit guarded
            // by
            // the resourceVersion it read could lose that race with a 409)
            client.resources(Deployment.class)
                    .patch(
                            "api",
                            PatchType.MERGE,
                            "{\"spec\":{\"template\":{\"metadata\":{\"annotations\":null}}}}",
                            PatchOptions.none());

            await().atMost(Duration.ofSeconds(20)).until(() -> unready.value() == 0.0);
            assertThat(warnings.count()).as("once per episode").isEqualTo(1.0);
            assertThat(client.resources(Event.class).list().items())
                    .filteredOn(e -> e.getReason().equals("ReplicasNotReady"))
                    .singleElement()
                    .satisfies(e -> assertThat(e.getCount()).isIn(null, 1));
        } finally {
            System.setErr(original);
        }
        String log = captured.toString(StandardCharsets.UTF_8);
        assertThat(log)
                .containsPattern("WARN .*replica-audit: deployment " + ns
                        + "/api has 0 of 2 replicas ready for 1(\\.\\d)? s \\(threshold 1 s\\)")
                .containsPattern("INFO .*replica-audit: deployment " + ns + "/api has all 2 replicas ready again");
        assertThat(log).doesNotContain("deployment " + ns + "/web has");
    }
}
