package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.apiserver.ApiClient.Reply;
import io.kubeloop.clock.FakeClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** Deleting a namespace: Terminating, its contents deleted (finalizers respected), then the namespace removed. */
class NamespaceTerminationIT extends EmbeddedServerTest {

    private static final String T0 = "2026-03-01T10:00:00Z";
    private static final String NS = "/api/v1/namespaces";
    private static final String TEAM_CM = "/api/v1/namespaces/team/configmaps";
    private static final String MERGE = "application/merge-patch+json";

    private final FakeClock clock = new FakeClock(Instant.parse(T0));

    @Override
    EmbeddedApiServer.Builder configure(EmbeddedApiServer.Builder builder) {
        return builder.clock(clock);
    }

    @BeforeEach
    void start() {
        api.create(NS, "{\"metadata\":{\"name\":\"team\"}}");
    }

    private boolean gone(String path) {
        return api.get(path).code() == 404;
    }

    @Test
    void aCreatedNamespaceIsActiveAndCarriesTheKubernetesFinalizer() {
        JsonNode created = api.create(
                NS,
                "{\"metadata\":{\"name\":\"other\"},\"spec\":{\"finalizers\":"
                        + "[\"example.com/mine\"]},\"status\":{\"phase\":\"Terminating\"}}");
        assertThat(created.get("spec").get("finalizers"))
                .extracting(JsonNode::asString)
                .containsExactly("example.com/mine", "kubernetes");
        assertThat(created.get("status").get("phase").asString()).isEqualTo("Active");
    }

    @Test
    void anEmptiedNamespaceTurnsTerminatingAndIsRemovedWithItsContents() throws Exception {
        api.create(TEAM_CM, "{\"metadata\":{\"name\":\"a\"}}");
        api.create(
                "/apis/apps/v1/namespaces/team/deployments",
                "{\"metadata\":{\"name\":\"web\"},\"spec\":{"
                        + "\"selector\":{\"matchLabels\":{\"app\":\"web\"}},\"template\":{\"metadata\":{\"labels\":"
                        + "{\"app\":\"web\"}},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}}}");
        JsonNode ns = api.get(NS + "/team").body();
        assertThat(ns.get("spec").get("finalizers").get(0).asString()).isEqualTo("kubernetes");
        try (ApiClient.Watch watch = api.watch(NS + "?watch=true&fieldSelector=metadata.name%3Dteam&resourceVersion="
                + ns.get("metadata").get("resourceVersion").asString())) {
            Reply deleted = api.delete(NS + "/team");
            assertThat(deleted.code()).isEqualTo(200);
            assertThat(deleted.body().get("metadata").get("deletionTimestamp").asString())
                    .isEqualTo(T0);
            assertThat(deleted.body().get("status").get("phase").asString()).isEqualTo("Terminating");

            JsonNode terminating = watch.next();
            assertThat(terminating.get("type").asString()).isEqualTo("MODIFIED");
            assertThat(terminating.get("object").get("status").get("phase").asString())
                    .isEqualTo("Terminating");
            JsonNode removed = watch.next();
            assertThat(removed.get("type").asString()).isEqualTo("DELETED");
        }
        assertThat(gone(NS + "/team")).isTrue();
        assertThat(gone(TEAM_CM + "/a")).isTrue();
        assertThat(gone("/apis/apps/v1/namespaces/team/deployments/web")).isTrue();
    }

