package io.kubeloop.controller.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.errors.ConflictException;
import io.kubeloop.client.errors.NotFoundException;
import io.kubeloop.client.resource.DeleteOptions;
import io.kubeloop.client.resource.PatchType;
import io.kubeloop.controller.ControllerClient;
import io.kubeloop.controller.ControllerClient.OperationResult;
import io.kubeloop.controller.Finalizers;
import io.kubeloop.controller.Manager;
import io.kubeloop.controller.OwnerReferences;
import io.kubeloop.testkit.KubeloopTest;
import io.kubeloop.testkit.TestNamespace;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Every write of {@link ControllerClient}, and createOrUpdate / createOrPatch, against the embedded API server. */
@KubeloopTest
class ControllerClientWritesIT {

    private Manager manager;

    @AfterEach
    void close() {
        if (manager != null) {
            manager.close();
        }
    }

    /** A started manager whose cache holds config maps and pods, reading its own writes. */
    private ControllerClient client(KubernetesClient client) throws Exception {
        manager = Manager.builder(client)
                .metricsPort(0)
                .healthProbePort(0)
                .readYourOwnWrites(true)
                .build();
        manager.informerFactory().informerFor(ConfigMap.class);
        manager.informerFactory().informerFor(Pod.class);
        manager.start();
        return manager.client();
    }

    private static ConfigMap configMap(String ns, String name, Map<String, String> data) {
        return new ConfigMapBuilder()
                .withNewMetadata()
                .withNamespace(ns)
                .withName(name)
                .endMetadata()
                .withData(new HashMap<>(data))
                .build();
    }

    private static Pod pod(String ns, String name) {
        return new PodBuilder()
                .withNewMetadata()
                .withNamespace(ns)
                .withName(name)
                .addToLabels("app", "web")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("c")
                .withImage("nginx:1.27")
                .endContainer()
                .endSpec()
                .build();
    }

    @Test
    void createUpdateAndAStaleUpdateIsAConflict(KubernetesClient kc, @TestNamespace String ns) throws Exception {
        ControllerClient client = client(kc);
        ConfigMap created = client.create(configMap(ns, "a", Map.of("k", "1")));
        assertThat(created.getMetadata().getResourceVersion()).isNotEmpty();

        ConfigMap copy = client.get(ConfigMap.class, ns, "a").orElseThrow();
        copy.getData().put("k", "2");
        ConfigMap updated = client.update(copy);
        assertThat(updated.getData()).containsEntry("k", "2");

        created.getData().put("k", "stale");
        assertThatThrownBy(() -> client.update(created)).isInstanceOf(ConflictException.class);
        assertThat(kc.resources(ConfigMap.class)
                        .inNamespace(ns)
                        .get("a")
                        .orElseThrow()
                        .getData())
                .containsEntry("k", "2");
    }

    @Test
    void everyPatchFormat(KubernetesClient kc, @TestNamespace String ns) throws Exception {
        ControllerClient client = client(kc);
        ConfigMap cm = client.create(configMap(ns, "a", Map.of("k", "1")));

        assertThat(client.patch(cm, PatchType.MERGE, "{\"data\":{\"merge\":\"yes\"}}")
                        .getData())
                .containsEntry("merge", "yes");
        assertThat(client.patch(cm, PatchType.JSON, "[{\"op\":\"add\",\"path\":\"/data/json\",\"value\":\"yes\"}]")
                        .getData())
                .containsEntry("json", "yes");
        assertThat(client.patch(cm, PatchType.STRATEGIC, "{\"data\":{\"strategic\":\"yes\"}}")
                        .getData())
                .containsEntry("strategic", "yes")
                .containsEntry("merge", "yes");

        ConfigMap applied = client.apply(
                new ConfigMapBuilder()
                        .withNewMetadata()
                        .withNamespace(ns)
                        .withName("a")
                        .endMetadata()
                        .withData(Map.of("applied", "yes"))
                        .build(),
                "my-controller",
                true);
        assertThat(applied.getData()).containsEntry("applied", "yes").containsEntry("k", "1");
        assertThat(applied.getMetadata().getManagedFields())
                .anyMatch(f -> f.getManager().equals("my-controller"));

        ConfigMap original = client.get(ConfigMap.class, ns, "a").orElseThrow();
        ConfigMap modified = client.get(ConfigMap.class, ns, "a").orElseThrow();
        modified.getData().remove("json");
        modified.getData().put("diff", "yes");
        ConfigMap patched = client.patch(original, modified);
        assertThat(patched.getData()).containsEntry("diff", "yes").doesNotContainKey("json");
        assertThat(client.patch(patched, client.get(ConfigMap.class, ns, "a").orElseThrow()))
                .as("nothing changed: nothing sent")
                .isNotNull();

        modified.getData().put("again", "stale original");
        assertThatThrownBy(() -> client.patch(original, modified))
                .as("the original's resourceVersion is a precondition")
                .isInstanceOf(ConflictException.class);
    }

