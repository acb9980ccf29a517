package io.kubeloop.cluster.internal.deployment;

import static io.kubeloop.cluster.internal.deployment.DeploymentHarness.intOrString;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.kubeloop.clock.FakeClock;
import io.kubeloop.cluster.ClusterTimings;
import io.kubeloop.model.Timestamps;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Deployment controller against the embedded API server over HTTP, on a fake clock, with a stand-in ReplicaSet
 * controller whose availability the tests step ({@link DeploymentHarness}). Expected values are kube's, worked out
 * from {@code pkg/controller/deployment} (cited per test).
 */
class DeploymentControllerIT {

    private static final FakeClock CLOCK = new FakeClock();
    private static DeploymentHarness h;

    @BeforeAll
    static void start() throws Exception {
        h = new DeploymentHarness(CLOCK, ClusterTimings.DEFAULTS);
    }

    @AfterAll
    static void stop() {
        h.close();
    }

    private static DeploymentCondition condition(Deployment d, String type) {
        return Deployments.condition(d.getStatus(), type);
    }

    @Test
    void aReplicaSetNamedByThePodTemplateHashWithKubesAnnotationsAndStatus() {
        Deployment created = h.deployments.create(DeploymentHarness.deployment("web", 3, "nginx:1.25")
                .editMetadata()
                .withAnnotations(
                        Map.of("kubernetes.io/change-cause", "first", "team", "a", Deployments.LAST_APPLIED, "{}"))
                .endMetadata()
                .build());
        String hash = PodTemplateHash.compute(created.getSpec().getTemplate(), null);
        String rsName = "web-" + hash;

        Deployment d = h.eventually(
                () -> h.deployment("web"),
                x -> x.getStatus() != null
                        && Integer.valueOf(3).equals(x.getStatus().getAvailableReplicas())
                        && condition(x, "Progressing") != null
                        && "NewReplicaSetAvailable"
                                .equals(condition(x, "Progressing").getReason()));
        ReplicaSet rs = h.replicaSets.get(rsName).orElseThrow();

        assertThat(hash).matches("[4-9bcdf]{6,10}");
        assertThat(rs.getMetadata().getLabels()).containsEntry("app", "web").containsEntry("pod-template-hash", hash);
        assertThat(rs.getSpec().getSelector().getMatchLabels())
                .isEqualTo(Map.of("app", "web", "pod-template-hash", hash));
        assertThat(rs.getSpec().getTemplate().getMetadata().getLabels()).containsEntry("pod-template-hash", hash);
        assertThat(rs.getSpec().getReplicas()).isEqualTo(3);
        assertThat(rs.getMetadata().getAnnotations())
                .containsEntry("deployment.kubernetes.io/revision", "1")
                .containsEntry("deployment.kubernetes.io/desired-replicas", "3")
                .containsEntry("deployment.kubernetes.io/max-replicas", "4") // 3 + ceil(25% of 3)
                .containsEntry("kubernetes.io/change-cause", "first")
                .containsEntry("team", "a")
                .doesNotContainKey(Deployments.LAST_APPLIED);
        OwnerReference owner = rs.getMetadata().getOwnerReferences().get(0);
        assertThat(owner.getKind()).isEqualTo("Deployment");
        assertThat(owner.getUid()).isEqualTo(created.getMetadata().getUid());
        assertThat(owner.getController()).isTrue();
        assertThat(owner.getBlockOwnerDeletion()).isTrue();

        assertThat(d.getMetadata().getAnnotations()).containsEntry("deployment.kubernetes.io/revision", "1");
        assertThat(d.getStatus().getObservedGeneration())
                .isEqualTo(d.getMetadata().getGeneration());
        assertThat(d.getStatus().getReplicas()).isEqualTo(3);
        assertThat(d.getStatus().getUpdatedReplicas()).isEqualTo(3);
        assertThat(d.getStatus().getReadyReplicas()).isEqualTo(3);
        assertThat(d.getStatus().getUnavailableReplicas()).isNull(); // 0 is omitted, as kube's omitempty
        DeploymentCondition available = condition(d, "Available");
        assertThat(available.getStatus()).isEqualTo("True");
        assertThat(available.getReason()).isEqualTo("MinimumReplicasAvailable");
        assertThat(available.getMessage()).isEqualTo("Deployment has minimum availability.");
        DeploymentCondition progressing = condition(d, "Progressing");
        assertThat(progressing.getStatus()).isEqualTo("True");
        assertThat(progressing.getMessage()).isEqualTo("ReplicaSet \"" + rsName + "\" has successfully progressed.");
        assertThat(h.eventually(() -> h.events("web", "ScalingReplicaSet"), e -> !e.isEmpty()))
                .containsExactly("Scaled up replica set " + rsName + " from 0 to 3");
    }

