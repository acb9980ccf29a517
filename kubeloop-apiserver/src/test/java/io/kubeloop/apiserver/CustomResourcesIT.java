package io.kubeloop.apiserver;

import static io.kubeloop.apiserver.Widgets.CRD;
import static io.kubeloop.apiserver.Widgets.CRD_PATH;
import static io.kubeloop.apiserver.Widgets.WIDGETS;
import static io.kubeloop.apiserver.Widgets.WIDGETS_BETA;
import static io.kubeloop.apiserver.Widgets.widget;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** CustomResourceDefinitions over HTTP: definition checks, serving, schemas, subresources, tables, deletion. */
class CustomResourcesIT extends EmbeddedServerTest {

    private static final String TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io";

    private JsonNode createCrd() {
        ApiClient.Reply r = api.request("POST", CRD_PATH, "application/yaml", CRD);
        assertThat(r.code()).as(r.raw()).isEqualTo(201);
        return r.body();
    }

    @Test
    void aCreatedDefinitionIsEstablishedAndServedAtOnce() {
        assertThat(api.get(WIDGETS).code()).isEqualTo(404);
        JsonNode crd = createCrd();

        JsonNode status = crd.get("status");
        assertThat(conditions(status)).containsExactly("NamesAccepted=True", "Established=True");
        assertThat(status.get("acceptedNames").get("kind").asString()).isEqualTo("Widget");
        assertThat(status.get("acceptedNames").get("listKind").asString()).isEqualTo("WidgetList");
        assertThat(status.get("storedVersions").toString()).isEqualTo("[\"v1\"]");
        assertThat(crd.at("/spec/conversion/strategy").asString()).isEqualTo("None");

        ApiClient.Reply list = api.get(WIDGETS);
        assertThat(list.code()).as(list.raw()).isEqualTo(200);
        assertThat(list.body().get("kind").asString()).isEqualTo("WidgetList");
        assertThat(list.body().get("apiVersion").asString()).isEqualTo("example.com/v1");
        assertThat(api.get("/apis/example.com/v1/widgets").code())
                .as("all namespaces")
                .isEqualTo(200);
        assertThat(api.get("/apis/example.com/v3/namespaces/default/widgets").code())
                .isEqualTo(404);
    }

    @Test
    void invalidDefinitionsAre422WithEveryCause() {
        String bad = """
                {"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
                 "metadata":{"name":"gadgets.example.com"},
                 "spec":{"group":"example.com","names":{"plural":"things"},
                  "versions":[{"name":"v1","served":false,"storage":false,
                    "schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"properties":{}}}}}},
                   {"name":"v2","served":false,"storage":false}]}}""";
        ApiClient.Reply r = api.post(CRD_PATH, bad);
        assertThat(r.code()).as(r.raw()).isEqualTo(422);
        assertThat(r.body().get("reason").asString()).isEqualTo("Invalid");
        assertThat(r.body().get("message").asString())
                .startsWith("CustomResourceDefinition.apiextensions.k8s.io \"gadgets.example.com\" is invalid: [");
        assertThat(causes(r.body()))
                .contains(
                        "spec.names.kind: Required value",
                        "metadata.name: Invalid value: \"gadgets.example.com\": must be spec.names.plural+\".\"+spec.group",
                        "spec.scope: Required value",
                        "spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty "
                                + "for specified object fields",
                        "spec.versions[1].schema.openAPIV3Schema: Required value: schemas are required",
                        "spec.versions: Invalid value: [v1, v2]: must have exactly one version marked as storage version",
                        "spec.versions: Invalid value: [v1, v2]: must have at least one served version");
        assertThat(api.get(CRD_PATH + "/gadgets.example.com").code()).isEqualTo(404);
    }