    @Test
    void statusUpdateStatusPatchesAndStatusApply(KubernetesClient kc, @TestNamespace String ns) throws Exception {
        ControllerClient client = client(kc);
        Pod created = client.create(pod(ns, "p"));

        Pod withStatus = client.get(Pod.class, ns, "p").orElseThrow();
        withStatus.setStatus(new PodStatusBuilder().withPhase("Pending").build());
        withStatus.getMetadata().getLabels().put("app", "ignored by the status subresource");
        assertThat(client.updateStatus(withStatus).getStatus().getPhase()).isEqualTo("Pending");
        assertThat(client.get(Pod.class, ns, "p").orElseThrow().getMetadata().getLabels())
                .containsEntry("app", "web");

        assertThat(client.patchStatus(created, PatchType.MERGE, "{\"status\":{\"phase\":\"Running\"}}")
                        .getStatus()
                        .getPhase())
                .isEqualTo("Running");

        Pod original = client.get(Pod.class, ns, "p").orElseThrow();
        Pod modified = client.get(Pod.class, ns, "p").orElseThrow();
        status(modified).setMessage("from a diff");
        modified.getMetadata().getLabels().put("app", "not sent: status only");
        Pod patched = client.patchStatus(original, modified);
        assertThat(patched.getStatus().getMessage()).isEqualTo("from a diff");
        assertThat(patched.getStatus().getPhase()).isEqualTo("Running");
        assertThat(patched.getMetadata().getLabels()).containsEntry("app", "web");

        Pod applied = client.applyStatus(
                new PodBuilder()
                        .withNewMetadata()
                        .withNamespace(ns)
                        .withName("p")
                        .endMetadata()
                        .withNewStatus()
                        .withConditions(new PodConditionBuilder()
                                .withType("Ready")
                                .withStatus("True")
                                .build())
                        .endStatus()
                        .build(),
                "my-controller",
                true);
        assertThat(applied.getStatus().getConditions())
                .extracting(PodCondition::getType)
                .contains("Ready");
    }