    /** rolling.go, step by step: 4 replicas, maxSurge 1, maxUnavailable 1; new pods become available on cue. */
    @Test
    void aRollingUpdateMovesReplicasWithinMaxSurgeAndMaxUnavailable() {
        h.deployments.create(DeploymentHarness.deployment("roll", 4, "nginx:1.25")
                .editSpec()
                .withNewStrategy()
                .withType("RollingUpdate")
                .withNewRollingUpdate()
                .withMaxSurge(intOrString("1"))
                .withMaxUnavailable(intOrString("1"))
                .endRollingUpdate()
                .endStrategy()
                .endSpec()
                .build());
        h.eventually(
                () -> h.deployment("roll").getStatus(),
                s -> s != null && Integer.valueOf(4).equals(s.getAvailableReplicas()));
        String old = h.replicaSetsOf("roll").get(0).getMetadata().getName();
        h.caps.put(old, Integer.MAX_VALUE);
        h.defaultCap = 0;
        try {
            h.setImage("roll", "nginx:1.27");
            // new +1 (surge), old -1 (unavailable), new +1: then the new pods must become available first.
            h.eventually(() -> h.sizes("roll"), s -> s.equals(List.of(3, 2)));
            String next = h.replicaSetsOf("roll").get(1).getMetadata().getName();
            Deployment midway = h.eventually(() -> h.deployment("roll"), d -> Integer.valueOf(5)
                    .equals(d.getStatus().getReplicas()));
            assertThat(midway.getStatus().getUpdatedReplicas()).isEqualTo(2);
            assertThat(midway.getStatus().getAvailableReplicas()).isEqualTo(3);
            assertThat(midway.getStatus().getUnavailableReplicas()).isEqualTo(2);
            assertThat(condition(midway, "Available").getReason()).isEqualTo("MinimumReplicasAvailable"); // 3 >= 4-1

            h.cap(next, 2);
            h.eventually(() -> h.sizes("roll"), s -> s.equals(List.of(1, 4)));
            h.cap(next, 4);
            h.eventually(() -> h.sizes("roll"), s -> s.equals(List.of(0, 4)));
            Deployment done = h.eventually(() -> h.deployment("roll"), d -> "NewReplicaSetAvailable"
                    .equals(condition(d, "Progressing").getReason()));
            assertThat(done.getMetadata().getAnnotations()).containsEntry("deployment.kubernetes.io/revision", "2");
            assertThat(h.events("roll", "ScalingReplicaSet"))
                    .containsSubsequence(
                            "Scaled up replica set " + next + " from 0 to 1",
                            "Scaled down replica set " + old + " from 4 to 3",
                            "Scaled up replica set " + next + " from 1 to 2",
                            "Scaled down replica set " + old + " from 3 to 1",
                            "Scaled up replica set " + next + " from 2 to 4",
                            "Scaled down replica set " + old + " from 1 to 0");
        } finally {
            h.defaultCap = Integer.MAX_VALUE;
        }
    }

    /** sync.go's scale: 10 replicas mid-rollout (old 8, new 5; maxSurge 3, maxUnavailable 2) scaled to 20. */
    @Test
    void scalingMidRolloutIsProportional() {
        h.deployments.create(DeploymentHarness.deployment("prop", 10, "nginx:1.25")
                .editSpec()
                .withNewStrategy()
                .withType("RollingUpdate")
                .withNewRollingUpdate()
                .withMaxSurge(intOrString("3"))
                .withMaxUnavailable(intOrString("2"))
                .endRollingUpdate()
                .endStrategy()
                .endSpec()
                .build());
        h.eventually(
                () -> h.deployment("prop").getStatus(),
                s -> s != null && Integer.valueOf(10).equals(s.getAvailableReplicas()));
        h.caps.put(h.replicaSetsOf("prop").get(0).getMetadata().getName(), Integer.MAX_VALUE);
        h.defaultCap = 0;
        try {
            h.setImage("prop", "nginx:1.27");
            h.eventually(() -> h.sizes("prop"), s -> s.equals(List.of(8, 5))); // kube's own example (rolling.go)
            h.merge("prop", "{\"spec\":{\"replicas\":20}}");
            // 23 allowed (20 + 3) for 13: +10 shared as round(8·23/13)-8 = 6 and round(5·23/13)-5 = 4.
            h.eventually(() -> h.sizes("prop"), s -> s.equals(List.of(14, 9)));
            for (ReplicaSet rs : h.replicaSetsOf("prop")) {
                assertThat(rs.getMetadata().getAnnotations())
                        .containsEntry("deployment.kubernetes.io/desired-replicas", "20")
                        .containsEntry("deployment.kubernetes.io/max-replicas", "23");
            }
        } finally {
            h.defaultCap = Integer.MAX_VALUE;
        }
    }