    @Test
    void objectsAreStoredOnceAndReadInEveryServedVersion() {
        createCrd();
        JsonNode created = api.create(WIDGETS, widget("w1", 2));
        assertThat(created.get("apiVersion").asString()).isEqualTo("example.com/v1");
        assertThat(created.at("/spec/color").asString()).as("defaulted").isEqualTo("blue");
        assertThat(created.at("/metadata/generation").asLong()).isEqualTo(1);

        ApiClient.Reply beta = api.get(WIDGETS_BETA + "/w1");
        assertThat(beta.code()).isEqualTo(200);
        assertThat(beta.body().get("apiVersion").asString()).isEqualTo("example.com/v1beta1");
        assertThat(beta.body().get("spec")).isEqualTo(created.get("spec"));
        assertThat(api.get(WIDGETS_BETA)
                        .body()
                        .get("items")
                        .get(0)
                        .at("/metadata/name")
                        .asString())
                .isEqualTo("w1");

        // written through v1beta1 (whose schema preserves anything), read through v1
        JsonNode current = beta.body();
        ((tools.jackson.databind.node.ObjectNode) current.get("spec")).put("replicas", 4);
        ApiClient.Reply put = api.put(WIDGETS_BETA + "/w1", current.toString());
        assertThat(put.code()).as(put.raw()).isEqualTo(200);
        assertThat(put.body().get("apiVersion").asString()).isEqualTo("example.com/v1beta1");
        JsonNode v1 = api.get(WIDGETS + "/w1").body();
        assertThat(v1.get("apiVersion").asString()).isEqualTo("example.com/v1");
        assertThat(v1.at("/spec/replicas").asInt()).isEqualTo(4);
        assertThat(v1.at("/metadata/generation").asLong()).isEqualTo(2);

        ApiClient.Reply merge = api.request(
                "PATCH", WIDGETS + "/w1", "application/merge-patch+json", "{\"spec\":{\"size\":\"large\"}}");
        assertThat(merge.code()).as(merge.raw()).isEqualTo(200);
        assertThat(merge.body().at("/spec/size").asString()).isEqualTo("large");
        ApiClient.Reply jsonPatch = api.request(
                "PATCH",
                WIDGETS_BETA + "/w1",
                "application/json-patch+json",
                "[{\"op\":\"replace\",\"path\":\"/spec/replicas\",\"value\":1}]");
        assertThat(jsonPatch.code()).as(jsonPatch.raw()).isEqualTo(200);
        ApiClient.Reply apply = api.request(
                "PATCH",
                WIDGETS + "/w2?fieldManager=test",
                "application/apply-patch+yaml",
                "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w2}\nspec: {size: large, replicas: 3}\n");
        assertThat(apply.code()).as(apply.raw()).isEqualTo(201);

        assertThat(api.delete(WIDGETS_BETA + "/w1").code()).isEqualTo(200);
        assertThat(api.get(WIDGETS + "/w1").code()).isEqualTo(404);
    }

    @Test
    void strategicMergePatchIs415AsForEveryCustomResource() {
        createCrd();
        api.create(WIDGETS, widget("w1", 1));
        ApiClient.Reply r = api.request(
                "PATCH", WIDGETS + "/w1", "application/strategic-merge-patch+json", "{\"spec\":{\"replicas\":2}}");
        assertThat(r.code()).isEqualTo(415);
        assertThat(r.body().get("message").asString())
                .isEqualTo("the body of the request was in an unknown format - "
                        + "accepted media types include: application/json-patch+json, application/merge-patch+json, "
                        + "application/apply-patch+yaml");
    }

    @Test
    void writesAreValidatedAgainstTheSchemaWithKubesMessages() {
        createCrd();
        ApiClient.Reply wrongType = api.post(WIDGETS, """
                {"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},
                 "spec":{"size":"small","replicas":"string"}}""");
        assertThat(wrongType.code()).isEqualTo(422);
        assertThat(wrongType.body().get("message").asString())
                .isEqualTo(
                        "Widget.example.com \"w\" is invalid: "
                                + "spec.replicas: Invalid value: \"string\": spec.replicas in body must be of type integer: \"string\"");
        assertThat(wrongType.body().at("/details/causes/0/reason").asString()).isEqualTo("FieldValueInvalid");
        assertThat(wrongType.body().at("/details/causes/0/field").asString()).isEqualTo("spec.replicas");

        ApiClient.Reply several = api.post(WIDGETS, """
                {"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},
                 "spec":{"replicas":-1,"port":true,"labels":{"a":1},"template":{"spec":{}},"note":null,
                  "color":null}}""");
        assertThat(several.code()).isEqualTo(422);
        assertThat(causes(several.body()))
                .containsExactlyInAnyOrder(
                        "spec.size: Required value",
                        "spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0",
                        "spec.port: Invalid value: \"boolean\": spec.port in body must be of type integer,string: \"boolean\"",
                        "spec.labels[a]: Invalid value: \"integer\": spec.labels[a] in body must be of type string: \"integer\"",
                        "spec.template.apiVersion: Required value: must not be empty",
                        "spec.template.kind: Required value: must not be empty");
        assertThat(several.body().at("/details/causes/0/reason").asString()).isEqualTo("FieldValueRequired");

        ApiClient.Reply badEnum = api.post(WIDGETS, """
                {"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":"huge"}}""");
        assertThat(causes(badEnum.body()))
                .containsExactly("spec.size: Unsupported value: \"huge\": supported values: \"small\", \"large\"");

        api.create(WIDGETS, widget("ok", 1));
        ApiClient.Reply badPatch = api.request(
                "PATCH", WIDGETS + "/ok", "application/merge-patch+json", "{\"spec\":{\"replicas\":\"many\"}}");
        assertThat(badPatch.code()).isEqualTo(422);
        ApiClient.Reply badStatus = api.request(
                "PATCH", WIDGETS + "/ok/status", "application/merge-patch+json", "{\"status\":{\"replicas\":\"x\"}}");
        assertThat(badStatus.code()).isEqualTo(422);
        assertThat(causes(badStatus.body()))
                .containsExactly(
                        "status.replicas: Invalid value: \"string\": status.replicas in body must be of type integer: \"string\"");
        assertThat(api.get(WIDGETS + "/ok").body().at("/spec/replicas").asInt())
                .as("unchanged")
                .isEqualTo(1);
    }

