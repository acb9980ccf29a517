package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.apiserver.ApiClient.Reply;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** PATCH in its four content types, and the scale subresource, over real HTTP. */
class PatchIT extends EmbeddedServerTest {

    private static final String DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments";
    private static final String DEPLOYMENT =
            "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":"
                    + "\"web\",\"labels\":{\"app\":\"web\"}},\"spec\":{\"replicas\":2,\"selector\":{\"matchLabels\":{\"app\":"
                    + "\"web\"}},\"template\":{\"metadata\":{\"labels\":{\"app\":\"web\"}},\"spec\":{\"containers\":["
                    + "{\"name\":\"nginx\",\"image\":\"nginx:1.25\"},{\"name\":\"sidecar\",\"image\":\"busybox\"}]}}}}";

    @Test
    void mergePatchAddsALabelAsKubectlLabelDoes() {
        api.create(DEPLOYMENTS, DEPLOYMENT);
        Reply r = api.request(
                "PATCH",
                DEPLOYMENTS + "/web",
                "application/merge-patch+json",
                "{\"metadata\":{\"labels\":{\"tier\":\"front\"}}}");
        assertThat(r.code()).as(r.raw()).isEqualTo(200);
        assertThat(r.body().get("metadata").get("labels").get("tier").asString())
                .isEqualTo("front");
        assertThat(r.body().get("metadata").get("labels").get("app").asString()).isEqualTo("web");
        assertThat(r.body().get("metadata").get("generation").asLong())
                .as("labels are not spec")
                .isEqualTo(1);
    }

    @Test
    void strategicMergePatchMergesContainersByName() {
        api.create(DEPLOYMENTS, DEPLOYMENT);
        Reply r = api.request(
                "PATCH",
                DEPLOYMENTS + "/web",
                "application/strategic-merge-patch+json",
                "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"nginx\",\"image\":\"nginx:1.27\"}]}}}}");
        assertThat(r.code()).as(r.raw()).isEqualTo(200);
        JsonNode containers = r.body().get("spec").get("template").get("spec").get("containers");
        assertThat(containers).hasSize(2);
        assertThat(containers.get(0).get("image").asString()).isEqualTo("nginx:1.27");
        assertThat(containers.get(1).get("name").asString()).isEqualTo("sidecar");
        assertThat(r.body().get("metadata").get("generation").asLong()).isEqualTo(2);

        Reply merge = api.request(
                "PATCH",
                DEPLOYMENTS + "/web",
                "application/merge-patch+json",
                "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"only\",\"image\":\"x\"}]}}}}");
        assertThat(merge.body().get("spec").get("template").get("spec").get("containers"))
                .as("a merge patch replaces lists")
                .hasSize(1);
    }

    @Test
    void jsonPatchAppliesOperationsAndReportsFailures() {
        api.create(DEPLOYMENTS, DEPLOYMENT);
        Reply r = api.request(
                "PATCH",
                DEPLOYMENTS + "/web",
                "application/json-patch+json",
                "[{\"op\":\"replace\",\"path\":\"/spec/replicas\",\"value\":5}]");
        assertThat(r.code()).as(r.raw()).isEqualTo(200);
        assertThat(r.body().get("spec").get("replicas").asInt()).isEqualTo(5);

        Reply failed = api.request(
                "PATCH",
                DEPLOYMENTS + "/web",
                "application/json-patch+json",
                "[{\"op\":\"test\",\"path\":\"/spec/replicas\",\"value\":1}]");
        assertThat(failed.code()).isEqualTo(422);
        Reply malformed = api.request("PATCH", DEPLOYMENTS + "/web", "application/json-patch+json", "{}");
        assertThat(malformed.code()).isEqualTo(400);
    }

