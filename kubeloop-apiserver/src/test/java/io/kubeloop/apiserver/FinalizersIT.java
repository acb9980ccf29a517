package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.apiserver.ApiClient.Reply;
import io.kubeloop.clock.FakeClock;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** DELETE of an object with finalizers, and the writes that finish it, over real HTTP with watch events. */
class FinalizersIT extends EmbeddedServerTest {

    private static final String T0 = "2026-03-01T10:00:00Z";
    private static final String CM = "/api/v1/namespaces/default/configmaps";
    private static final String MERGE = "application/merge-patch+json";

    private final FakeClock clock = new FakeClock(Instant.parse(T0));

    @Override
    EmbeddedApiServer.Builder configure(EmbeddedApiServer.Builder builder) {
        return builder.clock(clock);
    }

    private JsonNode held(String name, String... finalizers) {
        StringBuilder list = new StringBuilder();
        for (String f : finalizers) {
            list.append(list.isEmpty() ? "" : ",").append('"').append(f).append('"');
        }
        return api.create(
                CM, "{\"metadata\":{\"name\":\"" + name + "\",\"finalizers\":[" + list + "]},\"data\":{\"k\":\"v\"}}");
    }

    private static String rv(JsonNode object) {
        return object.get("metadata").get("resourceVersion").asString();
    }

    @Test
    void deleteMarksTheObjectAndTheLastFinalizerRemovedByAPatchRemovesIt() throws Exception {
        JsonNode created = held("held", "example.com/hold");
        try (ApiClient.Watch watch = api.watch(CM + "?watch=true&resourceVersion=" + rv(created))) {
            Reply deleted = api.delete(CM + "/held");
            assertThat(deleted.code()).isEqualTo(200);
            JsonNode meta = deleted.body().get("metadata");
            assertThat(meta.get("deletionTimestamp").asString()).isEqualTo(T0);
            assertThat(meta.get("deletionGracePeriodSeconds").asLong()).isZero();
            assertThat(meta.has("generation"))
                    .as("kube bumps generation on deletion only where there is one: a ConfigMap has none")
                    .isFalse();
            assertThat(api.get(CM + "/held")
                            .body()
                            .get("metadata")
                            .get("finalizers")
                            .get(0)
                            .asString())
                    .isEqualTo("example.com/hold");

            JsonNode modified = watch.next();
            assertThat(modified.get("type").asString()).isEqualTo("MODIFIED");
            assertThat(modified.get("object")
                            .get("metadata")
                            .get("deletionTimestamp")
                            .asString())
                    .isEqualTo(T0);

            Reply patched = api.request("PATCH", CM + "/held", MERGE, "{\"metadata\":{\"finalizers\":null}}");
            assertThat(patched.code()).isEqualTo(200);
            assertThat(patched.body().get("metadata").has("finalizers")).isFalse();
            assertThat(api.get(CM + "/held").code()).isEqualTo(404);

            JsonNode gone = watch.next();
            assertThat(gone.get("type").asString())
                    .as("removed without a MODIFIED first")
                    .isEqualTo("DELETED");
            assertThat(gone.get("object").get("metadata").get("name").asString())
                    .isEqualTo("held");
        }
    }

    @Test
    void onlyTheLastFinalizerRemovesTheObjectWhateverTheWrite() {
        held("two", "a.example.com/x", "b.example.com/y");
        api.delete(CM + "/two");
        JsonNode current = api.get(CM + "/two").body();
        ObjectNode oneLeft = (ObjectNode) current.deepCopy();
        ((ObjectNode) oneLeft.get("metadata")).putArray("finalizers").add("b.example.com/y");
        Reply put = api.put(CM + "/two", oneLeft.toString());
        assertThat(put.code()).isEqualTo(200);
        assertThat(api.get(CM + "/two").body().get("metadata").get("finalizers"))
                .hasSize(1);

        Reply jsonPatch = api.request(
                "PATCH",
                CM + "/two",
                "application/json-patch+json",
                "[{\"op\":\"remove\",\"path\":\"/metadata/finalizers/0\"}]");
        assertThat(jsonPatch.code()).isEqualTo(200);
        assertThat(api.get(CM + "/two").code()).isEqualTo(404);
    }

    @Test
    void aTerminatingObjectGainsNoFinalizer() {
        held("held", "example.com/hold");
        api.delete(CM + "/held");
        Reply added = api.request(
                "PATCH",
                CM + "/held",
                MERGE,
                "{\"metadata\":{\"finalizers\":[\"example.com/hold\",\"example.com/x\"]}}");
        assertThat(added.code()).isEqualTo(422);
        assertThat(added.body().get("reason").asString()).isEqualTo("Invalid");
        assertThat(added.body().get("message").asString())
                .isEqualTo("ConfigMap \"held\" is invalid: "
                        + "metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, "
                        + "found new finalizers []string{\"example.com/x\"}");
        assertThat(added.body().get("details").get("causes").get(0).get("field").asString())
                .isEqualTo("metadata.finalizers");

        Reply otherChange = api.request("PATCH", CM + "/held", MERGE, "{\"data\":{\"k\":\"changed\"}}");
        assertThat(otherChange.code())
                .as("otherwise a terminating object is updatable")
                .isEqualTo(200);
        assertThat(otherChange.body().get("data").get("k").asString()).isEqualTo("changed");
    }