    @Test
    void unknownFieldsArePrunedUnlessTheSchemaPreservesThem() {
        createCrd();
        JsonNode w = api.create(WIDGETS, """
                {"apiVersion":"example.com/v1","kind":"Widget",
                 "metadata":{"name":"w","labels":{"app":"x"},"bogusMeta":1},
                 "spec":{"size":"small","bogus":true,"note":null,"extra":{"anything":{"goes":[1]}},
                  "template":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","junk":1},"spec":{"x":1}}},
                 "topLevel":"gone","status":{"replicas":2,"unknown":"gone"}}""");
        assertThat(w.has("topLevel")).isFalse();
        assertThat(w.get("spec").has("bogus")).isFalse();
        assertThat(w.at("/spec/note").isNull()).as("nullable null kept").isTrue();
        assertThat(w.at("/spec/extra/anything/goes/0").asInt()).isEqualTo(1);
        assertThat(w.at("/spec/template/spec/x").asInt()).isEqualTo(1);
        assertThat(w.at("/spec/template/metadata").has("junk")).isFalse();
        assertThat(w.get("metadata").has("bogusMeta")).isFalse();
        assertThat(w.at("/metadata/labels/app").asString()).isEqualTo("x");
        assertThat(w.get("status").has("unknown")).isFalse();
    }

    @Test
    void strictFieldValidationRejectsUnknownFieldsInsteadOfPruningThem() {
        createCrd();
        String body = """
                {"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","junk":1},
                 "spec":{"size":"small","bogus":true,"labels":{"a":"b"}}}""";
        ApiClient.Reply strict = api.post(WIDGETS + "?fieldValidation=Strict", body);
        assertThat(strict.code()).isEqualTo(400);
        assertThat(strict.body().get("reason").asString()).isEqualTo("BadRequest");
        assertThat(strict.body().get("message").asString())
                .isEqualTo(
                        "Widget in version \"v1\" cannot be handled "
                                + "as a Widget: strict decoding error: unknown field \"metadata.junk\", unknown field \"spec.bogus\"");
        assertThat(api.post(WIDGETS + "?fieldValidation=Ignore", body).code()).isEqualTo(201);
        ApiClient.Reply patch = api.request(
                "PATCH",
                WIDGETS + "/w?fieldValidation=Strict",
                "application/merge-patch+json",
                "{\"spec\":{\"other\":1}}");
        assertThat(patch.code()).isEqualTo(400);
        assertThat(patch.body().get("message").asString()).endsWith("unknown field \"spec.other\"");
    }