    /** recreate.go: the old ReplicaSet goes to 0 and the new one waits until no old pod is left. */
    @Test
    void recreateWaitsForTheOldPodsToBeGone() {
        h.deployments.create(DeploymentHarness.deployment("rec", 2, "nginx:1.25")
                .editSpec()
                .withNewStrategy()
                .withType("Recreate")
                .endStrategy()
                .endSpec()
                .build());
        h.eventually(
                () -> h.deployment("rec").getStatus(),
                s -> s != null && Integer.valueOf(2).equals(s.getAvailableReplicas()));
        ReplicaSet old = h.replicaSetsOf("rec").get(0);
        Pod pod = new PodBuilder()
                .withNewMetadata()
                .withName("rec-old-pod")
                .withNamespace("default")
                .withLabels(old.getSpec().getTemplate().getMetadata().getLabels())
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("nginx")
                .withImage("nginx:1.25")
                .endContainer()
                .endSpec()
                .build();
        io.kubeloop.controller.OwnerReferences.setControllerReference(old, pod);
        h.client.resources(Pod.class).inNamespace("default").create(pod);

        Deployment updated = h.setImage("rec", "nginx:1.27");
        Deployment waiting = h.eventually(
                () -> h.deployment("rec"),
                d -> d.getStatus().getObservedGeneration()
                                >= updated.getMetadata().getGeneration()
                        && Integer.valueOf(0).equals(zeroIfNull(d.getStatus().getReplicas())));
        assertThat(h.sizes("rec")).containsExactly(0); // no new ReplicaSet while the old pod runs
        assertThat(zeroIfNull(waiting.getStatus().getUpdatedReplicas())).isZero();

        h.client
                .resources(Pod.class)
                .inNamespace("default")
                .delete(
                        "rec-old-pod",
                        io.kubeloop.client.resource.DeleteOptions.defaults().withGracePeriodSeconds(0L));
        h.eventually(() -> h.sizes("rec"), s -> s.equals(List.of(0, 2)));
        String next = h.replicaSetsOf("rec").get(1).getMetadata().getName();
        assertThat(h.eventually(() -> h.events("rec", "ScalingReplicaSet"), e -> e.size() >= 3))
                .endsWith("Scaled up replica set " + next + " from 0 to 2");
    }

    private static int zeroIfNull(Integer i) {
        return i == null ? 0 : i;
    }

    /** A paused Deployment is only scaled; resumed, it rolls out (sync.go, checkPausedConditions). */
    @Test
    void aPausedDeploymentIsOnlyScaled() {
        h.deployments.create(
                DeploymentHarness.deployment("paused", 2, "nginx:1.25").build());
        h.eventually(
                () -> h.deployment("paused").getStatus(),
                s -> s != null && Integer.valueOf(2).equals(s.getAvailableReplicas()));
        h.merge("paused", "{\"spec\":{\"paused\":true}}");
        h.setImage("paused", "nginx:1.27");
        Deployment paused = h.eventually(() -> h.deployment("paused"), d -> "DeploymentPaused"
                .equals(condition(d, "Progressing").getReason()));
        assertThat(condition(paused, "Progressing").getStatus()).isEqualTo("Unknown");
        assertThat(condition(paused, "Progressing").getMessage()).isEqualTo("Deployment is paused");
        h.merge("paused", "{\"spec\":{\"replicas\":4}}");
        h.eventually(() -> h.sizes("paused"), s -> s.equals(List.of(4)));

        h.merge("paused", "{\"spec\":{\"paused\":false}}");
        h.eventually(() -> h.sizes("paused"), s -> s.equals(List.of(0, 4)));
        assertThat(h.eventually(
                        () -> condition(h.deployment("paused"), "Progressing").getReason(),
                        r -> r.equals("NewReplicaSetAvailable")))
                .isEqualTo("NewReplicaSetAvailable");
    }

