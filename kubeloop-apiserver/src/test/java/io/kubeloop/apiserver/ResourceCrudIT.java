package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.apiserver.ApiClient.Reply;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** Create, get, update, delete and their errors, over real HTTP, worded as kube-apiserver words them. */
class ResourceCrudIT extends EmbeddedServerTest {

    private static String configMap(String name, String data) {
        return "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" + name
                + "\",\"labels\":{\"app\":\"web\"}},\"data\":{\"k\":\"" + data + "\"}}";
    }

    @Test
    void theInitialNamespacesExist() {
        Reply r = api.get("/api/v1/namespaces");
        assertThat(r.code()).isEqualTo(200);
        assertThat(r.body().get("kind").asString()).isEqualTo("NamespaceList");
        assertThat(r.body().get("items"))
                .extracting(i -> i.get("metadata").get("name").asString())
                .containsExactly("default", "kube-node-lease", "kube-public", "kube-system");
        assertThat(r.body().get("items").get(0).get("status").get("phase").asString())
                .isEqualTo("Active");
    }

    @Test
    void createSetsServerOwnedMetadataAndGetReturnsIt() {
        JsonNode created = api.create("/api/v1/namespaces/default/configmaps", configMap("cfg", "1"));
        JsonNode meta = created.get("metadata");
        assertThat(created.get("apiVersion").asString()).isEqualTo("v1");
        assertThat(created.get("kind").asString()).isEqualTo("ConfigMap");
        assertThat(meta.get("namespace").asString()).isEqualTo("default");
        assertThat(meta.get("uid").asString()).matches("[0-9a-f-]{36}");
        assertThat(meta.get("creationTimestamp").asString()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ");
        assertThat(meta.has("generation"))
                .as("a ConfigMap has no generation in kube")
                .isFalse();
        assertThat(Long.parseLong(meta.get("resourceVersion").asString())).isPositive();

        Reply got = api.get("/api/v1/namespaces/default/configmaps/cfg");
        assertThat(got.code()).isEqualTo(200);
        assertThat(got.body()).isEqualTo(created);
    }

    @Test
    void yamlBodiesAreAcceptedForCreateAndApply() {
        Reply created = api.request(
                "POST",
                "/api/v1/namespaces/default/configmaps",
                "application/yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\ndata:\n  k: v\n");
        assertThat(created.code()).as(created.raw()).isEqualTo(201);
        assertThat(created.body().get("data").get("k").asString()).isEqualTo("v");

        Reply applied = api.request(
                "PATCH",
                "/api/v1/namespaces/default/configmaps/z?fieldManager=me",
                "application/apply-patch+yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: z\ndata:\n  k: w\n");
        assertThat(applied.code()).as(applied.raw()).isEqualTo(201);

        Reply broken = api.request("POST", "/api/v1/namespaces/default/configmaps", "application/yaml", "a: [b");
        assertThat(broken.code()).isEqualTo(400);
        assertThat(broken.body().get("message").asString()).startsWith("error converting YAML to JSON");
    }

    @Test
    void generateNameMakesAUniqueName() {
        JsonNode a = api.create(
                "/api/v1/namespaces/default/configmaps", "{\"metadata\":{\"generateName\":\"cfg-\"},\"data\":{}}");
        JsonNode b = api.create(
                "/api/v1/namespaces/default/configmaps", "{\"metadata\":{\"generateName\":\"cfg-\"},\"data\":{}}");
        assertThat(a.get("metadata").get("name").asString()).matches("cfg-[a-z0-9]{5}");
        assertThat(a.get("metadata").get("name")).isNotEqualTo(b.get("metadata").get("name"));
    }

    @Test
    void createErrorsAreKubeApiserverStatuses() {
        api.create("/api/v1/namespaces/default/configmaps", configMap("cfg", "1"));
        Reply dup = api.post("/api/v1/namespaces/default/configmaps", configMap("cfg", "2"));
        assertThat(dup.code()).isEqualTo(409);
        assertThat(dup.body().get("reason").asString()).isEqualTo("AlreadyExists");
        assertThat(dup.body().get("message").asString()).isEqualTo("configmaps \"cfg\" already exists");

        Reply noNamespace = api.post("/api/v1/namespaces/nope/configmaps", configMap("cfg", "1"));
        assertThat(noNamespace.code()).isEqualTo(404);
        assertThat(noNamespace.body().get("message").asString()).isEqualTo("namespaces \"nope\" not found");

        Reply badName = api.post("/api/v1/namespaces/default/configmaps", configMap("Bad_Name", "1"));
        assertThat(badName.code()).isEqualTo(422);
        assertThat(badName.body().get("reason").asString()).isEqualTo("Invalid");
        assertThat(badName.body().get("message").asString())
                .startsWith(
                        "ConfigMap \"Bad_Name\" is invalid: metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain");

        Reply badJson = api.post("/api/v1/namespaces/default/configmaps", "{\"metadata\":");
        assertThat(badJson.code()).isEqualTo(400);
        assertThat(badJson.body().get("reason").asString()).isEqualTo("BadRequest");

        Reply wrongNamespace = api.post(
                "/api/v1/namespaces/default/configmaps",
                "{\"metadata\":{\"name\":\"x\",\"namespace\":\"kube-system\"}}");
        assertThat(wrongNamespace.code()).isEqualTo(400);
        assertThat(wrongNamespace.body().get("message").asString())
                .isEqualTo("the namespace of the provided object does not match the namespace sent on the request");

        Reply wrongMedia = api.request("POST", "/api/v1/namespaces/default/configmaps", "text/plain", "x");
        assertThat(wrongMedia.code()).isEqualTo(415);

        Reply tooLarge =
                api.post("/api/v1/namespaces/default/configmaps", configMap("big", "x".repeat(3 * 1024 * 1024 + 10)));
        assertThat(tooLarge.code()).isEqualTo(413);

        assertThat(api.get("/api/v1/namespaces/default/configmaps/missing")
                        .body()
                        .get("message")
                        .asString())
                .isEqualTo("configmaps \"missing\" not found");
        assertThat(api.request("PATCH", "/api/v1/namespaces/default/configmaps", "application/json", "{}")
                        .code())
                .isEqualTo(405);
    }

    @Test
    void updateChecksResourceVersionAndSkipsNoOps() {
        JsonNode created = api.create("/api/v1/namespaces/default/configmaps", configMap("cfg", "1"));
        String rv = created.get("metadata").get("resourceVersion").asString();

        Reply same = api.put("/api/v1/namespaces/default/configmaps/cfg", created.toString());
        assertThat(same.code()).isEqualTo(200);
        assertThat(same.body().get("metadata").get("resourceVersion").asString())
                .as("a no-op write")
                .isEqualTo(rv);

        Reply changed = api.put(
                "/api/v1/namespaces/default/configmaps/cfg", created.toString().replace("\"k\":\"1\"", "\"k\":\"2\""));
        assertThat(changed.code()).isEqualTo(200);
        assertThat(changed.body().get("data").get("k").asString()).isEqualTo("2");
        assertThat(Long.parseLong(
                        changed.body().get("metadata").get("resourceVersion").asString()))
                .isGreaterThan(Long.parseLong(rv));
        assertThat(changed.body().get("metadata").get("uid"))
                .isEqualTo(created.get("metadata").get("uid"));

        Reply stale = api.put(
                "/api/v1/namespaces/default/configmaps/cfg", created.toString().replace("\"k\":\"1\"", "\"k\":\"3\""));
        assertThat(stale.code()).isEqualTo(409);
        assertThat(stale.body().get("message").asString())
                .isEqualTo(
                        "Operation cannot be fulfilled on configmaps "
                                + "\"cfg\": the object has been modified; please apply your changes to the latest version and try again");

        Reply missing = api.put("/api/v1/namespaces/default/configmaps/nope", configMap("nope", "1"));
        assertThat(missing.code()).isEqualTo(404);
    }

    @Test
    void statusSubresourceAndGenerationFollowTheStatusSplit() {
        String pod = "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]},"
                + "\"status\":{\"phase\":\"Pending\"}}";
        JsonNode created = api.create("/api/v1/namespaces/default/pods", pod);

        JsonNode statusUpdate = created.deepCopy();
        ((tools.jackson.databind.node.ObjectNode) statusUpdate.get("status")).put("phase", "Running");
        ((tools.jackson.databind.node.ObjectNode)
                        statusUpdate.get("spec").get("containers").get(0))
                .put("image", "x");
        Reply viaStatus = api.put("/api/v1/namespaces/default/pods/p/status", statusUpdate.toString());
        assertThat(viaStatus.code()).isEqualTo(200);
        assertThat(viaStatus.body().get("status").get("phase").asString()).isEqualTo("Running");
        assertThat(viaStatus
                        .body()
                        .get("spec")
                        .get("containers")
                        .get(0)
                        .get("image")
                        .asString())
                .as("/status ignores everything but status")
                .isEqualTo("nginx");
        assertThat(viaStatus.body().get("metadata").has("generation"))
                .as("a Pod has no generation in kube 1.32")
                .isFalse();

        JsonNode mainUpdate = viaStatus.body().deepCopy();
        ((tools.jackson.databind.node.ObjectNode) mainUpdate.get("status")).put("phase", "Failed");
        ((tools.jackson.databind.node.ObjectNode)
                        mainUpdate.get("spec").get("containers").get(0))
                .put("image", "v2");
        Reply viaMain = api.put("/api/v1/namespaces/default/pods/p", mainUpdate.toString());
        assertThat(viaMain.body().get("status").get("phase").asString())
                .as("the main resource ignores status")
                .isEqualTo("Running");
        assertThat(viaMain.body()
                        .get("spec")
                        .get("containers")
                        .get(0)
                        .get("image")
                        .asString())
                .isEqualTo("v2");
        assertThat(viaMain.body().get("metadata").has("generation")).isFalse();

        JsonNode labelOnly = viaMain.body().deepCopy();
        ((tools.jackson.databind.node.ObjectNode) labelOnly.get("metadata"))
                .putObject("labels")
                .put("a", "b");
        assertThat(api.put("/api/v1/namespaces/default/pods/p", labelOnly.toString())
                        .body()
                        .at("/metadata/labels/a")
                        .asString())
                .isEqualTo("b");
    }

    @Test
    void deleteReturnsTheObjectAndHonoursPreconditions() {
        JsonNode created = api.create("/api/v1/namespaces/default/configmaps", configMap("cfg", "1"));
        Reply wrongUid = api.request(
                "DELETE",
                "/api/v1/namespaces/default/configmaps/cfg",
                "application/json",
                "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\",\"preconditions\":{\"uid\":\"other\"}}");
        assertThat(wrongUid.code()).isEqualTo(409);

        Reply deleted = api.delete("/api/v1/namespaces/default/configmaps/cfg");
        assertThat(deleted.code()).isEqualTo(200);
        assertThat(deleted.body().get("metadata").get("uid"))
                .isEqualTo(created.get("metadata").get("uid"));
        assertThat(api.get("/api/v1/namespaces/default/configmaps/cfg").code()).isEqualTo(404);
        assertThat(api.delete("/api/v1/namespaces/default/configmaps/cfg").code())
                .isEqualTo(404);
    }

    @Test
    void dryRunStoresNothing() {
        Reply r = api.post("/api/v1/namespaces/default/configmaps?dryRun=All", configMap("cfg", "1"));
        assertThat(r.code()).isEqualTo(201);
        assertThat(r.body().get("metadata").get("name").asString()).isEqualTo("cfg");
        assertThat(api.get("/api/v1/namespaces/default/configmaps/cfg").code()).isEqualTo(404);

        api.create("/api/v1/namespaces/default/configmaps", configMap("cfg", "1"));
        Reply dryDelete = api.delete("/api/v1/namespaces/default/configmaps/cfg?dryRun=All");
        assertThat(dryDelete.code()).isEqualTo(200);
        assertThat(api.get("/api/v1/namespaces/default/configmaps/cfg").code()).isEqualTo(200);
    }

    @Test
    void deleteCollectionDeletesWhatTheSelectorMatches() {
        api.create("/api/v1/namespaces/default/configmaps", configMap("a", "1"));
        api.create("/api/v1/namespaces/default/configmaps", configMap("b", "1"));
        api.create("/api/v1/namespaces/default/configmaps", "{\"metadata\":{\"name\":\"c\"}}");
        Reply r = api.delete("/api/v1/namespaces/default/configmaps?labelSelector=app%3Dweb");
        assertThat(r.code()).isEqualTo(200);
        assertThat(r.body().get("items")).hasSize(2);
        assertThat(api.get("/api/v1/namespaces/default/configmaps").body().get("items"))
                .extracting(i -> i.get("metadata").get("name").asString())
                .as("and the kube-root-ca.crt every namespace has")
                .containsExactly("c", "kube-root-ca.crt");
    }

    @Test
    void deletingANamespaceDeletesItsContents() {
        api.create("/api/v1/namespaces", "{\"metadata\":{\"name\":\"team\"}}");
        api.create("/api/v1/namespaces/team/configmaps", configMap("a", "1"));
        assertThat(api.delete("/api/v1/namespaces/team").code()).isEqualTo(200);
        assertThat(api.get("/api/v1/namespaces/team/configmaps/a").code()).isEqualTo(404);
    }

    @Test
    void clusterScopedAndNamespacedPathsAreNotInterchangeable() {
        assertThat(api.get("/api/v1/namespaces/default/nodes").code()).isEqualTo(404);
        assertThat(api.post("/api/v1/configmaps", configMap("x", "1")).code()).isEqualTo(404);
        assertThat(api.create("/api/v1/nodes", "{\"metadata\":{\"name\":\"n1\"}}")
                        .get("metadata")
                        .has("namespace"))
                .isFalse();
    }
}
