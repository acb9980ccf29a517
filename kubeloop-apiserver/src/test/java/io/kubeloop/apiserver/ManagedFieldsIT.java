package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.apiserver.ApiClient.Reply;
import io.kubeloop.clock.FakeClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** {@code metadata.managedFields} after each kind of write, over real HTTP (and with the real kubectl). */
class ManagedFieldsIT extends EmbeddedServerTest {

    private static final String DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments";
    private static final String DEPLOYMENT =
            "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":"
                    + "\"web\",\"labels\":{\"app\":\"web\"}},\"spec\":{\"replicas\":2,\"selector\":{\"matchLabels\":{\"app\":"
                    + "\"web\"}},\"template\":{\"metadata\":{\"labels\":{\"app\":\"web\"}},\"spec\":{\"containers\":["
                    + "{\"name\":\"nginx\",\"image\":\"nginx:1.25\"}]}}}}";
    /** What the creator owns: what it sent and the defaults kube sets while decoding (not the status reset). */
    private static final String CREATED_FIELDS = "{\"f:metadata\":{\"f:labels\":{\".\":{},\"f:app\":{}}},"
            + "\"f:spec\":{\"f:progressDeadlineSeconds\":{},\"f:replicas\":{},\"f:revisionHistoryLimit\":{},"
            + "\"f:selector\":{},\"f:strategy\":{\"f:rollingUpdate\":{\"f:maxSurge\":{},\"f:maxUnavailable\":{}},"
            + "\"f:type\":{}},\"f:template\":{\"f:metadata\":{\"f:labels\":{\".\":{},\"f:app\":{}}},"
            + "\"f:spec\":{\"f:containers\":{\".\":{},\"k:{\\\"name\\\":\\\"nginx\\\"}\":{\".\":{},"
            + "\"f:image\":{},\"f:imagePullPolicy\":{},\"f:name\":{},\"f:resources\":{},"
            + "\"f:terminationMessagePath\":{},\"f:terminationMessagePolicy\":{}}},\"f:dnsPolicy\":{},"
            + "\"f:restartPolicy\":{},\"f:schedulerName\":{},\"f:securityContext\":{},"
            + "\"f:terminationGracePeriodSeconds\":{}}}}}";

    private static final String T0 = "2026-03-01T10:00:00Z";
    private static final String T1 = "2026-03-01T10:01:00Z";

    private final FakeClock clock = new FakeClock(Instant.parse(T0));

    @TempDir
    Path dir;

    @Override
    EmbeddedApiServer.Builder configure(EmbeddedApiServer.Builder builder) {
        return builder.clock(clock);
    }

    private static String entry(String manager, String time, String fields, String subresource) {
        return "{\"manager\":\"" + manager + "\",\"operation\":\"Update\",\"apiVersion\":\"apps/v1\",\"time\":\"" + time
                + "\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":" + fields
                + (subresource == null ? "" : ",\"subresource\":\"" + subresource + "\"") + "}";
    }

    private static String managed(Reply r) {
        assertThat(r.code()).as(r.raw()).isBetween(200, 201);
        return r.body().get("metadata").get("managedFields").toString();
    }

    @Test
    void createRecordsTheFieldManagerParameter() {
        Reply r = api.request("POST", DEPLOYMENTS + "?fieldManager=me", "application/json", DEPLOYMENT);
        assertThat(managed(r)).isEqualTo("[" + entry("me", T0, CREATED_FIELDS, null) + "]");
        assertThat(api.get(DEPLOYMENTS + "/web")
                        .body()
                        .get("metadata")
                        .get("managedFields")
                        .toString())
                .as("stored as returned")
                .isEqualTo(managed(r));
    }

    @Test
    void createWithoutAParameterTakesTheManagerFromTheUserAgent() {
        Reply r = api.request(
                "POST",
                DEPLOYMENTS,
                "application/json",
                DEPLOYMENT,
                Map.of("User-Agent", "my-controller/v1.2.3 (linux/amd64) kubernetes/abcdef"));
        assertThat(managed(r)).isEqualTo("[" + entry("my-controller", T0, CREATED_FIELDS, null) + "]");
    }

