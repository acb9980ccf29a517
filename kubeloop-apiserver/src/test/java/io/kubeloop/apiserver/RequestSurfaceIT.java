package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.apiserver.ApiClient.Reply;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The request surface around the verbs, over real HTTP, as kube-apiserver answers it: the kubelet subresources of
 * pods, Accept negotiation (406, YAML, metadata-only PartialObjectMetadata[List] answers), ListOptions and
 * PatchOptions validation, watches from resourceVersions no revision reaches, and error messages free of the JSON
 * library's internals. One server for the class: every test uses its own names.
 */
class RequestSurfaceIT {

    static final String PARTIAL_LIST_V1 = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
    static final String PARTIAL_V1 = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";
    /** What client-go's metadata client sends for a list (protobuf first, then JSON, then plain JSON). */
    static final String METADATA_CLIENT_LIST = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;"
            + "g=meta.k8s.io;v=v1," + PARTIAL_LIST_V1 + ",application/json";

    static EmbeddedApiServer server;
    static ApiClient api;

    @BeforeAll
    static void start() {
        server = EmbeddedApiServer.builder().start();
        api = new ApiClient(server.url());
        api.create("/api/v1/namespaces", "{\"metadata\":{\"name\":\"surface\"}}");
        pod("solo", "{\"name\":\"c\",\"image\":\"nginx\"}");
        pod("duo", "{\"name\":\"a\",\"image\":\"nginx\"},{\"name\":\"b\",\"image\":\"nginx\"}");
        api.create("/api/v1/nodes", "{\"metadata\":{\"name\":\"node-1\"}}");
        api.create(
                "/api/v1/namespaces/surface/pods",
                "{\"metadata\":{\"name\":\"web-1\"},\"spec\":{\"nodeName\":\"node-1\",\"containers\":[{\"name\":\"c\","
                        + "\"image\":\"nginx\"}]}}");
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static JsonNode pod(String name, String containers) {
        return api.create(
                "/api/v1/namespaces/surface/pods",
                "{\"metadata\":{\"name\":\"" + name + "\",\"labels\":{\"app\":\"surface\"}},\"spec\":{\"containers\":["
                        + containers + "]}}");
    }

    private static void assertStatus(Reply reply, int code, String reason, String message) {
        assertThat(reply.code()).as(reply.raw()).isEqualTo(code);
        assertThat(reply.body().get("kind").asString()).isEqualTo("Status");
        assertThat(reply.body().get("reason").asString()).isEqualTo(reason);
        assertThat(reply.body().get("message").asString()).isEqualTo(message);
    }

    // ---- pods/log, exec, attach, portforward

    @Test
    void theKubeletSubresourcesOfAPodSayThereIsNoContainerRuntime() {
        String pods = "/api/v1/namespaces/surface/pods/";
        Map<String, Reply> replies = Map.of(
                "log", api.get(pods + "solo/log"),
                "exec", api.request("POST", pods + "solo/exec?command=ls&stdout=true", null, null),
                "attach", api.request("GET", pods + "solo/attach?stdout=true", null, null),
                "portforward", api.request("POST", pods + "solo/portforward?ports=80", null, null));
        replies.forEach((sub, reply) -> {
            assertThat(reply.code()).as(sub + ": " + reply.raw()).isEqualTo(400);
            assertThat(reply.body().get("reason").asString()).isEqualTo("BadRequest");
            assertThat(reply.body().get("message").asString())
                    .isEqualTo("pod solo does not have a host assigned: the embedded API server runs no kubelet and no"
                            + " container runtime, so pods/" + sub + " cannot be served (it stores pods; nothing runs"
                            + " them)");
        });
        assertStatus(api.get(pods + "missing/log"), 404, "NotFound", "pods \"missing\" not found");
        assertStatus(
                api.get(pods + "duo/log"),
                400,
                "BadRequest",
                "a container name must be specified for pod duo, choose one of: [a b]");
        assertStatus(
                api.get(pods + "solo/log?container=x"), 400, "BadRequest", "container x is not valid for pod solo");
        assertThat(api.get(pods + "duo/log?container=b").body().get("message").asString())
                .startsWith("pod duo does not have a host assigned");
        assertThat(api.request("PUT", pods + "solo/log", "application/json", "{}")
                        .code())
                .isEqualTo(405);
    }

    @Test
    void aPodOnANodeOfTheEmbeddedClusterHasNoContainerRuntimeEither() {
        String pod = "/api/v1/namespaces/surface/pods/web-1/";
        String prefix = "pod \"web-1\" runs on node \"node-1\" of kubeloop's embedded cluster, which has no container "
                + "runtime: ";
        assertStatus(api.get(pod + "log"), 400, "BadRequest", prefix + "there are no logs to read");
        assertStatus(
                api.request("POST", pod + "exec?command=ls&stdout=true", null, null),
                400,
                "BadRequest",
                prefix + "there is no container to run a command in");
        assertStatus(
                api.request("POST", pod + "attach?stdout=true", null, null),
                400,
                "BadRequest",
                prefix + "there is no running process to attach to");
        assertStatus(
                api.request("POST", pod + "portforward?ports=80", null, null),
                400,
                "BadRequest",
                prefix + "there is no port to forward to");
    }

    @Test
    void kubectlLogsAndExecSayWhyTheyCannotRun(@TempDir Path dir) throws Exception {
        Kubectl.assumeInstalled();
        Kubectl kubectl = new Kubectl(server, dir);
        Kubectl.Result logs = kubectl.run("logs", "-n", "surface", "solo");
        assertThat(logs.exit()).isNotZero();
        assertThat(logs.err()).contains("pod solo does not have a host assigned", "no container runtime");
        Kubectl.Result exec = kubectl.run("exec", "-n", "surface", "solo", "--", "ls");
        assertThat(exec.exit()).isNotZero();
        assertThat(exec.err()).contains("no container runtime");
        Kubectl.Result bound = kubectl.run("logs", "-n", "surface", "web-1");
        assertThat(bound.exit()).isNotZero();
        assertThat(bound.err())
                .contains("pod \"web-1\" runs on node \"node-1\" of kubeloop's embedded cluster, which has no "
                        + "container runtime: there are no logs to read");
        // metrics.k8s.io is not served (no metrics-server): kubectl top says so, as on a cluster without one
        for (String what : new String[] {"pod", "node"}) {
            Kubectl.Result top = kubectl.run("top", what, "-n", "surface");
            assertThat(top.exit()).as("top " + what).isNotZero();
            assertThat(top.err()).as("top " + what).contains("error: Metrics API not available");
        }
    }

    // ---- Accept

    @Test
    void anAcceptThatCannotBeServedIs406AndYamlIsServed() throws Exception {
        String list = "/api/v1/namespaces/surface/pods";
        assertStatus(
                api.get(list, "text/html"),
                406,
                "NotAcceptable",
                "only the following media types are accepted: application/json, application/yaml, "
                        + "application/vnd.kubernetes.protobuf");
        assertThat(api.get(list + "/solo", "application/json;as=Foo;g=meta.k8s.io;v=v1")
                        .code())
                .isEqualTo(406);
        assertThat(api.request("POST", list, "application/json", "{}", Map.of("Accept", "text/html"))
                        .code())
                .as("negotiated before the write")
                .isEqualTo(406);
        assertThat(api.get(list, "text/html, application/json;q=0.5")
                        .body()
                        .get("kind")
                        .asString())
                .isEqualTo("PodList");
        assertThat(api.get(list + "?watch=true", "application/yaml").code()).isEqualTo(406);

        HttpResponse<String> yaml = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(server.url() + list + "/solo"))
                                .header("Accept", "application/yaml")
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(yaml.statusCode()).isEqualTo(200);
        assertThat(yaml.headers().firstValue("Content-Type")).hasValue("application/yaml");
        JsonNode fromYaml = YAMLMapper.builder().build().readTree(yaml.body());
        assertThat(fromYaml.get("kind").asString()).isEqualTo("Pod");
        assertThat(fromYaml.at("/metadata/name").asString()).isEqualTo("solo");
    }