    @Test
    void clientsCannotSetOrChangeTheDeletionFields() {
        held("held", "example.com/hold");
        Reply early = api.request(
                "PATCH",
                CM + "/held",
                MERGE,
                "{\"metadata\":{\"deletionTimestamp\":\"2020-01-01T00:00:00Z\",\"deletionGracePeriodSeconds\":5}}");
        assertThat(early.code()).isEqualTo(200);
        assertThat(early.body().get("metadata").has("deletionTimestamp")).isFalse();
        assertThat(early.body().get("metadata").has("deletionGracePeriodSeconds"))
                .isFalse();

        api.delete(CM + "/held");
        Reply changed = api.request(
                "PATCH",
                CM + "/held",
                MERGE,
                "{\"metadata\":{\"deletionTimestamp\":\"2030-01-01T00:00:00Z\",\"deletionGracePeriodSeconds\":9}}");
        assertThat(changed.body().get("metadata").get("deletionTimestamp").asString())
                .isEqualTo(T0);
        assertThat(changed.body()
                        .get("metadata")
                        .get("deletionGracePeriodSeconds")
                        .asLong())
                .isZero();
        Reply cleared = api.request("PATCH", CM + "/held", MERGE, "{\"metadata\":{\"deletionTimestamp\":null}}");
        assertThat(cleared.body().get("metadata").get("deletionTimestamp").asString())
                .isEqualTo(T0);
    }

    @Test
    void deletingATerminatingObjectAgainReturnsItUnchanged() {
        held("held", "example.com/hold");
        JsonNode first = api.delete(CM + "/held").body();
        clock.step(java.time.Duration.ofMinutes(5));
        Reply again = api.delete(CM + "/held");
        assertThat(again.code()).isEqualTo(200);
        assertThat(again.body()).isEqualTo(first);
    }

    @Test
    void preconditionsAreCheckedBeforeAnythingChanges() {
        JsonNode created = held("held", "example.com/hold");
        Reply wrongUid =
                api.request("DELETE", CM + "/held", "application/json", "{\"preconditions\":{\"uid\":\"other\"}}");
        assertThat(wrongUid.code()).isEqualTo(409);
        Reply wrongRv = api.request(
                "DELETE", CM + "/held", "application/json", "{\"preconditions\":{\"resourceVersion\":\"1\"}}");
        assertThat(wrongRv.code()).isEqualTo(409);
        assertThat(api.get(CM + "/held").body().get("metadata").has("deletionTimestamp"))
                .isFalse();

        Reply matching = api.request(
                "DELETE",
                CM + "/held",
                "application/json",
                "{\"preconditions\":{\"uid\":\""
                        + created.get("metadata").get("uid").asString() + "\",\"resourceVersion\":\"" + rv(created)
                        + "\"}}");
        assertThat(matching.code()).isEqualTo(200);
        assertThat(matching.body().get("metadata").has("deletionTimestamp")).isTrue();
    }

    @Test
    void dryRunDeletesAndWritesChangeNothing() {
        held("held", "example.com/hold");
        Reply preview = api.delete(CM + "/held?dryRun=All");
        assertThat(preview.code()).isEqualTo(200);
        assertThat(preview.body().get("metadata").get("deletionTimestamp").asString())
                .isEqualTo(T0);
        assertThat(api.get(CM + "/held").body().get("metadata").has("deletionTimestamp"))
                .isFalse();

        api.delete(CM + "/held");
        Reply dryPatch = api.request("PATCH", CM + "/held?dryRun=All", MERGE, "{\"metadata\":{\"finalizers\":null}}");
        assertThat(dryPatch.code()).isEqualTo(200);
        assertThat(api.get(CM + "/held").code())
                .as("a dry-run write removes nothing")
                .isEqualTo(200);

        api.create(CM, "{\"metadata\":{\"name\":\"plain\"}}");
        assertThat(api.delete(CM + "/plain?dryRun=All").code()).isEqualTo(200);
        assertThat(api.get(CM + "/plain").code()).isEqualTo(200);
    }

    @Test
    void badDeleteOptionsAreRefusedWithKubesMessages() {
        api.create(CM, "{\"metadata\":{\"name\":\"plain\"}}");
        Reply unknown = api.delete(CM + "/plain?propagationPolicy=Sideways");
        assertThat(unknown.code()).isEqualTo(422);
        assertThat(unknown.body().get("message").asString())
                .isEqualTo("DeleteOptions.meta.k8s.io \"\" is invalid: "
                        + "propagationPolicy: Unsupported value: \"Sideways\": supported values: \"Foreground\", "
                        + "\"Background\", \"Orphan\", \"nil\"");
        Reply both = api.request(
                "DELETE",
                CM + "/plain",
                "application/json",
                "{\"propagationPolicy\":\"Orphan\",\"orphanDependents\":true}");
        assertThat(both.code()).isEqualTo(422);
        assertThat(both.body().get("message").asString())
                .contains("orphanDependents and deletionPropagation " + "cannot be both set");
        assertThat(api.delete(CM + "/plain?dryRun=Some").code()).isEqualTo(400);
        assertThat(api.get(CM + "/plain").code()).isEqualTo(200);
    }
}
