package io.kubeloop.demo.operator;

import static io.kubeloop.demo.operator.PodSets.active;
import static io.kubeloop.demo.operator.PodSets.events;
import static io.kubeloop.demo.operator.PodSets.podSet;
import static io.kubeloop.demo.operator.PodSets.pods;
import static io.kubeloop.demo.operator.PodSets.running;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.resource.ResourceClient;
import io.kubeloop.controller.Manager;
import io.kubeloop.demo.PodGuardian;
import io.kubeloop.demo.PodSet;
import io.kubeloop.testkit.KubeloopTest;
import io.kubeloop.testkit.TestNamespace;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The pod-guardian controller on the embedded cluster (two simulated nodes whose kubelets run the pods): a PodSet
 * gets its pods Running and its status; a deleted or terminating pod is replaced at once, the listener hearing the
 * deletion before the creation; the scale subresource scales it both ways; deleting it deletes its pods.
 */
@KubeloopTest(nodes = 2)
class PodGuardianIT {

    private Manager manager;
    private final ListenerRecorder listener = new ListenerRecorder();

    @BeforeAll
    static void installTheCrd(KubernetesClient admin) {
        admin.resources(CustomResourceDefinition.class).create(PodGuardian.crd());
    }

    @AfterEach
    void stopTheOperator() {
        if (manager != null) {
            manager.close();
        }
    }

    private ResourceClient<PodSet> start(KubernetesClient client, String ns) {
        manager = PodGuardian.builder(client).namespace(ns).listener(listener).build();
        manager.start();
        return client.resources(PodSet.class);
    }

    private static PodSet.Status status(ResourceClient<PodSet> podSets, String name) {
        return podSets.get(name).map(PodSet::getStatus).orElse(null);
    }

    private static Map<String, String> conditions(PodSet.Status status) {
        return status.getConditions().stream()
                .collect(Collectors.toMap(Condition::getType, c -> c.getStatus() + "/" + c.getReason()));
    }