    @Test
    void contentWithFinalizersHoldsTheNamespaceWhichRefusesNewContent() {
        api.create(TEAM_CM, "{\"metadata\":{\"name\":\"held\",\"finalizers\":[\"example.com/hold\"]}}");
        api.create(TEAM_CM, "{\"metadata\":{\"name\":\"plain\"}}");
        api.delete(NS + "/team");

        assertThat(gone(TEAM_CM + "/plain")).isTrue();
        assertThat(api.get(TEAM_CM + "/held")
                        .body()
                        .get("metadata")
                        .get("deletionTimestamp")
                        .asString())
                .isEqualTo(T0);
        JsonNode ns = api.get(NS + "/team").body();
        assertThat(ns.get("status").get("phase").asString()).isEqualTo("Terminating");
        assertThat(ns.get("spec").get("finalizers").get(0).asString()).isEqualTo("kubernetes");

        Reply refused = api.post(TEAM_CM, "{\"metadata\":{\"name\":\"late\"}}");
        assertThat(refused.code()).isEqualTo(403);
        assertThat(refused.body().get("reason").asString()).isEqualTo("Forbidden");
        assertThat(refused.body().get("message").asString())
                .isEqualTo("configmaps \"late\" is forbidden: unable "
                        + "to create new content in namespace team because it is being terminated");
        JsonNode cause = refused.body().get("details").get("causes").get(0);
        assertThat(cause.get("reason").asString()).isEqualTo("NamespaceTerminating");
        assertThat(cause.get("message").asString()).isEqualTo("namespace team is being terminated");
        assertThat(cause.get("field").asString()).isEqualTo("metadata.namespace");
        Reply applied = api.request(
                "PATCH",
                TEAM_CM + "/applied?fieldManager=test",
                "application/apply-patch+yaml",
                "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"applied\"}}");
        assertThat(applied.code())
                .as("server-side apply creates are refused too")
                .isEqualTo(403);

        Reply again = api.delete(NS + "/team");
        assertThat(again.code()).isEqualTo(200);
        assertThat(again.body().get("metadata").get("deletionTimestamp").asString())
                .isEqualTo(T0);

        api.request("PATCH", TEAM_CM + "/held", MERGE, "{\"metadata\":{\"finalizers\":null}}");
        eventually().until(() -> gone(NS + "/team"));
    }

    @Test
    void clientsCannotRemoveTheKubernetesFinalizerFromTheSpec() {
        api.create(TEAM_CM, "{\"metadata\":{\"name\":\"held\",\"finalizers\":[\"example.com/hold\"]}}");
        api.delete(NS + "/team");
        Reply patched = api.request("PATCH", NS + "/team", MERGE, "{\"spec\":{\"finalizers\":null}}");
        assertThat(patched.code()).isEqualTo(200);
        assertThat(patched.body().get("spec").get("finalizers").get(0).asString())
                .isEqualTo("kubernetes");
        assertThat(gone(NS + "/team")).isFalse();
    }

    @Test
    void boundPodsHoldTheNamespaceForTheirGracePeriod() {
        api.create(
                "/api/v1/namespaces/team/pods",
                "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"nodeName\":\"n1\","
                        + "\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}");
        api.delete(NS + "/team");
        assertThat(api.get("/api/v1/namespaces/team/pods/p")
                        .body()
                        .get("metadata")
                        .get("deletionGracePeriodSeconds")
                        .asLong())
                .isEqualTo(30);
        assertThat(gone(NS + "/team")).isFalse();
        clock.step(Duration.ofSeconds(30));
        eventually().until(() -> gone(NS + "/team"));
    }

    @Test
    void theSystemNamespacesCannotBeDeleted() {
        Reply refused = api.delete(NS + "/default");
        assertThat(refused.code()).isEqualTo(403);
        assertThat(refused.body().get("message").asString())
                .isEqualTo("namespaces \"default\" is forbidden: this namespace may not be deleted");
        assertThat(api.delete(NS + "/kube-system").code()).isEqualTo(403);
        assertThat(api.get(NS + "/default").body().get("metadata").has("deletionTimestamp"))
                .isFalse();
    }

    @Test
    void aDryRunDeleteOfANamespaceChangesNothing() {
        api.create(TEAM_CM, "{\"metadata\":{\"name\":\"a\"}}");
        Reply preview = api.delete(NS + "/team?dryRun=All");
        assertThat(preview.code()).isEqualTo(200);
        assertThat(preview.body().get("status").get("phase").asString()).isEqualTo("Terminating");
        assertThat(api.get(NS + "/team").body().get("status").get("phase").asString())
                .isEqualTo("Active");
        assertThat(gone(TEAM_CM + "/a")).isFalse();
    }
}
