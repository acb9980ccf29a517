package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMapList;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Built-in objects are checked against their kind's Go types before anything reads them, as kube-apiserver's
 * decoder checks them (issue 17 §2 "Types", "Numbers", "Unknown fields", §4 YAML aliases): every finding over real
 * HTTP, in each body format and after each patch type, with kube's wording, and nothing stored on a refusal.
 */
class TypeCheckingIT {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments";
    private static final String CONFIGMAPS = "/api/v1/namespaces/default/configmaps";
    private static final String PODS = "/api/v1/namespaces/default/pods";

    private static EmbeddedApiServer server;
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    record Answer(int code, JsonNode body, List<String> warnings) {
        String message() {
            return body.path("message").asString("");
        }
    }

    @BeforeAll
    static void start() {
        server = EmbeddedApiServer.builder().start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static String deployment(String name, String spec) {
        return "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"" + name + "\"},"
                + "\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"web\"}},\"template\":{\"metadata\":{\"labels\":"
                + "{\"app\":\"web\"}},\"spec\":{\"containers\":[{\"name\":\"nginx\",\"image\":\"nginx:1.25\"}]}}"
                + (spec.isEmpty() ? "" : "," + spec) + "}}";
    }

    static Answer send(String method, String path, String contentType, String body) {
        try {
            HttpRequest.Builder b = HttpRequest.newBuilder(server.url().resolve(path))
                    .method(method, HttpRequest.BodyPublishers.ofString(body));
            if (contentType != null) {
                b.header("Content-Type", contentType);
            }
            HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
            JsonNode json = r.body().isEmpty() ? JSON.createObjectNode() : JSON.readTree(r.body());
            return new Answer(r.statusCode(), json, r.headers().allValues("Warning"));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static Answer post(String path, String body) {
        return send("POST", path, "application/json", body);
    }

    static void assertBadRequest(Answer a, String message) {
        assertThat(a.code()).as(a.body().toString()).isEqualTo(400);
        assertThat(a.body().path("reason").asString()).isEqualTo("BadRequest");
        assertThat(a.message()).isEqualTo(message);
    }

    static void assertNotStored(String path) {
        assertThat(send("GET", path, null, "").code())
                .as("nothing was stored at " + path)
                .isEqualTo(404);
    }

    // ---- types

    @Test
    void wrongTypedFieldsOfBuiltInKindsAreRefusedWithGoWording() {
        String prefix = "Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot unmarshal ";
        assertBadRequest(
                post(
                        DEPLOYMENTS,
                        deployment("t1", "").replace("\"name\":\"t1\"}", "\"name\":\"t1\",\"annotations\":\"oops\"}")),
                prefix + "string into Go struct field ObjectMeta.metadata.annotations of type map[string]string");
        assertNotStored(DEPLOYMENTS + "/t1");
        assertBadRequest(
                post(DEPLOYMENTS, deployment("t2", "\"replicas\":\"three\"")),
                prefix + "string into Go struct field DeploymentSpec.spec.replicas of type int32");
        assertBadRequest(
                post(
                        DEPLOYMENTS,
                        deployment("t3", "")
                                .replace("[{\"name\":\"nginx\",\"image\":\"nginx:1.25\"}]", "{\"name\":\"nginx\"}")),
                prefix + "object into Go struct field PodSpec.spec.template.spec.containers of type []v1.Container");
        assertBadRequest(
                post(DEPLOYMENTS, deployment("t4", "").replace("\"image\":\"nginx:1.25\"", "\"image\":5")),
                prefix + "number into Go struct field Container.spec.template.spec.containers.image of type string");
        assertNotStored(DEPLOYMENTS + "/t4");

        assertBadRequest(
                post(
                        CONFIGMAPS,
                        "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c1\",\"labels\":42}}"),
                "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go "
                        + "struct field ObjectMeta.metadata.labels of type map[string]string");
        assertBadRequest(
                post(CONFIGMAPS, "{\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c1\",\"labels\":{\"a\":true}}}"),
                "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal bool into Go "
                        + "struct field ObjectMeta.metadata.labels of type string");
        assertNotStored(CONFIGMAPS + "/c1");
    }

    @Test
    void specialTypesAreCheckedAsTheirGoUnmarshalersDo() {
        String pod = "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"q1\"},\"spec\":{\"containers\":"
                + "[{\"name\":\"c\",\"image\":\"busybox\",\"resources\":{\"limits\":{\"cpu\":%s}}}]}}";
        assertBadRequest(
                post(PODS, pod.formatted("\"lots\"")),
                "Pod in version \"v1\" cannot be handled as a Pod: quantities must match the regular expression "
                        + "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
        assertNotStored(PODS + "/q1");
        assertThat(post(PODS, pod.formatted("\"500m\"")).code()).isEqualTo(201);
        send("DELETE", PODS + "/q1?gracePeriodSeconds=0", null, "");

        assertBadRequest(
                post(
                        CONFIGMAPS.replace("configmaps", "secrets"),
                        "{\"kind\":\"Secret\",\"metadata\":{\"name\":\"s1\"},\"data\":{\"k\":\"not base64!\"}}"),
                "Secret in version \"v1\" cannot be handled as a Secret: illegal base64 data at input byte 3");
    }

    // ---- numbers

    @Test
    void numbersAnIntegerFieldCannotHoldAreRefusedAtWrite() {
        String prefix = "Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot unmarshal ";
        assertBadRequest(
                post(DEPLOYMENTS, deployment("n1", "\"replicas\":1e400")),
                prefix + "number 1e400 into Go struct field DeploymentSpec.spec.replicas of type int32");
        assertBadRequest(
                post(DEPLOYMENTS, deployment("n1", "\"replicas\":3000000000")),
                prefix + "number 3000000000 into Go struct field DeploymentSpec.spec.replicas of type int32");
        assertBadRequest(
                post(DEPLOYMENTS, deployment("n1", "\"replicas\":1.5")),
                prefix + "number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32");
        assertNotStored(DEPLOYMENTS + "/n1");
        assertBadRequest(
                post(
                        PODS,
                        "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"n2\"},\"spec\":{\"terminationGracePeriodSeconds\":"
                                + "1e400,\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}]}}"),
                "Pod in version \"v1\" cannot be handled as a Pod: json: cannot unmarshal number 1e400 into Go struct "
                        + "field PodSpec.spec.terminationGracePeriodSeconds of type int64");
        assertNotStored(PODS + "/n2");

        Answer yaml = send("POST", DEPLOYMENTS, "application/yaml", """
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: n3}
                spec:
                  replicas: 2.0
                  selector: {matchLabels: {app: web}}
                  template:
                    metadata: {labels: {app: web}}
                    spec: {containers: [{name: nginx, image: nginx}]}
                """);
        assertThat(yaml.code()).as(yaml.body().toString()).isEqualTo(201);
        assertThat(yaml.body().path("spec").path("replicas").isIntegralNumber())
                .as("YAML's 2.0 is the integer 2, as sigs.k8s.io/yaml converts it")
                .isTrue();
        assertThat(send("GET", DEPLOYMENTS, null, "").code())
                .as("the list still serves")
                .isEqualTo(200);
    }

    // ---- unknown and duplicate fields

    @Test
    void unknownFieldsAreDroppedWithAWarningIgnoredOrRefusedPerFieldValidation() {
        String body =
                deployment("u1", "\"foo\":1").replace("\"image\":\"nginx:1.25\"", "\"image\":\"nginx\",\"bar\":2");
        Answer warn = post(DEPLOYMENTS, body);
        assertThat(warn.code()).as(warn.body().toString()).isEqualTo(201);
        assertThat(warn.warnings())
                .containsExactly(
                        "299 - \"unknown field \\\"spec.template.spec.containers[0].bar\\\"\"",
                        "299 - \"unknown field \\\"spec.foo\\\"\"");
        assertThat(warn.body().path("spec").has("foo")).as("dropped").isFalse();

        Answer ignore = post(DEPLOYMENTS + "?fieldValidation=Ignore", body.replace("u1", "u2"));
        assertThat(ignore.code()).isEqualTo(201);
        assertThat(ignore.warnings()).isEmpty();

        assertBadRequest(
                post(DEPLOYMENTS + "?fieldValidation=Strict", body.replace("u1", "u3")),
                "Deployment in version \"v1\" cannot be handled as a Deployment: strict decoding error: unknown field "
                        + "\"spec.template.spec.containers[0].bar\", unknown field \"spec.foo\"");
        assertNotStored(DEPLOYMENTS + "/u3");
    }

    @Test
    void duplicateKeysAreWarningsOrUnderStrictAnError() {
        String body = deployment("d1", "\"paused\":true,\"paused\":false");
        Answer warn = post(DEPLOYMENTS, body);
        assertThat(warn.code()).isEqualTo(201);
        assertThat(warn.warnings()).containsExactly("299 - \"duplicate field \\\"spec.paused\\\"\"");
        assertThat(warn.body().path("spec").path("paused").asBoolean(true))
                .as("the last value")
                .isFalse();

        assertBadRequest(
                post(
                        DEPLOYMENTS + "?fieldValidation=Strict",
                        body.replace("d1", "d2").replace("\"foo\"", "\"x\"")),
                "Deployment in version \"v1\" cannot be handled as a Deployment: strict decoding error: duplicate "
                        + "field \"spec.paused\"");
        assertNotStored(DEPLOYMENTS + "/d2");

        Answer yaml = send("POST", CONFIGMAPS + "?fieldValidation=Strict", "application/yaml", """
                apiVersion: v1
                kind: ConfigMap
                metadata:
                  name: d3
                data:
                  a: "1"
                  a: "2"
                """);
        assertBadRequest(
                yaml,
                "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict decoding error: line 7: key "
                        + "\"a\" already set in map");
        assertNotStored(CONFIGMAPS + "/d3");
    }

    // ---- YAML aliases

    @Test
    void yamlAliasesAreResolvedAsKubesDecoderDoesAndBillionLaughsIsRefused() {
        Answer ok = send("POST", CONFIGMAPS, "application/yaml", """
                apiVersion: v1
                kind: ConfigMap
                metadata:
                  name: y1
                  labels: &common {app: web, tier: front}
                  annotations:
                    <<: *common
                    owner: team-a
                data:
                  a: &x hello
                  b: *x
                """);
        assertThat(ok.code()).as(ok.body().toString()).isEqualTo(201);
        assertThat(ok.body().path("data").path("b").asString()).isEqualTo("hello");
        assertThat(ok.body().path("metadata").path("annotations").path("tier").asString())
                .isEqualTo("front");
        assertThat(ok.body().path("metadata").path("annotations").path("owner").asString())
                .isEqualTo("team-a");

        StringBuilder laughs = new StringBuilder(
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: y2}\nx0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
        for (int i = 1; i < 10; i++) {
            laughs.append("x").append(i).append(": &a").append(i).append(" [");
            for (int j = 0; j < 9; j++) {
                laughs.append(j == 0 ? "" : ", ").append("*a").append(i - 1);
            }
            laughs.append("]\n");
        }
        assertBadRequest(
                send("POST", CONFIGMAPS, "application/yaml", laughs.toString()),
                "error converting YAML to JSON: yaml: document contains excessive aliasing");
        assertNotStored(CONFIGMAPS + "/y2");
        assertBadRequest(
                send(
                        "POST",
                        CONFIGMAPS,
                        "application/yaml",
                        "kind: ConfigMap\nmetadata: {name: y3}\ndata: {a: *nope}\n"),
                "error converting YAML to JSON: yaml: unknown anchor 'nope' referenced");
    }

    // ---- patches

    @Test
    void everyPatchTypeIsTypeCheckedAndStoresNothingWhenRefused() {
        Answer created = post(DEPLOYMENTS, deployment("p1", "\"replicas\":2"));
        assertThat(created.code()).isEqualTo(201);
        String before = created.body().path("metadata").path("resourceVersion").asString();
        String one = DEPLOYMENTS + "/p1";

        Answer merge = send("PATCH", one, "application/merge-patch+json", "{\"spec\":{\"replicas\":\"three\"}}");
        assertInvalidPatch(
                merge, "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32");
        Answer json = send(
                "PATCH",
                one,
                "application/json-patch+json",
                "[{\"op\":\"add\",\"path\":\"/metadata/annotations\",\"value\":\"oops\"}]");
        assertInvalidPatch(
                json,
                "json: cannot unmarshal string into Go struct field ObjectMeta.metadata.annotations of type map[string]string");
        Answer strategic =
                send("PATCH", one, "application/strategic-merge-patch+json", "{\"metadata\":{\"labels\":42}}");
        assertInvalidPatch(
                strategic,
                "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type map[string]string");
        Answer status =
                send("PATCH", one + "/status", "application/merge-patch+json", "{\"status\":{\"replicas\":1e400}}");
        assertInvalidPatch(
                status,
                "json: cannot unmarshal number 1e400 into Go struct field DeploymentStatus.status.replicas of type int32");

        Answer apply = send(
                "PATCH",
                one + "?fieldManager=test&force=true",
                "application/apply-patch+yaml",
                "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: p1}\nspec: {replicas: three}\n");
        assertBadRequest(
                apply,
                "failed to create typed patch object (default/p1; apps/v1, Kind=Deployment): "
                        + ".spec.replicas: expected numeric (int or float), got string");
        Answer applyCreate = send(
                "PATCH",
                DEPLOYMENTS + "/p2?fieldManager=test",
                "application/apply-patch+yaml",
                "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: p2}\nspec: {foo: 1}\n");
        assertBadRequest(
                applyCreate,
                "failed to create typed patch object (/p2; apps/v1, Kind=Deployment): "
                        + ".spec.foo: field not declared in schema");
        assertNotStored(DEPLOYMENTS + "/p2");

        JsonNode stored = send("GET", one, null, "").body();
        assertThat(stored.path("spec").path("replicas").asInt()).isEqualTo(2);
        assertThat(stored.path("metadata").path("resourceVersion").asString())
                .as("no refused patch wrote")
                .isEqualTo(before);

        Answer unknown = send(
                "PATCH", one + "?fieldValidation=Strict", "application/merge-patch+json", "{\"spec\":{\"foo\":1}}");
        assertThat(unknown.code()).as(unknown.body().toString()).isEqualTo(422);
        assertThat(unknown.message()).endsWith(": strict decoding error: unknown field \"spec.foo\"");
        Answer warned = send("PATCH", one, "application/merge-patch+json", "{\"spec\":{\"foo\":1}}");
        assertThat(warned.code()).isEqualTo(200);
        assertThat(warned.warnings()).containsExactly("299 - \"unknown field \\\"spec.foo\\\"\"");
    }

    static void assertInvalidPatch(Answer a, String detail) {
        assertThat(a.code()).as(a.body().toString()).isEqualTo(422);
        assertThat(a.body().path("reason").asString()).isEqualTo("Invalid");
        assertThat(a.body().path("details").path("causes").path(0).path("field").asString())
                .as(a.body().toString())
                .isEqualTo("patch");
        assertThat(a.message())
                .startsWith(" \"\" is invalid: patch: Invalid value: \"{")
                .endsWith("\": " + detail);
    }

    // ---- clients

    @Test
    void typedClientsKeepReadingTheKindAfterARefusedWrite() {
        post(CONFIGMAPS, "{\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"k1\",\"annotations\":\"oops\"}}");
        assertThat(post(CONFIGMAPS, "{\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"k2\"},\"data\":{\"a\":\"b\"}}")
                        .code())
                .isEqualTo(201);
        JsonNode list = send("GET", CONFIGMAPS, null, "").body();
        ConfigMapList typed = JSON.treeToValue(list, ConfigMapList.class);
        assertThat(typed.getItems())
                .extracting(c -> c.getMetadata().getName())
                .contains("k2")
                .doesNotContain("k1");
    }

    @Test
    void kubectlsStrictValidationSeesTheRefusal(@TempDir Path dir) throws Exception {
        Kubectl.assumeInstalled();
        Kubectl kubectl = new Kubectl(server, dir);
        var wrong = kubectl.runWithInput("""
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: k1}
                spec:
                  replicas: three
                  selector: {matchLabels: {app: web}}
                  template:
                    metadata: {labels: {app: web}}
                    spec: {containers: [{name: nginx, image: nginx}]}
                """, "create", "-f", "-");
        assertThat(wrong.err())
                .contains("Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot unmarshal "
                        + "string into Go struct field DeploymentSpec.spec.replicas of type int32");
        var unknown = kubectl.runWithInput("""
                apiVersion: v1
                kind: ConfigMap
                metadata: {name: k3}
                date: {a: b}
                """, "apply", "-f", "-");
        assertThat(unknown.err()).contains("unknown field \"date\"");
        assertNotStored(CONFIGMAPS + "/k3");
    }
}