    @Test
    void aPodSetGetsItsPodsRunningAndReportsItsStatus(KubernetesClient client, @TestNamespace String ns) {
        ResourceClient<PodSet> podSets = start(client, ns);
        PodSet created = podSets.create(podSet("web", 3, 1));

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            PodSet.Status s = status(podSets, "web");
            assertThat(s).isNotNull();
            assertThat(s.getReadyReplicas()).isEqualTo(3);
            assertThat(s.getReplicas()).isEqualTo(3);
        });
        PodSet web = podSets.get("web").orElseThrow();
        PodSet.Status s = web.getStatus();
        assertThat(s.getObservedGeneration()).isEqualTo(web.getMetadata().getGeneration());
        assertThat(s.getSelector()).isEqualTo("podset.demo.kubeloop.io/name=web");
        assertThat(conditions(s))
                .containsEntry("Available", "True/AllReplicasReady")
                .containsEntry("Progressing", "False/ReplicasReady");
        assertThat(s.getConditions())
                .allSatisfy(c -> assertThat(c.getLastTransitionTime()).isNotBlank());
        String version = web.getMetadata().getResourceVersion();
        await().during(Duration.ofMillis(1500))
                .atMost(Duration.ofSeconds(5))
                .alias("no status write once nothing changes")
                .until(() -> podSets.get("web").orElseThrow().getMetadata().getResourceVersion(), version::equals);

        List<Pod> pods = pods(client, "web");
        assertThat(pods).hasSize(3).allSatisfy(pod -> {
            assertThat(running(pod)).isTrue();
            assertThat(pod.getMetadata().getName()).startsWith("web-");
            assertThat(pod.getMetadata().getLabels()).containsEntry("app", "web");
            OwnerReference ref = pod.getMetadata().getOwnerReferences().get(0);
            assertThat(ref.getUid()).isEqualTo(created.getMetadata().getUid());
            assertThat(ref.getKind()).isEqualTo("PodSet");
            assertThat(ref.getController()).isTrue();
            assertThat(ref.getBlockOwnerDeletion()).isTrue();
        });
        assertThat(listener.created()).hasSize(3);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(events(client, "PodSet", "web"))
                .filteredOn(e -> e.startsWith("Normal SuccessfulCreate: Created pod: web-"))
                .hasSize(3));
    }

    @Test
    void aDeletedPodIsReplacedAndTheListenerHearsTheDeletionFirst(KubernetesClient client, @TestNamespace String ns) {
        ResourceClient<PodSet> podSets = start(client, ns);
        podSets.create(podSet("web", 3, 1));
        await().atMost(Duration.ofSeconds(20))
                .until(() ->
                        active(client, "web").stream().filter(PodSets::running).count() == 3);
        String victim = active(client, "web").get(0).getMetadata().getName();

        client.resources(Pod.class).delete(victim); // its 1 s grace period: Terminating, then gone

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            List<Pod> now = active(client, "web");
            assertThat(now).hasSize(3).allMatch(PodSets::running);
            assertThat(now).extracting(p -> p.getMetadata().getName()).doesNotContain(victim);
        });
        int seen = listener.indexOf("seen", victim);
        assertThat(seen)
                .as("the listener heard %s go: %s", victim, listener.lines())
                .isNotNegative();
        List<String> after = listener.lines().subList(seen + 1, listener.lines().size());
        assertThat(after).as("a creation after the deletion").anyMatch(l -> l.startsWith("created web-"));
        ListenerRecorder.Call seenCall = listener.calls.get(seen);
        ListenerRecorder.Call replacement = listener.calls.stream()
                .skip(seen + 1)
                .filter(c -> c.what().equals("created"))
                .findFirst()
                .orElseThrow();
        // the reconcile may have begun just before the handler's call (it reads the cache, which changes first), but
        // it creates the replacement only after the listener heard of the deletion
        assertThat(replacement.nanos()).isGreaterThanOrEqualTo(seenCall.nanos());
        assertThat(replacement.nanos()).isGreaterThanOrEqualTo(replacement.reconcileStartNanos());
        assertThat(listener.created()).as("3 at first, 1 replacement, no extra").hasSize(4);
    }

    @Test
    void aTerminatingPodNoLongerCountsAndIsReplacedAtOnce(KubernetesClient client, @TestNamespace String ns) {
        ResourceClient<PodSet> podSets = start(client, ns);
        podSets.create(podSet("web", 2, 10)); // containers stop 10 s after a graceful delete
        await().atMost(Duration.ofSeconds(20))
                .until(() ->
                        active(client, "web").stream().filter(PodSets::running).count() == 2);
        String victim = active(client, "web").get(0).getMetadata().getName();

        client.resources(Pod.class).delete(victim); // graceful: Terminating for 10 s

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(client.resources(Pod.class).get(victim))
                    .as("still terminating")
                    .hasValueSatisfying(p ->
                            assertThat(p.getMetadata().getDeletionTimestamp()).isNotNull());
            assertThat(active(client, "web")).hasSize(2).allMatch(PodSets::running);
        });
        assertThat(listener.indexOf("seen", victim)).isNotNegative();
        await().atMost(Duration.ofSeconds(5))
                .untilAsserted(
                        () -> assertThat(status(podSets, "web").getReplicas()).isEqualTo(2));
    }

    @Test
    void theScaleSubresourceScalesItUpAndDown(KubernetesClient client, @TestNamespace String ns) {
        ResourceClient<PodSet> podSets = start(client, ns);
        podSets.create(podSet("web", 2, 0));
        await().atMost(Duration.ofSeconds(20))
                .until(() -> status(podSets, "web") != null
                        && Integer.valueOf(2).equals(status(podSets, "web").getReadyReplicas()));

        podSets.updateScale("web", 5); // what kubectl scale podset/web --replicas=5 sends

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            assertThat(active(client, "web")).hasSize(5).allMatch(PodSets::running);
            assertThat(status(podSets, "web").getReadyReplicas()).isEqualTo(5);
        });
        assertThat(podSets.getScale("web").toString()).contains("5");

        podSets.updateScale("web", 1);

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            assertThat(active(client, "web")).hasSize(1);
            PodSet.Status s = status(podSets, "web");
            assertThat(s.getReplicas()).isEqualTo(1);
            assertThat(s.getReadyReplicas()).isEqualTo(1);
            assertThat(conditions(s)).containsEntry("Available", "True/AllReplicasReady");
        });
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(events(client, "PodSet", "web"))
                .filteredOn(e -> e.startsWith("Normal SuccessfulDelete: Deleted pod: web-"))
                .hasSize(4));
        assertThat(listener.lines())
                .as("its own deletes are not reported as pods gone")
                .noneMatch(l -> l.startsWith("seen "));
    }

    @Test
    void deletingThePodSetDeletesItsPods(KubernetesClient client, @TestNamespace String ns) {
        ResourceClient<PodSet> podSets = start(client, ns);
        podSets.create(podSet("web", 2, 0));
        await().atMost(Duration.ofSeconds(20)).until(() -> active(client, "web").size() == 2);

        podSets.delete("web");

        await().atMost(Duration.ofSeconds(20)).until(() -> pods(client, "web").isEmpty());
    }

    @Test
    void aPodSetWithoutReplicasGetsOne(KubernetesClient client, @TestNamespace String ns) {
        ResourceClient<PodSet> podSets = start(client, ns);
        PodSet ps = podSet("one", 1, 0);
        ps.getSpec().setReplicas(null);

        PodSet created = podSets.create(ps);

        assertThat(created.getSpec().getReplicas()).as("the CRD's default").isEqualTo(1);
        await().atMost(Duration.ofSeconds(20)).until(() -> active(client, "one").size() == 1);
    }

    @Test
    void aPodTheServerRefusesIsAWarningEventAndRetried(KubernetesClient client, @TestNamespace String ns) {
        ResourceClient<PodSet> podSets = start(client, ns);
        PodSet broken = podSet("broken", 2, 0);
        broken.getSpec().getTemplate().getSpec().setContainers(List.of()); // a pod needs a container

        podSets.create(broken);

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            assertThat(events(client, "PodSet", "broken"))
                    .anyMatch(e ->
                            e.startsWith("Warning FailedCreate: Error creating: ") && e.contains("spec.containers"));
            PodSet.Status s = status(podSets, "broken");
            assertThat(s).isNotNull();
            assertThat(conditions(s))
                    .containsEntry("Available", "False/ReplicasNotReady")
                    .containsEntry("Progressing", "True/ScalingUp");
        });
        assertThat(manager.meterRegistry()
                        .find("controller.runtime.reconcile.errors")
                        .tag("controller", PodGuardian.CONTROLLER)
                        .counter()
                        .count())
                .isPositive();
        assertThat(pods(client, "broken")).isEmpty();
    }
}
