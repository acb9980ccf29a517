package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.apiserver.ApiClient.Reply;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** The garbage collector by ownerReferences, over real HTTP: Background, Foreground and Orphan propagation. */
class GarbageCollectionIT extends EmbeddedServerTest {

    private static final String CM = "/api/v1/namespaces/default/configmaps";
    private static final String SECRETS = "/api/v1/namespaces/default/secrets";
    private static final String MERGE = "application/merge-patch+json";

    private JsonNode owner(String name) {
        return api.create(CM, "{\"metadata\":{\"name\":\"" + name + "\"}}");
    }

    private static String ref(JsonNode owner, boolean block) {
        JsonNode m = owner.get("metadata");
        return "{\"apiVersion\":\"" + owner.get("apiVersion").asString() + "\",\"kind\":\""
                + owner.get("kind").asString() + "\",\"name\":\""
                + m.get("name").asString() + "\",\"uid\":\""
                + m.get("uid").asString() + "\"" + (block ? ",\"blockOwnerDeletion\":true" : "") + "}";
    }

    /** A dependent in {@code collection}, owned by {@code refs} (JSON objects), with optional finalizers. */
    private JsonNode dependent(String collection, String name, List<String> refs, String... finalizers) {
        List<String> quoted = new ArrayList<>();
        for (String f : finalizers) {
            quoted.add("\"" + f + "\"");
        }
        return api.create(
                collection,
                "{\"metadata\":{\"name\":\"" + name + "\",\"ownerReferences\":[" + String.join(",", refs) + "]"
                        + (finalizers.length == 0 ? "" : ",\"finalizers\":" + quoted) + "}}");
    }

    private boolean gone(String path) {
        return api.get(path).code() == 404;
    }

    @Test
    void backgroundDeletesTheOwnerNowAndItsDependentsSoonAfter() throws Exception {
        JsonNode owner = owner("owner");
        dependent(CM, "child-1", List.of(ref(owner, false)));
        JsonNode last = dependent(SECRETS, "child-2", List.of(ref(owner, true)));
        try (ApiClient.Watch secrets = api.watch(SECRETS + "?watch=true&resourceVersion="
                + last.get("metadata").get("resourceVersion").asString())) {
            assertThat(api.delete(CM + "/owner").code()).isEqualTo(200);
            assertThat(gone(CM + "/owner"))
                    .as("Background removes the owner at once")
                    .isTrue();
            eventually().until(() -> gone(CM + "/child-1") && gone(SECRETS + "/child-2"));
            JsonNode event = secrets.next();
            assertThat(event.get("type").asString()).isEqualTo("DELETED");
            assertThat(event.get("object").get("metadata").get("name").asString())
                    .isEqualTo("child-2");
        }
    }

    @Test
    void backgroundIsAlsoTheExplicitPolicyAndLegacyOrphanDependentsFalse() {
        for (String how : List.of("?propagationPolicy=Background", "?orphanDependents=false", "")) {
            JsonNode owner = owner("owner");
            dependent(CM, "child", List.of(ref(owner, false)));
            Reply deleted = how.isEmpty()
                    ? api.request("DELETE", CM + "/owner", "application/json", "{\"propagationPolicy\":\"Background\"}")
                    : api.delete(CM + "/owner" + how);
            assertThat(deleted.code()).isEqualTo(200);
            eventually().alias("dependent collected after delete" + how).until(() -> gone(CM + "/child"));
        }
    }

    @Test
    void aDependentWithAnotherLiveOwnerStaysAndLosesOnlyTheGoneReference() {
        JsonNode gone = owner("gone");
        JsonNode stays = owner("stays");
        dependent(CM, "shared", List.of(ref(gone, false), ref(stays, false)));
        api.delete(CM + "/gone");
        eventually()
                .until(() -> api.get(CM + "/shared")
                                .body()
                                .get("metadata")
                                .get("ownerReferences")
                                .size()
                        == 1);
        assertThat(api.get(CM + "/shared")
                        .body()
                        .get("metadata")
                        .get("ownerReferences")
                        .get(0)
                        .get("name")
                        .asString())
                .isEqualTo("stays");
    }