    /** cleanupDeployment: only revisionHistoryLimit old ReplicaSets are kept, the oldest revisions deleted. */
    @Test
    @org.junit.jupiter.api.Disabled("known bug, issue 18's closing note: under two test JVMs this run once left the "
            + "Deployment's revision annotation at 1 after its new ReplicaSet was available (the conditional merge "
            + "patch of the annotation lost a race and the retry did not write it); to fix in DeploymentController")
    void oldReplicaSetsBeyondTheHistoryLimitAreDeleted() {
        h.deployments.create(DeploymentHarness.deployment("hist", 1, "nginx:1")
                .editSpec()
                .withRevisionHistoryLimit(1)
                .endSpec()
                .build());
        for (int image = 2; image <= 4; image++) {
            h.setImage("hist", "nginx:" + image);
            String revision = Integer.toString(image);
            h.eventually(
                    () -> h.deployment("hist"),
                    d -> revision.equals(d.getMetadata().getAnnotations().get("deployment.kubernetes.io/revision"))
                            && condition(d, "Progressing") != null
                            && "NewReplicaSetAvailable"
                                    .equals(condition(d, "Progressing").getReason()));
        }
        List<ReplicaSet> kept = h.eventually(() -> h.replicaSetsOf("hist"), l -> l.size() == 2);
        assertThat(kept).extracting(Deployments::revision).containsExactly(3L, 4L);
        assertThat(kept.get(1)
                        .getSpec()
                        .getTemplate()
                        .getSpec()
                        .getContainers()
                        .get(0)
                        .getImage())
                .isEqualTo("nginx:4");
    }

    /** progress.go on the fake clock: no progress for progressDeadlineSeconds → ProgressDeadlineExceeded. */
    @Test
    void aStuckRolloutExceedsItsProgressDeadline() {
        h.deployments.create(DeploymentHarness.deployment("stuck", 2, "nginx:1.25")
                .editSpec()
                .withProgressDeadlineSeconds(600)
                .endSpec()
                .build());
        h.eventually(
                () -> h.deployment("stuck").getStatus(),
                s -> s != null && Integer.valueOf(2).equals(s.getAvailableReplicas()));
        h.caps.put(h.replicaSetsOf("stuck").get(0).getMetadata().getName(), Integer.MAX_VALUE);
        h.defaultCap = 0;
        try {
            h.setImage("stuck", "nginx:broken");
            // maxSurge 1 (25% of 2, up), maxUnavailable 0 (down): one new pod that never becomes available.
            h.eventually(() -> h.sizes("stuck"), s -> s.equals(List.of(2, 1)));
            Deployment d = h.eventually(() -> h.deployment("stuck"), x -> Integer.valueOf(1)
                    .equals(x.getStatus().getUpdatedReplicas()));
            String newRs = h.replicaSetsOf("stuck").get(1).getMetadata().getName();
            Instant lastUpdate = Timestamps.parse(condition(d, "Progressing").getLastUpdateTime());

            // 30 s before the deadline (a margin for the waits' clock steps) a sync, woken by an annotation the
            // controller copies to the new ReplicaSet, finds no timeout.
            CLOCK.step(Duration.between(CLOCK.now(), lastUpdate.plusSeconds(570)));
            h.merge("stuck", "{\"metadata\":{\"annotations\":{\"poke\":\"1\"}}}");
            h.eventually(
                    () -> h.replicaSets.get(newRs).orElseThrow().getMetadata().getAnnotations(),
                    a -> a.containsKey("poke"));
            assertThat(condition(h.deployment("stuck"), "Progressing").getReason())
                    .isEqualTo("ReplicaSetUpdated");

            // Past the deadline (600 s, and the second kube adds) the requeue the controller asked for finds it.
            CLOCK.step(Duration.between(CLOCK.now(), lastUpdate.plusSeconds(602)));
            Deployment timedOut = h.eventually(() -> h.deployment("stuck"), x -> "ProgressDeadlineExceeded"
                    .equals(condition(x, "Progressing").getReason()));
            DeploymentCondition c = condition(timedOut, "Progressing");
            assertThat(c.getStatus()).isEqualTo("False");
            assertThat(c.getMessage()).isEqualTo("ReplicaSet \"" + newRs + "\" has timed out progressing.");
        } finally {
            h.defaultCap = Integer.MAX_VALUE;
        }
    }