    @Test
    void statusAndScaleSubresourcesFollowTheDeclaredPaths() {
        createCrd();
        api.create(WIDGETS, widget("w", 2));
        ApiClient.Reply status = api.request("PATCH", WIDGETS + "/w/status", "application/merge-patch+json", """
                {"status":{"replicas":2,"selector":"app=w","conditions":[{"type":"Ready","status":"True"}]},
                 "spec":{"replicas":9}}""");
        assertThat(status.code()).as(status.raw()).isEqualTo(200);
        assertThat(status.body().at("/spec/replicas").asInt())
                .as("/status ignores spec")
                .isEqualTo(2);
        ApiClient.Reply main =
                api.request("PATCH", WIDGETS + "/w", "application/merge-patch+json", "{\"status\":{\"replicas\":7}}");
        assertThat(main.body().at("/status/replicas").asInt())
                .as("the main resource ignores status")
                .isEqualTo(2);

        JsonNode scale = api.get(WIDGETS + "/w/scale").body();
        assertThat(scale.get("kind").asString()).isEqualTo("Scale");
        assertThat(scale.at("/spec/replicas").asInt()).isEqualTo(2);
        assertThat(scale.at("/status/replicas").asInt()).isEqualTo(2);
        assertThat(scale.at("/status/selector").asString()).isEqualTo("app=w");

        ApiClient.Reply scaled = api.request(
                "PATCH", WIDGETS + "/w/scale", "application/merge-patch+json", "{\"spec\":{\"replicas\":5}}");
        assertThat(scaled.code()).as(scaled.raw()).isEqualTo(200);
        assertThat(scaled.body().at("/spec/replicas").asInt()).isEqualTo(5);
        assertThat(api.get(WIDGETS + "/w").body().at("/spec/replicas").asInt()).isEqualTo(5);
        assertThat(api.get(WIDGETS_BETA + "/w/scale").code())
                .as("v1beta1 declares no scale")
                .isEqualTo(404);
    }

