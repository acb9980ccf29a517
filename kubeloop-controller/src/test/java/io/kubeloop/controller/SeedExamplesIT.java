package io.kubeloop.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.example.PodController;
import com.example.ReplicaSetReconciler;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.resource.PatchOptions;
import io.kubeloop.client.resource.PatchType;
import io.kubeloop.testkit.KubeloopTest;
import io.kubeloop.testkit.TestNamespace;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The two seed examples the module README starts with ({@code com.example}, compiled with the tests) run against
 * the embedded API server and do what the seeds say; the README shows them word for word.
 */
@KubeloopTest
class SeedExamplesIT {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @Test
    void thePodControllerReconcilesEveryPodAndItsDeletion(KubernetesClient client, @TestNamespace String namespace)
            throws Exception {
        var printed = new ByteArrayOutputStream();
        var out = new PrintStream(printed, true, StandardCharsets.UTF_8);
        var pods = client.resources(Pod.class);
        pods.create(pod("before-start")); // in the initial list
        try (Manager manager = Manager.builder(client)
                .namespace(namespace)
                .metricsPort(0)
                .healthProbePort(0)
                .build()) {
            PodController.register(manager, out);
            manager.start();
            assertThat(manager.informerFactory().informers()).hasSize(1); // one informer: pods
            pods.create(pod("after-start"));
            await().atMost(WAIT).untilAsserted(() -> assertThat(printed.toString(StandardCharsets.UTF_8))
                    .contains("processing pod " + namespace + "/before-start, phase=")
                    .contains("processing pod " + namespace + "/after-start, phase="));
            pods.delete("after-start");
            await().atMost(WAIT).untilAsserted(() -> assertThat(printed.toString(StandardCharsets.UTF_8))
                    .contains("pod " + namespace + "/after-start has been deleted, cleanup"));
        }
    }

    @Test
    void theReconcileTemplateKeepsTheReplicasAndReportsThem(KubernetesClient client, @TestNamespace String namespace)
            throws Exception {
        var replicaSets = client.resources(ReplicaSet.class);
        var pods = client.resources(Pod.class);
        // read-your-own-writes: a reconcile right after a delete does not see the deleted pod in the cache again
        try (Manager manager = Manager.builder(client)
                .metricsPort(0)
                .healthProbePort(0)
                .namespace(namespace)
                .readYourOwnWrites(true)
                .build()) {
            ReplicaSetReconciler.register(manager);
            manager.start();
            replicaSets.create(replicaSet("web", 3));
            await().atMost(WAIT).until(() -> live(pods.list().items()).size() == 3);
            await().atMost(WAIT).until(() -> replicas(replicaSets.get("web").orElseThrow()) == 3);

            Pod victim = live(pods.list().items()).get(0); // a pod dies: it is replaced
            pods.delete(victim.getMetadata().getName());
            await().atMost(WAIT).until(() -> {
                List<Pod> now = live(pods.list().items());
                return now.size() == 3
                        && now.stream().noneMatch(p -> p.getMetadata()
                                .getUid()
                                .equals(victim.getMetadata().getUid()));
            });

            // scale down with a merge patch: the reconciler writes the ReplicaSet's status meanwhile, so an edit (a
            // patch
            // guarded by the resourceVersion it read) can lose that race with a 409
            replicaSets.patch("web", PatchType.MERGE, "{\"spec\":{\"replicas\":1}}", PatchOptions.none());
            await().atMost(WAIT).until(() -> live(pods.list().items()).size() == 1);
            await().atMost(WAIT).until(() -> replicas(replicaSets.get("web").orElseThrow()) == 1);
            assertThat(live(pods.list().items()).get(0).getMetadata().getOwnerReferences())
                    .singleElement()
                    .satisfies(ref -> assertThat(ref.getController()).isTrue());
        }
    }

    @Test
    void theReadmeShowsBothExamplesVerbatimInUnderFiftyLines() throws Exception {
        String readme = Files.readString(Path.of("README.md"));
        for (String example : List.of("PodController", "ReplicaSetReconciler")) {
            String source = Files.readString(Path.of("src/test/java/com/example/" + example + ".java"));
            String shown = source.substring("package com.example;\n\n".length());
            assertThat(readme)
                    .as("README.md shows %s.java without its package line", example)
                    .contains(shown);
            assertThat(shown.lines().count())
                    .as("%s: lines, imports included", example)
                    .isLessThan(50);
        }
    }

    private static List<Pod> live(List<Pod> pods) {
        return pods.stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .toList();
    }

    private static int replicas(ReplicaSet rs) {
        return rs.getStatus() == null || rs.getStatus().getReplicas() == null
                ? -1
                : rs.getStatus().getReplicas();
    }

    private static Pod pod(String name) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("app")
                .withImage("nginx")
                .endContainer()
                .endSpec()
                .build();
    }

    private static ReplicaSet replicaSet(String name, int replicas) {
        Map<String, String> labels = Map.of("app", name);
        return new ReplicaSetBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .withReplicas(replicas)
                .withNewSelector()
                .withMatchLabels(labels)
                .endSelector()
                .withNewTemplate()
                .withNewMetadata()
                .withLabels(labels)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("app")
                .withImage("nginx")
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build();
    }
}