    /** getNewReplicaSet: a ReplicaSet of another template holds the name → collisionCount 1 and another hash. */
    @Test
    void aHashCollisionBumpsCollisionCount() {
        Deployment draft = DeploymentHarness.deployment("coll", 1, "nginx:1.25").build();
        // The hash of the template as the server stores it (defaulted): create, read, and delete a probe first.
        Deployment probe = h.deployments.create(DeploymentHarness.deployment("coll-probe", 1, "nginx:1.25")
                .editSpec()
                .withPaused(true)
                .editSelector()
                .withMatchLabels(Map.of("app", "coll"))
                .endSelector()
                .editTemplate()
                .editMetadata()
                .withLabels(Map.of("app", "coll"))
                .endMetadata()
                .endTemplate()
                .endSpec()
                .build());
        String hash = PodTemplateHash.compute(probe.getSpec().getTemplate(), null);
        h.deployments.delete("coll-probe");
        h.replicaSets.create(new ReplicaSetBuilder()
                .withNewMetadata()
                .withName("coll-" + hash)
                .withNamespace("default")
                .withLabels(Map.of("squatter", "yes"))
                .endMetadata()
                .withNewSpec()
                .withReplicas(0)
                .withNewSelector()
                .withMatchLabels(Map.of("squatter", "yes"))
                .endSelector()
                .withNewTemplate()
                .withNewMetadata()
                .withLabels(Map.of("squatter", "yes"))
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("other")
                .withImage("busybox")
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build());

        Deployment created = h.deployments.create(draft);
        assertThat(PodTemplateHash.compute(created.getSpec().getTemplate(), null))
                .isEqualTo(hash);
        Deployment d = h.eventually(
                () -> h.deployment("coll"),
                x -> x.getStatus() != null && x.getStatus().getCollisionCount() != null);
        assertThat(d.getStatus().getCollisionCount()).isEqualTo(1);
        String rehashed = PodTemplateHash.compute(created.getSpec().getTemplate(), 1);
        assertThat(rehashed).isNotEqualTo(hash);
        h.eventually(() -> h.replicaSets.get("coll-" + rehashed), java.util.Optional::isPresent);
        assertThat(h.replicaSets.get("coll-" + hash).orElseThrow().getMetadata().getOwnerReferences())
                .isNullOrEmpty();
    }

    /**
     * The new ReplicaSet is found by comparing templates as the server stored them (defaulted as a Deployment's, and
     * as a ReplicaSet's): a template using many defaulted fields must still match its own ReplicaSet, or every sync
     * would count a collision.
     */
    @Test
    void aRichTemplateIsRecognisedAsItsOwnReplicaSet() throws Exception {
        String yaml = """
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: rich, namespace: default}
                spec:
                  replicas: 2
                  selector: {matchLabels: {app: rich}}
                  template:
                    metadata: {labels: {app: rich}, annotations: {a: b}}
                    spec:
                      initContainers:
                      - {name: init, image: busybox, command: [sh, -c, "true"]}
                      containers:
                      - name: web
                        image: nginx:1.25
                        ports: [{containerPort: 80, name: http}, {containerPort: 53, protocol: UDP}]
                        env: [{name: A, value: "1"}, {name: B, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]
                        resources: {requests: {cpu: 100m, memory: 64Mi}, limits: {memory: 128Mi}}
                        readinessProbe: {httpGet: {path: /, port: http}}
                        livenessProbe: {tcpSocket: {port: 80}}
                        volumeMounts: [{name: cache, mountPath: /cache}, {name: cfg, mountPath: /cfg}]
                        securityContext: {runAsNonRoot: true}
                      volumes:
                      - {name: cache, emptyDir: {}}
                      - {name: cfg, configMap: {name: cfg}}
                      tolerations: [{key: k, operator: Exists}]
                      nodeSelector: {disk: ssd}
                """;
        Deployment parsed = io.kubeloop.client.codec.Decoding.standard()
                .mapper()
                .treeToValue(new tools.jackson.dataformat.yaml.YAMLMapper().readTree(yaml), Deployment.class);
        h.deployments.create(parsed);
        Deployment d = h.eventually(
                () -> h.deployment("rich"),
                x -> x.getStatus() != null
                        && Integer.valueOf(2).equals(x.getStatus().getAvailableReplicas()));
        h.merge("rich", "{\"metadata\":{\"annotations\":{\"poke\":\"1\"}}}"); // one more sync
        h.eventually(() -> h.replicaSetsOf("rich").get(0).getMetadata().getAnnotations(), a -> a.containsKey("poke"));
        assertThat(h.replicaSetsOf("rich")).hasSize(1);
        assertThat(h.deployment("rich").getStatus().getCollisionCount()).isNull();
        assertThat(d.getStatus().getObservedGeneration())
                .isEqualTo(d.getMetadata().getGeneration());
    }
}
