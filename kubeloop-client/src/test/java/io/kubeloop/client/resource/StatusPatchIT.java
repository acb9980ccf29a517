package io.kubeloop.client.resource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.codec.Decoding;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.errors.ConflictException;
import io.kubeloop.client.errors.NotFoundException;
import io.kubeloop.client.transport.RateLimiter;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@link ResourceClient#patchStatus} and {@link ResourceClient#serverSideApplyStatus}: every patch format through
 * the status subresource, over HTTP against the embedded API server.
 */
class StatusPatchIT {

    private static EmbeddedApiServer server;
    private static KubernetesClient client;
    private static ResourceClient<Pod> pods;

    @BeforeAll
    static void start() {
        server = EmbeddedApiServer.builder().start();
        client = KubernetesClient.builder(ClientConfig.builder()
                        .server(server.url())
                        .namespace("default")
                        .build())
                .rateLimiter(RateLimiter.unlimited())
                .build();
        ConfigMaps.in(client, "status-patch");
        pods = client.resources(Pod.class).inNamespace("status-patch");
    }

    @AfterAll
    static void stop() {
        client.close();
        server.close();
    }

    private static Pod pod(String name) {
        return pods.create(new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .addToLabels("app", "web")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("c")
                .withImage("nginx:1.27")
                .endContainer()
                .endSpec()
                .build());
    }

    @Test
    void aMergePatchOfTheStatusChangesTheStatusAndNothingElse() {
        pod("merge");
        Pod patched = pods.patchStatus(
                "merge",
                PatchType.MERGE,
                "{\"metadata\":{\"labels\":{\"app\":\"changed\"}},\"status\":{\"phase\":\"Running\"}}",
                PatchOptions.none());

        assertThat(patched.getStatus().getPhase()).isEqualTo("Running");
        assertThat(patched.getMetadata().getLabels()).containsEntry("app", "web");
        assertThat(pods.get("merge")).get().satisfies(p -> {
            assertThat(p.getStatus().getPhase()).isEqualTo("Running");
            assertThat(p.getMetadata().getLabels()).containsEntry("app", "web");
        });
    }

    @Test
    void jsonAndStrategicPatchesOfTheStatus() {
        pod("json");
        Pod json = pods.patchStatus(
                "json",
                PatchType.JSON,
                "[{\"op\":\"add\",\"path\":\"/status\",\"value\":{\"phase\":\"Pending\"}}]",
                PatchOptions.none());
        assertThat(json.getStatus().getPhase()).isEqualTo("Pending");

        Pod strategic = pods.patchStatus(
                "json",
                PatchType.STRATEGIC,
                "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}",
                PatchOptions.none());
        assertThat(strategic.getStatus().getPhase()).isEqualTo("Pending");
        assertThat(strategic.getStatus().getConditions())
                .extracting(PodCondition::getType)
                .contains("Ready");
    }

    @Test
    void aMergePatchWithAStaleResourceVersionIsAConflict() {
        Pod created = pod("stale");
        pods.patchStatus("stale", PatchType.MERGE, "{\"status\":{\"phase\":\"Running\"}}", PatchOptions.none());

        String stale = "{\"metadata\":{\"resourceVersion\":\""
                + created.getMetadata().getResourceVersion() + "\"},\"status\":{\"phase\":\"Failed\"}}";
        assertThatThrownBy(() -> pods.patchStatus("stale", PatchType.MERGE, stale, PatchOptions.none()))
                .isInstanceOf(ConflictException.class);
        assertThat(pods.get("stale").orElseThrow().getStatus().getPhase()).isEqualTo("Running");
    }

    @Test
    void serverSideApplyOfTheStatusOwnsTheStatusFieldsItSends() {
        pod("apply");
        Pod desired = new PodBuilder()
                .withNewMetadata()
                .withName("apply")
                .addToLabels("ignored", "by-the-status-subresource")
                .endMetadata()
                .withNewStatus()
                .withConditions(new PodConditionBuilder()
                        .withType("Ready")
                        .withStatus("False")
                        .build())
                .endStatus()
                .build();

        Pod applied = pods.serverSideApplyStatus(desired, "status-writer", true);

        assertThat(applied.getStatus().getConditions())
                .extracting(PodCondition::getType, PodCondition::getStatus)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("Ready", "False"));
        assertThat(applied.getMetadata().getLabels()).doesNotContainKey("ignored");
        assertThat(applied.getSpec().getContainers()).hasSize(1);
    }

    @Test
    void applyThroughPatchStatusNeedsAFieldManagerAndATypeWithoutStatusIsNotFound() {
        pod("no-manager");
        assertThatThrownBy(() -> pods.patchStatus("no-manager", PatchType.APPLY, "{}", PatchOptions.none()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fieldManager");

        ResourceClient<ConfigMap> cms = client.resources(ConfigMap.class).inNamespace("status-patch");
        cms.create(ConfigMaps.of("no-status", Map.of(), Map.of("k", "v")));
        assertThatThrownBy(() -> cms.patchStatus("no-status", PatchType.MERGE, "{}", PatchOptions.none()))
                .isInstanceOf(NotFoundException.class);
    }

    @Test
    void mergePatchesDiffIsThePatchFromOneObjectToAnother() {
        JsonMapper json = Decoding.standard().mapper();
        ObjectNode before = json.readValue("{\"a\":1,\"b\":{\"c\":2,\"d\":3},\"e\":[1]}", ObjectNode.class);
        ObjectNode after = json.readValue("{\"a\":1,\"b\":{\"c\":5},\"e\":[1,2],\"f\":\"new\"}", ObjectNode.class);

        assertThat(json.writeValueAsString(MergePatches.diff(before, after)))
                .isEqualTo("{\"b\":{\"c\":5,\"d\":null},\"e\":[1,2],\"f\":\"new\"}");
        assertThat(MergePatches.diff(after, after).isEmpty()).isTrue();
    }
}