    @Test
    void updateAndMergePatchByOtherManagersTakeTheFieldsTheyChange() {
        JsonNode created = api.request(
                        "POST", DEPLOYMENTS + "?fieldManager=kubectl-create", "application/json", DEPLOYMENT)
                .body();
        clock.step(Duration.ofMinutes(1));
        String edited = created.toString().replace("\"image\":\"nginx:1.25\"", "\"image\":\"nginx:1.27\"");
        Reply put = api.request("PUT", DEPLOYMENTS + "/web?fieldManager=kubectl-edit", "application/json", edited);
        String withoutImage = CREATED_FIELDS.replace("\"f:image\":{},", "");
        String editFields =
                "{\"f:spec\":{\"f:template\":{\"f:spec\":{\"f:containers\":{\"k:{\\\"name\\\":\\\"nginx\\\"}\":"
                        + "{\"f:image\":{}}}}}}}";
        assertThat(managed(put))
                .isEqualTo("[" + entry("kubectl-create", T0, withoutImage, null) + ","
                        + entry("kubectl-edit", T1, editFields, null) + "]");

        clock.step(Duration.ofMinutes(1));
        Reply label = api.request(
                "PATCH",
                DEPLOYMENTS + "/web?fieldManager=kubectl-label",
                "application/merge-patch+json",
                "{\"metadata\":{\"labels\":{\"tier\":\"front\",\"app\":\"web2\"}}}");
        assertThat(managed(label))
                .isEqualTo("["
                        + entry(
                                "kubectl-create",
                                T0,
                                withoutImage.replaceFirst("\\{\"\\.\":\\{},\"f:app\":\\{}}", "{}"),
                                null)
                        + ","
                        + entry("kubectl-edit", T1, editFields, null) + ","
                        + entry(
                                "kubectl-label",
                                "2026-03-01T10:02:00Z",
                                "{\"f:metadata\":{\"f:labels\":{\"f:app\":{},\"f:tier\":{}}}}",
                                null)
                        + "]");
    }

    @Test
    void statusAndScaleWritesRecordTheirSubresource() {
        api.request("POST", DEPLOYMENTS + "?fieldManager=kubectl-create", "application/json", DEPLOYMENT);
        clock.step(Duration.ofMinutes(1));
        JsonNode current = api.get(DEPLOYMENTS + "/web").body();
        String withStatus = current.toString().replaceFirst("}$", ",\"status\":{\"replicas\":2,\"readyReplicas\":2}}");
        Reply status = api.request(
                "PUT",
                DEPLOYMENTS + "/web/status?fieldManager=kube-controller-manager",
                "application/json",
                withStatus);
        assertThat(managed(status))
                .isEqualTo("[" + entry("kubectl-create", T0, CREATED_FIELDS, null) + ","
                        + entry(
                                "kube-controller-manager",
                                T1,
                                "{\"f:status\":{\"f:readyReplicas\":{},\"f:replicas\":{}}}",
                                "status")
                        + "]");

        Reply scale = api.request(
                "PATCH",
                DEPLOYMENTS + "/web/scale",
                "application/merge-patch+json",
                "{\"spec\":{\"replicas\":5}}",
                Map.of("User-Agent", "kubectl/v1.32.4 (linux/amd64) kubernetes/abc"));
        assertThat(scale.code()).as(scale.raw()).isEqualTo(200);
        assertThat(scale.body().get("kind").asString()).isEqualTo("Scale");
        assertThat(api.get(DEPLOYMENTS + "/web")
                        .body()
                        .get("metadata")
                        .get("managedFields")
                        .toString())
                .isEqualTo("[" + entry("kubectl-create", T0, CREATED_FIELDS.replace("\"f:replicas\":{},", ""), null)
                        + ","
                        + entry(
                                "kube-controller-manager",
                                T1,
                                "{\"f:status\":{\"f:readyReplicas\":{},\"f:replicas\":{}}}",
                                "status")
                        + "," + entry("kubectl", T1, "{\"f:spec\":{\"f:replicas\":{}}}", "scale") + "]");
    }