    @Test
    void deleteWithPreconditionsAndPropagation(KubernetesClient kc, @TestNamespace String ns) throws Exception {
        ControllerClient client = client(kc);
        ConfigMap a = client.create(configMap(ns, "a", Map.of()));
        ConfigMap changed = client.get(ConfigMap.class, ns, "a").orElseThrow();
        changed.getData().put("k", "changed"); // a no-op update would keep the resourceVersion
        client.update(changed);

        assertThatThrownBy(() -> client.delete(
                        a,
                        DeleteOptions.defaults()
                                .withPreconditions(
                                        a.getMetadata().getUid(),
                                        a.getMetadata().getResourceVersion())))
                .as("a stale resourceVersion precondition")
                .isInstanceOf(ConflictException.class);
        assertThatThrownBy(() -> client.delete(a, DeleteOptions.defaults().withPreconditions("other-uid", null)))
                .isInstanceOf(ConflictException.class);

        client.delete(a, DeleteOptions.defaults().withPropagation(DeleteOptions.Propagation.FOREGROUND));
        assertThat(client.get(ConfigMap.class, ns, "a").stream())
                .as("read-your-own-writes: gone, or held by the foregroundDeletion finalizer a moment longer")
                .allSatisfy(cm ->
                        assertThat(cm.getMetadata().getDeletionTimestamp()).isNotNull());
        await().atMost(Duration.ofSeconds(10))
                .until(() -> client.get(ConfigMap.class, ns, "a").isEmpty());
        assertThatThrownBy(() -> client.delete(a)).isInstanceOf(NotFoundException.class);

        ConfigMap b = client.create(configMap(ns, "b", Map.of()));
        client.delete(b);
        assertThat(client.get(ConfigMap.class, ns, "b"))
                .as("read-your-own-writes: gone")
                .isEmpty();

        ConfigMap held = configMap(ns, "held", Map.of());
        Finalizers.add(held, "example.com/hold");
        client.create(held);
        assertThat(client.delete(held, DeleteOptions.defaults().withPropagation(DeleteOptions.Propagation.BACKGROUND)))
                .get()
                .satisfies(cm ->
                        assertThat(cm.getMetadata().getDeletionTimestamp()).isNotNull());
        ConfigMap terminating = client.get(ConfigMap.class, ns, "held").orElseThrow();
        assertThat(terminating.getMetadata().getDeletionTimestamp()).isNotNull();
        assertThat(Finalizers.remove(terminating, "example.com/hold")).isTrue();
        client.update(terminating);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> client.get(ConfigMap.class, ns, "held").isEmpty());
    }

    @Test
    void createOrUpdateEachOutcome(KubernetesClient kc, @TestNamespace String ns) throws Exception {
        ControllerClient client = client(kc);

        assertThat(client.createOrUpdate(
                        configMap(ns, "a", Map.of()), cm -> cm.getData().put("k", "1")))
                .isEqualTo(OperationResult.CREATED);
        assertThat(client.createOrUpdate(
                        configMap(ns, "a", Map.of()), cm -> cm.getData().put("k", "1")))
                .isEqualTo(OperationResult.UNCHANGED);
        assertThat(client.createOrUpdate(
                        configMap(ns, "a", Map.of()), cm -> cm.getData().put("k", "2")))
                .isEqualTo(OperationResult.UPDATED);
        assertThat(kc.resources(ConfigMap.class)
                        .inNamespace(ns)
                        .get("a")
                        .orElseThrow()
                        .getData())
                .isEqualTo(Map.of("k", "2"));

        assertThatThrownBy(() -> client.createOrUpdate(
                        configMap(ns, "a", Map.of()), cm -> cm.getMetadata().setName("b")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must not change the name or namespace");
    }

    @Test
    void createOrUpdateOnAStaleCacheIsAConflict(KubernetesClient kc, @TestNamespace String ns) throws Exception {
        manager = Manager.builder(kc).metricsPort(0).healthProbePort(0).build(); // no read-your-own-writes
        manager.informerFactory().informerFor(ConfigMap.class);
        manager.start();
        ControllerClient client = manager.client();
        client.create(configMap(ns, "a", Map.of("k", "1")));
        await().until(() -> client.get(ConfigMap.class, ns, "a").isPresent());

        manager.informerFactory().informerFor(ConfigMap.class).stop(); // the cache stays as it is: stale from now
        kc.resources(ConfigMap.class).inNamespace(ns).edit("a", cm -> {
            cm.getData().put("other", "writer");
            return cm;
        });

        assertThatThrownBy(() -> client.createOrUpdate(
                        configMap(ns, "a", Map.of()), cm -> cm.getData().put("k", "2")))
                .isInstanceOf(ConflictException.class);
        assertThatThrownBy(() -> client.createOrPatch(
                        configMap(ns, "a", Map.of()), cm -> cm.getData().put("k", "2")))
                .isInstanceOf(ConflictException.class);
        assertThat(kc.resources(ConfigMap.class)
                        .inNamespace(ns)
                        .get("a")
                        .orElseThrow()
                        .getData())
                .isEqualTo(Map.of("k", "1", "other", "writer"));
    }

    @Test
    void createOrPatchEachOutcome(KubernetesClient kc, @TestNamespace String ns) throws Exception {
        ControllerClient client = client(kc);

        assertThat(client.createOrPatch(
                        pod(ns, "p"), p -> p.getMetadata().getLabels().put("tier", "1")))
                .isEqualTo(OperationResult.CREATED);
        assertThat(client.createOrPatch(
                        pod(ns, "p"), p -> p.getMetadata().getLabels().put("tier", "1")))
                .isEqualTo(OperationResult.UNCHANGED);
        assertThat(client.createOrPatch(
                        pod(ns, "p"), p -> p.getMetadata().getLabels().put("tier", "2")))
                .isEqualTo(OperationResult.UPDATED);
        assertThat(client.createOrPatch(pod(ns, "p"), p -> status(p).setMessage("status only")))
                .isEqualTo(OperationResult.UPDATED_STATUS_ONLY);
        assertThat(client.createOrPatch(pod(ns, "p"), p -> {
                    p.getMetadata().getLabels().put("tier", "3");
                    status(p).setMessage("both");
                }))
                .isEqualTo(OperationResult.UPDATED_STATUS);

        Pod onServer = kc.resources(Pod.class).inNamespace(ns).get("p").orElseThrow();
        assertThat(onServer.getMetadata().getLabels())
                .containsEntry("tier", "3")
                .containsEntry("app", "web");
        assertThat(onServer.getStatus().getMessage()).isEqualTo("both");
    }

    private static io.fabric8.kubernetes.api.model.PodStatus status(Pod pod) {
        if (pod.getStatus() == null) {
            pod.setStatus(new io.fabric8.kubernetes.api.model.PodStatus());
        }
        return pod.getStatus();
    }

    @Test
    void ownerReferencesWrittenWithTheClientAreHonouredByTheGarbageCollector(
            KubernetesClient kc, @TestNamespace String ns) throws Exception {
        ControllerClient client = client(kc);
        ConfigMap owner = client.create(configMap(ns, "owner", Map.of()));
        ConfigMap child = configMap(ns, "child", Map.of());
        OwnerReferences.setControllerReference(owner, child);
        client.create(child);
        assertThat(OwnerReferences.controllerOf(
                        client.get(ConfigMap.class, ns, "child").orElseThrow()))
                .get()
                .satisfies(ref ->
                        assertThat(ref.getUid()).isEqualTo(owner.getMetadata().getUid()));

        client.delete(owner);
        await().atMost(Duration.ofSeconds(20)).until(() -> kc.resources(ConfigMap.class)
                .inNamespace(ns)
                .get("child")
                .isEmpty());
    }
}