    // ---- PartialObjectMetadata

    @Test
    void metadataOnlyAnswersForGetListAndWatch() throws Exception {
        String pods = "/api/v1/namespaces/surface/pods";
        JsonNode one = api.get(pods + "/solo", PARTIAL_V1).body();
        assertThat(one.get("kind").asString()).isEqualTo("PartialObjectMetadata");
        assertThat(one.get("apiVersion").asString()).isEqualTo("meta.k8s.io/v1");
        assertThat(one.at("/metadata/name").asString()).isEqualTo("solo");
        assertThat(one.at("/metadata/labels/app").asString()).isEqualTo("surface");
        assertThat(one.has("spec")).isFalse();

        JsonNode list =
                api.get(pods + "?labelSelector=app%3Dsurface", PARTIAL_LIST_V1).body();
        assertThat(list.get("kind").asString()).isEqualTo("PartialObjectMetadataList");
        assertThat(list.get("apiVersion").asString()).isEqualTo("meta.k8s.io/v1");
        assertThat(list.at("/metadata/resourceVersion").asString()).isNotEmpty();
        assertThat(list.get("items"))
                .extracting(i ->
                        i.get("kind").asString() + " " + i.at("/metadata/name").asString())
                .containsExactly("PartialObjectMetadata duo", "PartialObjectMetadata solo");
        assertThat(list.get("items").get(0).has("spec")).isFalse();

        JsonNode beta = api.get(
                        pods + "?limit=1", "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1beta1")
                .body();
        assertThat(beta.get("apiVersion").asString()).isEqualTo("meta.k8s.io/v1beta1");
        assertThat(beta.at("/metadata/continue").asString())
                .as("paging keeps working")
                .isNotEmpty();
        assertThat(beta.get("items").get(0).get("apiVersion").asString()).isEqualTo("meta.k8s.io/v1beta1");

        assertStatus(
                api.get(pods + "/solo", PARTIAL_LIST_V1),
                406,
                "NotAcceptable",
                "you requested PartialObjectMetadataList, but the requested object is not a list (*v1.Pod)");
        assertStatus(
                api.get(pods, PARTIAL_V1),
                406,
                "NotAcceptable",
                "you requested PartialObjectMetadata, but the requested object is a list (*v1.PodList)");

        try (ApiClient.Watch watch = api.watch(pods + "?watch=true&labelSelector=app%3Dsurface", PARTIAL_V1)) {
            assertThat(watch.code).isEqualTo(200);
            JsonNode event = watch.next();
            assertThat(event.get("type").asString()).isEqualTo("ADDED");
            assertThat(event.at("/object/kind").asString()).isEqualTo("PartialObjectMetadata");
            assertThat(event.at("/object/spec").isMissingNode()).isTrue();
        }
    }