    @Test
    void discoveryListsEveryServedVersionWithItsNames() {
        createCrd();
        JsonNode group = api.get("/apis/example.com").body();
        assertThat(group.at("/preferredVersion/version").asString())
                .as("kube's version priority")
                .isEqualTo("v1");
        assertThat(group.get("versions").size()).isEqualTo(2);
        JsonNode v1 = api.get("/apis/example.com/v1").body();
        List<String> names = new ArrayList<>();
        v1.get("resources").forEach(r -> names.add(r.get("name").asString()));
        assertThat(names).containsExactly("widgets", "widgets/scale", "widgets/status");
        JsonNode widgets = v1.get("resources").get(0);
        assertThat(widgets.get("shortNames").toString()).isEqualTo("[\"wd\"]");
        assertThat(widgets.get("categories").toString()).isEqualTo("[\"all\"]");
        assertThat(widgets.get("singularName").asString()).isEqualTo("widget");
        assertThat(widgets.get("namespaced").asBoolean()).isTrue();

        JsonNode aggregated = api.get("/apis", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
                .body();
        JsonNode example = null;
        for (JsonNode item : aggregated.get("items")) {
            if (item.at("/metadata/name").asString().equals("example.com")) {
                example = item;
            }
        }
        assertThat(example).isNotNull();
        assertThat(example.at("/versions/0/version").asString()).isEqualTo("v1");
        assertThat(example.at("/versions/1/version").asString()).isEqualTo("v1beta1");
        assertThat(example.at("/versions/1/resources/0/resource").asString()).isEqualTo("widgets");
        assertThat(example.at("/versions/1/resources/0/subresources/0/subresource")
                        .asString())
                .isEqualTo("status");
    }

    @Test
    void openApiHasTheSchemaAndPatchTypesWithoutStrategicMerge() {
        createCrd();
        JsonNode index = api.get("/openapi/v3").body();
        String url = index.at("/paths/apis~1example.com~1v1/serverRelativeURL").asString();
        assertThat(url).startsWith("/openapi/v3/apis/example.com/v1?hash=");
        JsonNode doc = api.get(url).body();
        JsonNode schema = doc.at("/components/schemas/com.example.v1.Widget");
        assertThat(schema.at("/properties/spec/properties/replicas/type").asString())
                .isEqualTo("integer");
        assertThat(schema.at("/x-kubernetes-group-version-kind/0/kind").asString())
                .isEqualTo("Widget");
        assertThat(schema.at("/properties/apiVersion/type").asString()).isEqualTo("string");
        JsonNode patch = doc.at("/paths/~1apis~1example.com~1v1~1namespaces~1{namespace}~1widgets~1{name}/patch");
        assertThat(patch.at("/requestBody/content").propertyNames())
                .containsExactlyInAnyOrder(
                        "application/apply-patch+yaml", "application/json-patch+json", "application/merge-patch+json");
        assertThat(api.get("/openapi/v3/apis/example.com/v1beta1")
                        .body()
                        .at(
                                "/components/schemas/com.example.v1beta1.Widget/properties/spec/x-kubernetes-preserve-unknown-fields")
                        .asBoolean())
                .isTrue();
    }

    @Test
    void tablesShowThePrinterColumnsOfTheVersionRead() {
        createCrd();
        api.create(WIDGETS, widget("w", 3));
        api.request(
                "PATCH",
                WIDGETS + "/w/status",
                "application/merge-patch+json",
                "{\"status\":{\"conditions\":[{\"type\":\"Synced\",\"status\":\"False\"},"
                        + "{\"type\":\"Ready\",\"status\":\"True\"}]}}");
        JsonNode table = api.get(WIDGETS, TABLE).body();
        List<String> columns = new ArrayList<>();
        table.get("columnDefinitions")
                .forEach(c -> columns.add(c.get("name").asString() + ":"
                        + c.get("type").asString() + ":" + c.get("priority").asInt()));
        assertThat(columns)
                .containsExactly(
                        "Name:string:0",
                        "Size:string:0",
                        "Replicas:integer:0",
                        "Ready:string:0",
                        "Color:string:1",
                        "Age:date:0");
        JsonNode cells = table.at("/rows/0/cells");
        assertThat(cells.get(0).asString()).isEqualTo("w");
        assertThat(cells.get(1).asString()).isEqualTo("small");
        assertThat(cells.get(2).isIntegralNumber()).isTrue();
        assertThat(cells.get(2).asInt()).isEqualTo(3);
        assertThat(cells.get(3).asString()).isEqualTo("True");
        assertThat(cells.get(4).asString()).isEqualTo("blue");
        assertThat(cells.get(5).asString()).matches("\\d+s");

        JsonNode beta = api.get(WIDGETS_BETA + "/w", TABLE).body();
        List<String> betaColumns = new ArrayList<>();
        beta.get("columnDefinitions").forEach(c -> betaColumns.add(c.get("name").asString()));
        assertThat(betaColumns).as("no columns declared: Name and Age").containsExactly("Name", "Age");
        JsonNode withObjects =
                api.get(WIDGETS_BETA + "?includeObject=Object", TABLE).body();
        assertThat(withObjects.at("/rows/0/object/apiVersion").asString()).isEqualTo("example.com/v1beta1");

        api.create(WIDGETS, """
                {"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"bare"},"spec":{"size":"large"}}""");
        JsonNode bare = api.get(WIDGETS + "/bare", TABLE).body();
        assertThat(bare.at("/rows/0/cells/2").isNull())
                .as("a missing value is a null cell")
                .isTrue();
    }

    @Test
    void updatingTheDefinitionChangesWhatIsServedAtOnce() throws Exception {
        createCrd();
        api.create(WIDGETS, widget("w", 1));
        String rv = api.get(WIDGETS_BETA).body().at("/metadata/resourceVersion").asString();
        try (ApiClient.Watch beta = api.watch(WIDGETS_BETA + "?watch=true&resourceVersion=" + rv)) {
            String unservedBeta = CRD.replace("name: v1beta1\n    served: true", "name: v1beta1\n    served: false")
                    .replace("- name: Size", "- name: Shape");
            assertThat(unservedBeta).contains("served: false");
            JsonNode current = api.get(CRD_PATH + "/widgets.example.com").body();
            ApiClient.Reply updated = api.request(
                    "PUT",
                    CRD_PATH + "/widgets.example.com",
                    "application/yaml",
                    unservedBeta.replace(
                            "  name: widgets.example.com",
                            "  name: widgets.example.com\n" + "  resourceVersion: \""
                                    + current.at("/metadata/resourceVersion").asString() + "\""));
            assertThat(updated.code()).as(updated.raw()).isEqualTo(200);
            assertThat(beta.endsWithoutMoreEvents())
                    .as("the watch on the unserved version ends")
                    .isTrue();
        }
        assertThat(api.get(WIDGETS_BETA + "/w").code()).isEqualTo(404);
        assertThat(api.get(WIDGETS + "/w").code()).isEqualTo(200);
        assertThat(api.get(WIDGETS, TABLE)
                        .body()
                        .at("/columnDefinitions/1/name")
                        .asString())
                .isEqualTo("Shape");
        assertThat(api.get("/apis/example.com").body().get("versions").size()).isEqualTo(1);

        ApiClient.Reply scope = api.request(
                "PUT",
                CRD_PATH + "/widgets.example.com",
                "application/yaml",
                CRD.replace("scope: Namespaced", "scope: Cluster"));
        assertThat(scope.code()).isEqualTo(422);
        assertThat(causes(scope.body())).containsExactly("spec.scope: Invalid value: \"Cluster\": field is immutable");
    }

    @Test
    void generationCountsChangesOutsideMetadataAndStatus() {
        createCrd();
        api.create(WIDGETS, widget("w", 1));
        ApiClient.Reply labels = api.request(
                "PATCH", WIDGETS + "/w", "application/merge-patch+json", "{\"metadata\":{\"labels\":{\"a\":\"b\"}}}");
        assertThat(labels.body().at("/metadata/generation").asLong()).isEqualTo(1);
        ApiClient.Reply spec =
                api.request("PATCH", WIDGETS + "/w", "application/merge-patch+json", "{\"spec\":{\"replicas\":2}}");
        assertThat(spec.body().at("/metadata/generation").asLong()).isEqualTo(2);
        ApiClient.Reply status = api.request(
                "PATCH", WIDGETS + "/w/status", "application/merge-patch+json", "{\"status\":{\"replicas\":2}}");
        assertThat(status.body().at("/metadata/generation").asLong()).isEqualTo(2);
    }

    @Test
    void aFailedDeletePreconditionLeavesTheObjects() {
        createCrd();
        api.create(WIDGETS, widget("w", 1));
        ApiClient.Reply r = api.request(
                "DELETE",
                CRD_PATH + "/widgets.example.com",
                "application/json",
                "{\"preconditions\":{\"uid\":\"not-the-uid\"}}");
        assertThat(r.code()).isEqualTo(409);
        assertThat(api.get(WIDGETS + "/w").code()).isEqualTo(200);
    }

    @Test
    void conflictingNamesAreNotAccepted() {
        createCrd();
        String clash = CRD.replace("name: widgets.example.com", "name: gizmos.example.com")
                .replace("plural: widgets", "plural: gizmos")
                .replace("singular: widget", "singular: gizmo")
                .replace("kind: Widget", "kind: Gizmo");
        ApiClient.Reply r = api.request("POST", CRD_PATH, "application/yaml", clash);
        assertThat(r.code()).as(r.raw()).isEqualTo(201);
        assertThat(conditions(r.body().get("status"))).containsExactly("NamesAccepted=False", "Established=False");
        assertThat(r.body().at("/status/conditions/0/message").asString()).isEqualTo("\"wd\" is already in use");
        assertThat(api.get("/apis/example.com/v1/namespaces/default/gizmos").code())
                .isEqualTo(404);
    }

    @Test
    void deletingTheDefinitionDeletesItsObjectsEndsWatchesAndStopsServing() throws Exception {
        createCrd();
        api.create(WIDGETS, widget("a", 1));
        api.create("/apis/example.com/v1/namespaces/kube-system/widgets", widget("b", 1));
        String rv = api.get("/apis/example.com/v1/widgets")
                .body()
                .at("/metadata/resourceVersion")
                .asString();
        try (ApiClient.Watch watch = api.watch("/apis/example.com/v1/widgets?watch=true&resourceVersion=" + rv)) {
            ApiClient.Reply deleted = api.delete(CRD_PATH + "/widgets.example.com");
            assertThat(deleted.code()).as(deleted.raw()).isEqualTo(200);
            List<String> events = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                JsonNode event = watch.next();
                events.add(event.get("type").asString() + " "
                        + event.at("/object/metadata/name").asString());
            }
            assertThat(events).containsExactlyInAnyOrder("DELETED a", "DELETED b");
            assertThat(watch.endsWithoutMoreEvents()).as("the watch ends").isTrue();
        }
        assertThat(api.get(WIDGETS).code()).isEqualTo(404);
        assertThat(api.get("/apis/example.com").code()).isEqualTo(404);
        assertThat(api.get("/openapi/v3").body().at("/paths").has("apis/example.com/v1"))
                .isFalse();
        assertThat(api.get(CRD_PATH + "/widgets.example.com").code()).isEqualTo(404);

        createCrd();
        assertThat(api.get(WIDGETS).body().get("items").size())
                .as("recreated empty")
                .isZero();
    }

    private static List<String> conditions(JsonNode status) {
        List<String> out = new ArrayList<>();
        status.get("conditions")
                .forEach(c ->
                        out.add(c.get("type").asString() + "=" + c.get("status").asString()));
        return out;
    }

    private static List<String> causes(JsonNode statusBody) {
        List<String> out = new ArrayList<>();
        statusBody
                .at("/details/causes")
                .forEach(c -> out.add(
                        c.get("field").asString() + ": " + c.get("message").asString()));
        return out;
    }
}