    @Test
    void orphanKeepsTheDependentsWithoutTheOwnersReference() {
        JsonNode owner = owner("owner");
        JsonNode other = owner("other");
        dependent(CM, "only", List.of(ref(owner, true)));
        dependent(CM, "both", List.of(ref(owner, false), ref(other, false)));
        Reply deleted = api.request("DELETE", CM + "/owner", "application/json", "{\"propagationPolicy\":\"Orphan\"}");
        assertThat(deleted.code()).isEqualTo(200);
        assertThat(deleted.body().get("metadata").get("finalizers").get(0).asString())
                .isEqualTo("orphan");
        assertThat(deleted.body().get("metadata").has("deletionTimestamp")).isTrue();
        eventually().until(() -> gone(CM + "/owner"));
        assertThat(api.get(CM + "/only").body().get("metadata").has("ownerReferences"))
                .isFalse();
        JsonNode both = api.get(CM + "/both").body().get("metadata").get("ownerReferences");
        assertThat(both).hasSize(1);
        assertThat(both.get(0).get("name").asString()).isEqualTo("other");
    }

    @Test
    void legacyOrphanDependentsTrueOrphans() {
        JsonNode owner = owner("owner");
        dependent(CM, "child", List.of(ref(owner, false)));
        api.delete(CM + "/owner?orphanDependents=true");
        eventually().until(() -> gone(CM + "/owner"));
        assertThat(api.get(CM + "/child").body().get("metadata").has("ownerReferences"))
                .isFalse();
    }

    @Test
    void foregroundDeletesBlockingDependentsFirstThenTheOwner() throws Exception {
        JsonNode owner = owner("owner");
        dependent(CM, "blocking", List.of(ref(owner, true)), "example.com/hold");
        dependent(SECRETS, "free", List.of(ref(owner, false)));
        Reply deleted =
                api.request("DELETE", CM + "/owner", "application/json", "{\"propagationPolicy\":\"Foreground\"}");
        assertThat(deleted.code()).isEqualTo(200);
        assertThat(deleted.body().get("metadata").get("finalizers").get(0).asString())
                .isEqualTo("foregroundDeletion");

        eventually()
                .until(() -> api.get(CM + "/blocking").body().get("metadata").has("deletionTimestamp"));
        eventually().until(() -> gone(SECRETS + "/free"));
        assertThat(gone(CM + "/owner"))
                .as("held while a blocking dependent exists")
                .isFalse();

        api.request("PATCH", CM + "/blocking", MERGE, "{\"metadata\":{\"finalizers\":null}}");
        eventually().until(() -> gone(CM + "/owner"));
    }

    @Test
    void foregroundCascadesThroughDependentsThatHaveDependents() {
        JsonNode owner = owner("owner");
        JsonNode child = dependent(CM, "child", List.of(ref(owner, true)));
        dependent(CM, "grandchild", List.of(ref(child, true)), "example.com/hold");
        api.delete(CM + "/owner?propagationPolicy=Foreground");

        eventually()
                .until(() -> api.get(CM + "/grandchild").body().get("metadata").has("deletionTimestamp"));
        JsonNode childNow = api.get(CM + "/child").body();
        assertThat(childNow.get("metadata").get("finalizers").get(0).asString())
                .as("the child deletes its own dependents in the foreground")
                .isEqualTo("foregroundDeletion");
        assertThat(gone(CM + "/owner")).isFalse();

        api.request("PATCH", CM + "/grandchild", MERGE, "{\"metadata\":{\"finalizers\":null}}");
        eventually().until(() -> gone(CM + "/child") && gone(CM + "/owner"));
    }

