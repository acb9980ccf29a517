package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * kube-apiserver's metadata rules for every kind, custom resources too (apimachinery's ValidateObjectMeta, kube
 * 1.32's messages): label keys and values, annotation keys and total size, names by the resource's rule,
 * generateName, finalizers; an update may not rename, move or re-identify an object; {@code generation} only on the
 * resources whose kube strategy keeps one. Every refused write leaves nothing stored.
 */
class MetadataValidationIT {

    private static final String CONFIGMAPS = "/api/v1/namespaces/default/configmaps";
    private static final String DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments";

    private static EmbeddedApiServer server;
    private static ApiClient api;

    @BeforeAll
    static void start() {
        server = EmbeddedApiServer.builder().start();
        api = new ApiClient(server.url());
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static String configMap(String name, String metadata) {
        return "{\"metadata\":{\"name\":\"" + name + "\"" + metadata + "},\"data\":{\"k\":\"v\"}}";
    }

    /** Asserts a 422 Invalid whose causes name {@code field} and that nothing was stored under {@code name}. */
    private static JsonNode assertInvalid(ApiClient.Reply reply, String field, String collection, String name) {
        assertThat(reply.code()).as(reply.raw()).isEqualTo(422);
        assertThat(reply.body().path("reason").asString()).isEqualTo("Invalid");
        assertThat(reply.body().at("/details/causes").findValuesAsString("field"))
                .as(reply.raw())
                .contains(field);
        if (name != null) {
            assertThat(api.get(collection + "/" + name).code())
                    .as("nothing stored")
                    .isEqualTo(404);
        }
        return reply.body();
    }

    @Test
    void labelKeysAndValuesFollowKubesQualifiedNameRules() {
        JsonNode badValue = assertInvalid(
                api.post(CONFIGMAPS, configMap("l1", ",\"labels\":{\"app\":\"-bad\"}")),
                "metadata.labels",
                CONFIGMAPS,
                "l1");
        assertThat(badValue.path("message").asString())
                .isEqualTo("ConfigMap \"l1\" is invalid: metadata.labels: Invalid value: \"-bad\": a valid label must "
                        + "be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and "
                        + "end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used "
                        + "for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
        JsonNode longValue = assertInvalid(
                api.post(CONFIGMAPS, configMap("l2", ",\"labels\":{\"app\":\"" + "a".repeat(64) + "\"}")),
                "metadata.labels",
                CONFIGMAPS,
                "l2");
        assertThat(longValue.path("message").asString()).contains(": must be no more than 63 characters");
        JsonNode badPrefix = assertInvalid(
                api.post(CONFIGMAPS, configMap("l3", ",\"labels\":{\"Example.com/app\":\"x\"}")),
                "metadata.labels",
                CONFIGMAPS,
                "l3");
        assertThat(badPrefix.path("message").asString())
                .contains("Invalid value: \"Example.com/app\": prefix part a lowercase RFC 1123 subdomain");
        JsonNode slashes = assertInvalid(
                api.post(CONFIGMAPS, configMap("l4", ",\"labels\":{\"a/b/c\":\"x\"}")),
                "metadata.labels",
                CONFIGMAPS,
                "l4");
        assertThat(slashes.path("message").asString()).contains("Invalid value: \"a/b/c\": a qualified name must");

        JsonNode ok = api.create(
                CONFIGMAPS,
                configMap("l5", ",\"labels\":{\"example.com/App_1.x\":\"\",\"tier\":\"" + "b".repeat(63) + "\"}"));
        assertThat(ok.at("/metadata/labels/tier").asString()).hasSize(63);
    }

    @Test
    void annotationKeysAreQualifiedNamesOfAnyCaseAndTheirTotalSizeIsCapped() {
        api.create(CONFIGMAPS, configMap("a1", ",\"annotations\":{\"Example.COM/Note\":\"anything goes here: !\"}"));
        assertInvalid(
                api.post(CONFIGMAPS, configMap("a2", ",\"annotations\":{\"no spaces\":\"x\"}")),
                "metadata.annotations",
                CONFIGMAPS,
                "a2");
        String big = "x".repeat(128 * 1024);
        JsonNode tooBig = assertInvalid(
                api.post(CONFIGMAPS, configMap("a3", ",\"annotations\":{\"a\":\"" + big + "\",\"b\":\"" + big + "\"}")),
                "metadata.annotations",
                CONFIGMAPS,
                "a3");
        assertThat(tooBig.path("message").asString())
                .isEqualTo("ConfigMap \"a3\" is invalid: metadata.annotations: Too long: may not be more than 262144 "
                        + "bytes");
        // just under the cap (keys count too)
        api.create(
                CONFIGMAPS,
                configMap("a4", ",\"annotations\":{\"a\":\"" + big + "\",\"b\":\"" + big.substring(2) + "\"}"));
    }

    @Test
    void namesFollowTheirResourcesRuleAndGenerateNameToo() {
        JsonNode upper = assertInvalid(api.post(CONFIGMAPS, configMap("Upper", "")), "metadata.name", null, null);
        assertThat(upper.path("message").asString())
                .isEqualTo("ConfigMap \"Upper\" is invalid: metadata.name: Invalid value: \"Upper\": a lowercase RFC "
                        + "1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
                        + "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
                        + "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
        JsonNode generated = assertInvalid(
                api.post(CONFIGMAPS, "{\"metadata\":{\"generateName\":\"Gen-\"}}"),
                "metadata.generateName",
                null,
                null);
        assertThat(generated.at("/details/causes").findValuesAsString("field"))
                .containsExactly("metadata.generateName", "metadata.name");
        // a long generateName is cut to leave room for the random suffix
        JsonNode cut = api.create(CONFIGMAPS, "{\"metadata\":{\"generateName\":\"" + "g".repeat(70) + "\"}}");
        assertThat(cut.at("/metadata/name").asString()).hasSize(63).startsWith("g".repeat(58));
        // RBAC names are path segments: colons are fine, slashes are not
        String roles = "/apis/rbac.authorization.k8s.io/v1/clusterroles";
        api.create(roles, "{\"metadata\":{\"name\":\"system:controller:meta-test\"},\"rules\":[]}");
        JsonNode slash = assertInvalid(
                api.post(roles, "{\"metadata\":{\"name\":\"a/b\"},\"rules\":[]}"), "metadata.name", null, null);
        assertThat(slash.path("message").asString()).contains("Invalid value: \"a/b\": may not contain '/'");
    }

    @Test
    void finalizersAreQualifiedNamesAndBuiltInKindsTakeOnlyKubesOwnWithoutAPrefix() {
        JsonNode unprefixed = assertInvalid(
                api.post(CONFIGMAPS, configMap("f1", ",\"finalizers\":[\"mine\"]")),
                "metadata.finalizers[0]",
                CONFIGMAPS,
                "f1");
        assertThat(unprefixed.path("message").asString())
                .isEqualTo("ConfigMap \"f1\" is invalid: metadata.finalizers[0]: Invalid value: \"mine\": name is "
                        + "neither a standard finalizer name nor is it fully qualified");
        assertInvalid(
                api.post(CONFIGMAPS, configMap("f2", ",\"finalizers\":[\"example.com/no spaces\"]")),
                "metadata.finalizers",
                CONFIGMAPS,
                "f2");
        assertInvalid(
                api.post(CONFIGMAPS, configMap("f3", ",\"finalizers\":[\"orphan\",\"foregroundDeletion\"]")),
                "metadata.finalizers",
                CONFIGMAPS,
                "f3");
        api.create(CONFIGMAPS, configMap("f4", ",\"finalizers\":[\"example.com/keep\",\"orphan\"]"));
        // an update is checked too, and changes nothing
        ApiClient.Reply update = api.request(
                "PATCH",
                CONFIGMAPS + "/f4",
                "application/merge-patch+json",
                "{\"metadata\":{\"finalizers\":[\"example.com/keep\",\"bad\"]}}");
        assertInvalid(update, "metadata.finalizers[1]", null, null);
        assertThat(api.get(CONFIGMAPS + "/f4").body().at("/metadata/finalizers").toString())
                .isEqualTo("[\"example.com/keep\",\"orphan\"]");
        api.request(
                "PATCH", CONFIGMAPS + "/f4", "application/merge-patch+json", "{\"metadata\":{\"finalizers\":null}}");
    }

    @Test
    void anUpdateMayNotRenameMoveOrReidentifyAnObject() {
        JsonNode stored = api.create(CONFIGMAPS, configMap("ident", ""));
        String uid = stored.at("/metadata/uid").asString();
        String path = CONFIGMAPS + "/ident";

        ApiClient.Reply rename = api.request(
                "PATCH",
                path,
                "application/json-patch+json",
                "[{\"op\":\"replace\",\"path\":\"/metadata/name\",\"value\":\"other\"}]");
        assertThat(rename.code()).as(rename.raw()).isEqualTo(400);
        assertThat(rename.body().path("message").asString())
                .isEqualTo("the name of the object (other) does not match the name on the URL (ident)");
        ApiClient.Reply move = api.request(
                "PATCH",
                path,
                "application/json-patch+json",
                "[{\"op\":\"replace\",\"path\":\"/metadata/namespace\",\"value\":\"kube-system\"}]");
        assertThat(move.code()).as(move.raw()).isEqualTo(400);
        assertThat(move.body().path("message").asString())
                .isEqualTo("the namespace of the object (kube-system) does not match the namespace on the URL "
                        + "(default)");
        ApiClient.Reply reidentify = api.request(
                "PATCH",
                path,
                "application/json-patch+json",
                "[{\"op\":\"replace\",\"path\":\"/metadata/uid\",\"value\":\"0000\"}]");
        JsonNode invalid = assertInvalid(reidentify, "metadata.uid", null, null);
        assertThat(invalid.path("message").asString())
                .isEqualTo("ConfigMap \"ident\" is invalid: metadata.uid: Invalid value: \"0000\": field is immutable");
        assertInvalid(
                api.request(
                        "PATCH",
                        path,
                        "application/merge-patch+json",
                        "{\"metadata\":{\"uid\":\"1111\"},\"data\":{\"k\":\"changed\"}}"),
                "metadata.uid",
                null,
                null);

        // a PUT's uid is a precondition: another one is a 409
        ApiClient.Reply put = api.put(path, configMap("ident", ",\"uid\":\"2222\""));
        assertThat(put.code()).as(put.raw()).isEqualTo(409);
        assertThat(put.body().path("message").asString())
                .isEqualTo("Operation cannot be fulfilled on configmaps \"ident\": Precondition failed: UID in "
                        + "precondition: 2222, UID in object meta: " + uid);

        JsonNode after = api.get(path).body();
        assertThat(after.at("/metadata/uid").asString()).isEqualTo(uid);
        assertThat(after.at("/metadata/resourceVersion").asString())
                .isEqualTo(stored.at("/metadata/resourceVersion").asString());
        assertThat(api.get("/api/v1/namespaces/kube-system/configmaps/ident").code())
                .isEqualTo(404);
        assertThat(api.get(CONFIGMAPS + "/other").code()).isEqualTo(404);
        // leaving the uid out, or sending the same one, is fine
        ApiClient.Reply same = api.request(
                "PATCH",
                path,
                "application/merge-patch+json",
                "{\"metadata\":{\"uid\":\"" + uid + "\"},\"data\":{\"k\":\"v2\"}}");
        assertThat(same.code()).as(same.raw()).isEqualTo(200);
    }

    @Test
    void generationIsKeptOnlyWhereKubeKeepsOneAndMovesWithTheSpec() {
        JsonNode cm = api.create(CONFIGMAPS, configMap("gen", ""));
        assertThat(cm.at("/metadata").has("generation")).isFalse();
        JsonNode cmUpdated = api.request(
                        "PATCH", CONFIGMAPS + "/gen", "application/merge-patch+json", "{\"data\":{\"k\":\"v2\"}}")
                .body();
        assertThat(cmUpdated.at("/metadata").has("generation"))
                .as(cmUpdated.toString())
                .isFalse();

        String deployment = "{\"metadata\":{\"name\":\"gen\"},\"spec\":{\"replicas\":1,\"selector\":{\"matchLabels\":"
                + "{\"app\":\"gen\"}},\"template\":{\"metadata\":{\"labels\":{\"app\":\"gen\"}},\"spec\":"
                + "{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}}}";
        assertThat(api.create(DEPLOYMENTS, deployment)
                        .at("/metadata/generation")
                        .asLong())
                .isEqualTo(1);
        JsonNode labelled = api.request(
                        "PATCH",
                        DEPLOYMENTS + "/gen",
                        "application/merge-patch+json",
                        "{\"metadata\":{\"labels\":{\"x\":\"y\"}}}")
                .body();
        assertThat(labelled.at("/metadata/generation").asLong())
                .as("labels are not spec")
                .isEqualTo(1);
        JsonNode annotated = api.request(
                        "PATCH",
                        DEPLOYMENTS + "/gen",
                        "application/merge-patch+json",
                        "{\"metadata\":{\"annotations\":{\"x\":\"y\"}}}")
                .body();
        assertThat(annotated.at("/metadata/generation").asLong())
                .as("a Deployment's annotations count")
                .isEqualTo(2);
        JsonNode scaled = api.request(
                        "PATCH", DEPLOYMENTS + "/gen", "application/merge-patch+json", "{\"spec\":{\"replicas\":3}}")
                .body();
        assertThat(scaled.at("/metadata/generation").asLong()).isEqualTo(3);
    }

    @Test
    void customResourcesGetTheMetadataRulesButNotTheBuiltInFinalizerRule() {
        ApiClient.Reply crd = api.request("POST", Widgets.CRD_PATH, "application/yaml", Widgets.CRD);
        assertThat(crd.code()).as(crd.raw()).isEqualTo(201);
        String widgets = "/apis/example.com/v1/namespaces/default/widgets";
        eventually().until(() -> api.get(widgets).code() == 200);
        String bad = Widgets.widget("w1", 1).replace("\"name\":\"w1\"", "\"name\":\"w1\",\"labels\":{\"a\":\"b c\"}");
        JsonNode invalid = assertInvalid(api.post(widgets, bad), "metadata.labels", widgets, "w1");
        assertThat(invalid.at("/details/kind").asString()).isEqualTo("Widget");
        String finalized =
                Widgets.widget("w2", 1).replace("\"name\":\"w2\"", "\"name\":\"w2\",\"finalizers\":[\"mine\"]");
        JsonNode created = api.create(widgets, finalized);
        assertThat(created.at("/metadata/generation").asLong()).isEqualTo(1);
        JsonNode changed = api.request(
                        "PATCH", widgets + "/w2", "application/merge-patch+json", "{\"spec\":{\"replicas\":2}}")
                .body();
        assertThat(changed.at("/metadata/generation").asLong()).isEqualTo(2);
        api.request("PATCH", widgets + "/w2", "application/merge-patch+json", "{\"metadata\":{\"finalizers\":null}}");
    }

    private static org.awaitility.core.ConditionFactory eventually() {
        return org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(10))
                .pollInterval(java.time.Duration.ofMillis(10));
    }
}