    @Test
    void patchErrors() {
        assertThat(api.request("PATCH", DEPLOYMENTS + "/nope", "application/merge-patch+json", "{}")
                        .code())
                .isEqualTo(404);
        api.create(DEPLOYMENTS, DEPLOYMENT);
        Reply wrongType = api.request("PATCH", DEPLOYMENTS + "/web", "text/plain", "{}");
        assertThat(wrongType.code()).isEqualTo(415);
        Reply stale = api.request(
                "PATCH",
                DEPLOYMENTS + "/web",
                "application/merge-patch+json",
                "{\"metadata\":{\"resourceVersion\":\"1\",\"labels\":{\"a\":\"b\"}}}");
        assertThat(stale.code()).isEqualTo(409);
    }

    @Test
    void serverSideApplyCreatesThenUpdatesAndRecordsManagedFields() {
        String applied =
                "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"cfg\"},\"data\":{\"a\":\"1\"}}";
        Reply missingManager = api.request(
                "PATCH", "/api/v1/namespaces/default/configmaps/cfg", "application/apply-patch+yaml", applied);
        assertThat(missingManager.code()).isEqualTo(422);

        Reply created = api.request(
                "PATCH",
                "/api/v1/namespaces/default/configmaps/cfg?fieldManager=kubectl",
                "application/apply-patch+yaml",
                applied);
        assertThat(created.code()).as(created.raw()).isEqualTo(201);
        assertThat(created.body()
                        .get("metadata")
                        .get("managedFields")
                        .get(0)
                        .get("manager")
                        .asString())
                .isEqualTo("kubectl");
        Reply updated = api.request(
                "PATCH",
                "/api/v1/namespaces/default/configmaps/cfg?fieldManager=kubectl",
                "application/apply-patch+yaml",
                applied.replace("\"1\"", "\"2\""));
        assertThat(updated.code()).isEqualTo(200);
        assertThat(updated.body().get("data").get("a").asString()).isEqualTo("2");
    }

    @Test
    void scaleSubresourceReadsAndWritesReplicas() {
        api.create(DEPLOYMENTS, DEPLOYMENT);
        Reply scale = api.get(DEPLOYMENTS + "/web/scale");
        assertThat(scale.code()).isEqualTo(200);
        assertThat(scale.body().get("apiVersion").asString()).isEqualTo("autoscaling/v1");
        assertThat(scale.body().get("kind").asString()).isEqualTo("Scale");
        assertThat(scale.body().get("spec").get("replicas").asInt()).isEqualTo(2);
        assertThat(scale.body().get("status").get("selector").asString()).isEqualTo("app=web");

        // kubectl scale --current-replicas: GET, then PUT of the Scale with no Content-Type at all.
        Reply put = api.request(
                "PUT",
                DEPLOYMENTS + "/web/scale",
                null,
                scale.body().toString().replace("\"replicas\":2", "\"replicas\":4"));
        assertThat(put.code()).as(put.raw()).isEqualTo(200);
        assertThat(put.body().get("spec").get("replicas").asInt()).isEqualTo(4);
        Reply stale = api.request(
                "PUT", DEPLOYMENTS + "/web/scale", null, scale.body().toString());
        assertThat(stale.code()).as("the old Scale's resourceVersion is stale").isEqualTo(409);

        // kubectl scale: a merge patch on /scale.
        Reply patched = api.request(
                "PATCH", DEPLOYMENTS + "/web/scale", "application/merge-patch+json", "{\"spec\":{\"replicas\":7}}");
        assertThat(patched.body().get("spec").get("replicas").asInt()).isEqualTo(7);
        assertThat(api.get(DEPLOYMENTS + "/web")
                        .body()
                        .get("spec")
                        .get("replicas")
                        .asInt())
                .isEqualTo(7);

        Reply negative = api.request(
                "PATCH", DEPLOYMENTS + "/web/scale", "application/merge-patch+json", "{\"spec\":{\"replicas\":-1}}");
        assertThat(negative.code()).isEqualTo(422);
        assertThat(api.get("/api/v1/namespaces/default/pods/x/scale").code())
                .as("pods have no scale")
                .isEqualTo(404);
    }
}