    @Test
    void objectsWhoseOwnersDoNotExistAreCollected() {
        JsonNode owner = owner("owner");
        dependent(CM, "owned", List.of(ref(owner, false)));
        dependent(
                CM,
                "never",
                List.of("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"name\":\"nobody\","
                        + "\"uid\":\"00000000-0000-0000-0000-000000000000\"}"));
        dependent(
                CM,
                "impostor",
                List.of("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"name\":\"owner\","
                        + "\"uid\":\"11111111-1111-1111-1111-111111111111\"}"));
        eventually().until(() -> gone(CM + "/never") && gone(CM + "/impostor"));
        assertThat(gone(CM + "/owned")).as("its owner exists, with its uid").isFalse();
    }

    @Test
    void referencesToKindsTheServerDoesNotServeAreLeftAlone() {
        dependent(
                CM,
                "unknown-kind",
                List.of("{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\","
                        + "\"name\":\"w\",\"uid\":\"22222222-2222-2222-2222-222222222222\"}"));
        dependent(
                CM,
                "dangling",
                List.of("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"name\":\"nobody\","
                        + "\"uid\":\"33333333-3333-3333-3333-333333333333\"}"));
        eventually().until(() -> gone(CM + "/dangling")); // the collector looked at both, in order
        assertThat(gone(CM + "/unknown-kind")).isFalse();
    }

    @Test
    void dependentsKeepTheirOwnFinalizers() {
        JsonNode owner = owner("owner");
        dependent(CM, "held", List.of(ref(owner, false)), "example.com/hold");
        api.delete(CM + "/owner");
        eventually().until(() -> api.get(CM + "/held").body().get("metadata").has("deletionTimestamp"));
        assertThat(gone(CM + "/held")).isFalse();
        api.request("PATCH", CM + "/held", MERGE, "{\"metadata\":{\"finalizers\":null}}");
        assertThat(gone(CM + "/held")).isTrue();
    }

    @Test
    void clusterScopedOwnersOwnNamespacedObjectsButNotTheOtherWayRound() {
        JsonNode node = api.create("/api/v1/nodes", "{\"metadata\":{\"name\":\"node-1\"}}");
        dependent(CM, "on-node", List.of(ref(node, false)));
        JsonNode namespaced = owner("namespaced");
        api.create(
                "/apis/rbac.authorization.k8s.io/v1/clusterroles",
                "{\"metadata\":{\"name\":\"role\",\"ownerReferences\":[" + ref(namespaced, false) + "]}}");
        eventually().until(() -> gone("/apis/rbac.authorization.k8s.io/v1/clusterroles/role"));
        assertThat(gone(CM + "/on-node")).isFalse();
        api.delete("/api/v1/nodes/node-1");
        eventually().until(() -> gone(CM + "/on-node"));
    }

    @Test
    void ownersInAnotherNamespaceDoNotCount() {
        api.create("/api/v1/namespaces", "{\"metadata\":{\"name\":\"other\"}}");
        JsonNode elsewhere = api.create("/api/v1/namespaces/other/configmaps", "{\"metadata\":{\"name\":\"owner\"}}");
        dependent(CM, "cross", List.of(ref(elsewhere, false)));
        eventually().until(() -> gone(CM + "/cross"));
    }

    @Test
    void aDependentWhoseLastOwnerReferenceIsRemovedIsReleasedNotCollected() {
        JsonNode owner = owner("keeper");
        dependent(CM, "released", List.of(ref(owner, true)));
        // a JSON patch that removes the last reference leaves `ownerReferences: []`: no owner, nothing to collect
        // (the ReplicaSet controller releases a pod this way; the collector once deleted it as ownerless)
        ApiClient.Reply released = api.request(
                "PATCH",
                CM + "/released",
                "application/json-patch+json",
                "[{\"op\":\"remove\",\"path\":\"/metadata/ownerReferences/0\"}]");
        assertThat(released.code()).as(released.raw()).isEqualTo(200);
        // a marker whose owner never existed is collected after the release was seen: then the verdict is in
        dependent(CM, "marker", List.of(ref(owner("gone-soon"), false)));
        assertThat(api.delete(CM + "/gone-soon").code()).isEqualTo(200);
        eventually().until(() -> gone(CM + "/marker"));
        assertThat(gone(CM + "/released")).as("a released dependent stays").isFalse();
    }
}