    @Test
    void theMetadataClientsProtobufListIsAPartialObjectMetadataList() throws Exception {
        HttpResponse<byte[]> reply = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(
                                        server.url() + "/api/v1/namespaces/surface/pods?labelSelector=app%3Dsurface"))
                                .header("Accept", METADATA_CLIENT_LIST)
                                .build(),
                        HttpResponse.BodyHandlers.ofByteArray());
        assertThat(reply.statusCode()).isEqualTo(200);
        assertThat(reply.headers().firstValue("Content-Type")).hasValue(ProtobufClient.PROTOBUF);
        JsonNode list = ProtobufClient.CODEC.decode(reply.body());
        assertThat(list.get("kind").asString()).isEqualTo("PartialObjectMetadataList");
        assertThat(list.get("items"))
                .extracting(i -> i.at("/metadata/name").asString())
                .containsExactly("duo", "solo");
    }

    // ---- ListOptions

    @Test
    void listOptionsAreValidatedAsKubeDoes() throws Exception {
        String pods = "/api/v1/namespaces/surface/pods";
        assertStatus(
                api.get(pods + "?resourceVersion=1&resourceVersionMatch=Foo"),
                422,
                "Invalid",
                "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Unsupported value: \"Foo\": "
                        + "supported values: \"Exact\", \"NotOlderThan\", \"\"");
        assertStatus(
                api.get(pods + "?sendInitialEvents=false"),
                422,
                "Invalid",
                "ListOptions.meta.k8s.io \"\" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is "
                        + "forbidden for list");
        assertStatus(
                api.get(pods + "?watch=true&sendInitialEvents=true&resourceVersionMatch=Exact"),
                422,
                "Invalid",
                "ListOptions.meta.k8s.io \"\" is invalid: [resourceVersionMatch: Forbidden: sendInitialEvents "
                        + "requires setting resourceVersionMatch to NotOlderThan, resourceVersionMatch: Unsupported "
                        + "value: \"Exact\": supported values: \"NotOlderThan\"]");
        assertThat(api.get(pods + "?watch=false").body().get("kind").asString()).isEqualTo("PodList");
        try (ApiClient.Watch watch = api.watch(pods + "?watch=yes&timeoutSeconds=5")) {
            assertThat(watch.next().get("type").asString())
                    .as("kube reads any watch value but 0 and false as true")
                    .isEqualTo("ADDED");
        }
        try (ApiClient.Watch watch = api.watch(
                pods + "?watch=1&sendInitialEvents=false" + "&resourceVersionMatch=NotOlderThan&timeoutSeconds=10")) {
            assertThat(watch.code).isEqualTo(200);
            api.create(
                    "/api/v1/namespaces/surface/pods",
                    "{\"metadata\":{\"name\":\"late\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}");
            JsonNode first = watch.next();
            assertThat(first.at("/object/metadata/name").asString())
                    .as("no initial events, only what happens next")
                    .isEqualTo("late");
        }
    }

    @Test
    void aWatchFromAResourceVersionNoRevisionReachesWaitsAsKubeDoes() throws Exception {
        String pods = "/api/v1/namespaces/surface/pods?watch=true&timeoutSeconds=1&resourceVersion=";
        for (String rv : new String[] {"9223372036854775807", "9223372036854775808", "18446744073709551615"}) {
            try (ApiClient.Watch watch = api.watch(pods + rv)) {
                assertThat(watch.code).as(rv).isEqualTo(200);
                assertThat(watch.endsWithoutMoreEvents()).as(rv).isTrue();
            }
        }
        assertStatus(
                api.get(pods + "18446744073709551616"),
                400,
                "BadRequest",
                "invalid resource version: 18446744073709551616");
        assertThat(api.get("/version").code()).as("the server still answers").isEqualTo(200);
    }

    // ---- server-side apply

    @Test
    void serverSideApplyRefusesWhatKubeRefuses() {
        String cm = "/api/v1/namespaces/surface/configmaps/";
        String apply = "application/apply-patch+yaml";
        assertStatus(
                api.request(
                        "PATCH",
                        cm + "ssa?fieldManager=t",
                        apply,
                        "{\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"ssa\"}}"),
                400,
                "BadRequest",
                "invalid object type: /v1, Kind=");
        assertStatus(
                api.request(
                        "PATCH",
                        cm + "ssa?fieldManager=t",
                        apply,
                        "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"other\"}}"),
                400,
                "BadRequest",
                "the name of the object (other) does not match the name on the URL (ssa)");
        assertStatus(
                api.request("PATCH", cm + "ssa", apply, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"}"),
                422,
                "Invalid",
                "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch");
        assertThat(api.get(cm + "ssa").code()).as("nothing stored").isEqualTo(404);
        assertThat(api.get(cm + "other").code()).isEqualTo(404);

        Reply forced = api.request(
                "PATCH",
                cm + "ssa?fieldManager=t&force=maybe",
                apply,
                "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"ssa\"},\"data\":{\"k\":\"v\"}}");
        assertThat(forced.code())
                .as("kube reads force=maybe as true: %s", forced.raw())
                .isEqualTo(201);
        assertStatus(
                api.request("PATCH", cm + "ssa?force=true", "application/merge-patch+json", "{\"data\":{\"k\":\"w\"}}"),
                422,
                "Invalid",
                "PatchOptions.meta.k8s.io \"\" is invalid: force: Forbidden: may not be specified for non-apply patch");
        assertThat(api.get(cm + "ssa").body().at("/data/k").asString()).isEqualTo("v");
    }

    @Test
    void jacksonsNamesStayOutOfErrorMessages() {
        String notJson = Base64.getUrlEncoder().encodeToString("{\"v\":".getBytes(StandardCharsets.UTF_8));
        Reply badContinue = api.get("/api/v1/namespaces/surface/pods?limit=1&continue=" + notJson);
        assertThat(badContinue.code()).isEqualTo(400);
        Reply badBody = api.post("/api/v1/namespaces/surface/configmaps", "{\"metadata\":{\"name\":1,}");
        assertThat(badBody.code()).isEqualTo(400);
        Reply badYaml = api.request("POST", "/api/v1/namespaces/surface/configmaps", "application/yaml", "a: [b\n");
        assertThat(badYaml.code()).isEqualTo(400);
        for (Reply reply : new Reply[] {badContinue, badBody, badYaml}) {
            assertThat(reply.body().get("message").asString())
                    .doesNotContain("jackson", "Jackson", "Exception", "StreamRead", "Source:", "REDACTED");
        }
        assertThat(badContinue.body().get("message").asString()).startsWith("continue key is not valid: ");
    }
}