    @Test
    void aWriteThatChangesNothingKeepsResourceVersionAndManagedFields() {
        JsonNode created = api.request(
                        "POST", DEPLOYMENTS + "?fieldManager=kubectl-create", "application/json", DEPLOYMENT)
                .body();
        clock.step(Duration.ofMinutes(1));
        String rv = created.get("metadata").get("resourceVersion").asString();
        String managed = created.get("metadata").get("managedFields").toString();

        Reply put = api.request("PUT", DEPLOYMENTS + "/web?fieldManager=other", "application/json", created.toString());
        Reply patch = api.request(
                "PATCH",
                DEPLOYMENTS + "/web?fieldManager=other",
                "application/merge-patch+json",
                "{\"spec\":{\"replicas\":2}}");
        Reply scale = api.request(
                "PATCH",
                DEPLOYMENTS + "/web/scale?fieldManager=other",
                "application/merge-patch+json",
                "{\"spec\":{\"replicas\":2}}");
        String withoutManaged = created.toString()
                .replace("\"managedFields\":" + managed + ",", "")
                .replace(",\"managedFields\":" + managed, "");
        Reply putWithout =
                api.request("PUT", DEPLOYMENTS + "/web?fieldManager=other", "application/json", withoutManaged);
        for (Reply r : new Reply[] {put, patch, putWithout}) {
            assertThat(r.code()).as(r.raw()).isEqualTo(200);
            assertThat(r.body().get("metadata").get("resourceVersion").asString())
                    .isEqualTo(rv);
            assertThat(r.body().get("metadata").get("managedFields").toString()).isEqualTo(managed);
        }
        assertThat(scale.body().get("metadata").get("resourceVersion").asString())
                .isEqualTo(rv);
        assertThat(api.get(DEPLOYMENTS + "/web")
                        .body()
                        .get("metadata")
                        .get("managedFields")
                        .toString())
                .isEqualTo(managed);
    }

    @Test
    void aFieldManagerOver128BytesIsInvalid() {
        String tooLong = "m".repeat(129);
        Reply create = api.request("POST", DEPLOYMENTS + "?fieldManager=" + tooLong, "application/json", DEPLOYMENT);
        assertThat(create.code()).isEqualTo(422);
        assertThat(create.body().get("message").asString())
                .isEqualTo(
                        "CreateOptions.meta.k8s.io \"\" is invalid: fieldManager: Too long: may not be more than 128 bytes");
        api.request("POST", DEPLOYMENTS + "?fieldManager=" + "m".repeat(128), "application/json", DEPLOYMENT);
        Reply patch = api.request(
                "PATCH", DEPLOYMENTS + "/web?fieldManager=" + tooLong, "application/merge-patch+json", "{}");
        assertThat(patch.code()).isEqualTo(422);
        assertThat(patch.body().get("message").asString()).startsWith("PatchOptions.meta.k8s.io \"\" is invalid");
    }

    @Test
    void serverSideApplyThenAnUpdateByAnotherManager() {
        String applied = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"cfg\"},"
                + "\"data\":{\"a\":\"1\",\"b\":\"2\"}}";
        Reply r = api.request(
                "PATCH",
                "/api/v1/namespaces/default/configmaps/cfg?fieldManager=kubectl",
                "application/apply-patch+yaml",
                applied);
        assertThat(r.code()).as(r.raw()).isEqualTo(201);
        clock.step(Duration.ofMinutes(1));
        Reply patch = api.request(
                "PATCH",
                "/api/v1/namespaces/default/configmaps/cfg?fieldManager=kubectl-patch",
                "application/merge-patch+json",
                "{\"data\":{\"a\":\"9\"}}");
        assertThat(managed(patch))
                .isEqualTo("[{\"manager\":\"kubectl\",\"operation\":\"Apply\",\"apiVersion\":\"v1\","
                        + "\"time\":\"" + T0 + "\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:data\":{\"f:b\":{}}}},"
                        + "{\"manager\":\"kubectl-patch\",\"operation\":\"Update\",\"apiVersion\":\"v1\",\"time\":\""
                        + T1
                        + "\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:data\":{\"f:a\":{}}}}]");
    }

    @Test
    void kubectlCreateThenScale() throws Exception {
        Kubectl.assumeInstalled();
        Kubectl kubectl = new Kubectl(server, dir);
        kubectl.runWithInput(KubectlTest.DEPLOYMENT_YAML, "create", "-f", "-").ok();
        clock.step(Duration.ofMinutes(1));
        kubectl.run("scale", "deploy", "web", "--replicas=5").ok();
        String managed = api.get(DEPLOYMENTS + "/web")
                .body()
                .get("metadata")
                .get("managedFields")
                .toString();
        System.out.println("managedFields after kubectl create -f and kubectl scale: " + managed);
        assertThat(managed)
                .isEqualTo("[" + entry("kubectl-create", T0, CREATED_FIELDS.replace("\"f:replicas\":{},", ""), null)
                        + "," + entry("kubectl", T1, "{\"f:spec\":{\"f:replicas\":{}}}", "scale") + "]");
    }
}
