package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Discovery, /version and health over real HTTP, shaped as kube-apiserver 1.32 serves them. */
class DiscoveryIT {

    private static final String AGGREGATED_ACCEPT =
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
                    + "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

    private static EmbeddedApiServer server;
    private static final HttpClient http = HttpClient.newHttpClient();
    private static final JsonMapper json = JsonMapper.builder().build();

    @BeforeAll
    static void start() {
        server = EmbeddedApiServer.builder().start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static HttpResponse<String> get(String path, String accept) throws IOException, InterruptedException {
        HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(server.url() + path));
        if (accept != null) {
            req.header("Accept", accept);
        }
        return http.send(req.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode getJson(String path) throws Exception {
        HttpResponse<String> r = get(path, "application/json");
        assertThat(r.statusCode()).as(path).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/json");
        return json.readTree(r.body());
    }

    @Test
    void versionReportsKubernetes132() throws Exception {
        JsonNode v = getJson("/version");
        assertThat(v.get("major").asString()).isEqualTo("1");
        assertThat(v.get("minor").asString()).isEqualTo("32");
        assertThat(v.get("gitVersion").asString()).startsWith("v1.32.");
    }

    @Test
    void legacyDiscoveryListsGroupsAndResources() throws Exception {
        JsonNode api = getJson("/api");
        assertThat(api.get("kind").asString()).isEqualTo("APIVersions");
        assertThat(api.get("versions").get(0).asString()).isEqualTo("v1");

        JsonNode apis = getJson("/apis");
        assertThat(apis.get("kind").asString()).isEqualTo("APIGroupList");
        assertThat(apis.get("groups"))
                .extracting(g -> g.get("name").asString())
                .containsExactly(
                        "apps",
                        "coordination.k8s.io",
                        "events.k8s.io",
                        "autoscaling",
                        "batch",
                        "networking.k8s.io",
                        "policy",
                        "storage.k8s.io",
                        "discovery.k8s.io",
                        "rbac.authorization.k8s.io",
                        "apiextensions.k8s.io",
                        "authorization.k8s.io",
                        "authentication.k8s.io");
        assertThat(apis.get("groups")
                        .get(0)
                        .get("preferredVersion")
                        .get("groupVersion")
                        .asString())
                .isEqualTo("apps/v1");

        JsonNode apps = getJson("/apis/apps");
        assertThat(apps.get("kind").asString()).isEqualTo("APIGroup");

        JsonNode core = getJson("/api/v1");
        assertThat(core.get("kind").asString()).isEqualTo("APIResourceList");
        assertThat(core.has("apiVersion"))
                .as("/api/v1 omits apiVersion, as kube-apiserver does")
                .isFalse();
        JsonNode pods = find(core, "pods");
        assertThat(pods.get("namespaced").asBoolean()).isTrue();
        assertThat(pods.get("shortNames").get(0).asString()).isEqualTo("po");
        assertThat(pods.get("categories").get(0).asString()).isEqualTo("all");
        assertThat(find(core, "pods/status").get("verbs"))
                .extracting(JsonNode::asString)
                .containsExactly("get", "patch", "update");

        JsonNode appsV1 = getJson("/apis/apps/v1");
        assertThat(appsV1.get("groupVersion").asString()).isEqualTo("apps/v1");
        JsonNode scale = find(appsV1, "deployments/scale");
        assertThat(scale.get("group").asString()).isEqualTo("autoscaling");
        assertThat(scale.get("kind").asString()).isEqualTo("Scale");
    }

    @Test
    void aggregatedDiscoveryIsServedWithItsExactContentType() throws Exception {
        for (String path : new String[] {"/api", "/apis"}) {
            HttpResponse<String> r = get(path, AGGREGATED_ACCEPT);
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("Content-Type"))
                    .hasValue("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
            JsonNode list = json.readTree(r.body());
            assertThat(list.get("kind").asString()).isEqualTo("APIGroupDiscoveryList");
            assertThat(list.get("apiVersion").asString()).isEqualTo("apidiscovery.k8s.io/v2");
        }
        JsonNode core = json.readTree(get("/api", AGGREGATED_ACCEPT).body());
        assertThat(core.get("items")).hasSize(1);
        assertThat(core.get("items").get(0).get("metadata").has("name")).isFalse();
        JsonNode coreResources = core.get("items").get(0).get("versions").get(0).get("resources");
        JsonNode nodes = findResource(coreResources, "nodes");
        assertThat(nodes.get("scope").asString()).isEqualTo("Cluster");
        assertThat(nodes.get("responseKind").get("kind").asString()).isEqualTo("Node");

        JsonNode named = json.readTree(get("/apis", AGGREGATED_ACCEPT).body());
        JsonNode deployments =
                findResource(named.get("items").get(0).get("versions").get(0).get("resources"), "deployments");
        assertThat(deployments.get("subresources"))
                .extracting(s -> s.get("subresource").asString())
                .containsExactly("scale", "status");
        assertThat(deployments
                        .get("subresources")
                        .get(0)
                        .get("responseKind")
                        .get("group")
                        .asString())
                .isEqualTo("autoscaling");
    }

    @Test
    void openApiV3ListsHashedDocumentsWithThePatchOperationsKubectlChecks() throws Exception {
        JsonNode index = getJson("/openapi/v3");
        String url =
                index.get("paths").get("apis/apps/v1").get("serverRelativeURL").asString();
        assertThat(url).matches("/openapi/v3/apis/apps/v1\\?hash=[0-9A-F]{128}");
        assertThat(index.get("paths").has("api/v1")).isTrue();

        HttpResponse<String> doc = get(url, "application/json");
        assertThat(doc.statusCode()).isEqualTo(200);
        assertThat(doc.headers().firstValue("Cache-Control")).hasValue("public, immutable");
        JsonNode patch = json.readTree(doc.body())
                .get("paths")
                .get("/apis/apps/v1/namespaces/{namespace}/deployments/{name}")
                .get("patch");
        assertThat(patch.get("x-kubernetes-group-version-kind").get("kind").asString())
                .isEqualTo("Deployment");
        assertThat(patch.get("parameters"))
                .extracting(p -> p.get("name").asString())
                .contains("fieldValidation");
        assertThat(patch.get("requestBody").get("content").has("application/strategic-merge-patch+json"))
                .as("kubectl then computes strategic merge patches from its compiled-in types")
                .isFalse();
        assertThat(json.readTree(get("/openapi/v3/api/v1", "application/json").body())
                        .get("paths")
                        .has("/api/v1/nodes/{name}"))
                .as("cluster-scoped paths have no namespace")
                .isTrue();
        assertThat(get("/openapi/v3/apis/nope/v1", "application/json").statusCode())
                .isEqualTo(404);
        assertThat(get("/openapi/v2", "application/json").statusCode())
                .as("kubectl reads v2 only as protobuf")
                .isEqualTo(404);
    }

    @Test
    void healthEndpointsAnswerOk() throws Exception {
        for (String path : new String[] {"/healthz", "/livez", "/readyz", "/livez/ping"}) {
            HttpResponse<String> r = get(path, null);
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("ok");
            assertThat(r.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
        }
        assertThat(get("/readyz?verbose", null).body()).endsWith("readyz check passed\n");
    }

    @Test
    void unknownRoutesAnswerA404Status() throws Exception {
        for (String path : new String[] {"/nope", "/apis/widgets.example.com", "/apis/apps/v2", "/api/v1/widgets"}) {
            HttpResponse<String> r = get(path, "application/json");
            assertThat(r.statusCode()).as(path).isEqualTo(404);
            JsonNode status = json.readTree(r.body());
            assertThat(status.get("kind").asString()).isEqualTo("Status");
            assertThat(status.get("reason").asString()).isEqualTo("NotFound");
            assertThat(status.get("message").asString()).isEqualTo("the server could not find the requested resource");
        }
    }

    @Test
    void writesToDiscoveryAreMethodNotAllowed() throws Exception {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create(server.url() + "/api/v1"))
                        .POST(HttpRequest.BodyPublishers.ofString("{}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(405);
        assertThat(json.readTree(r.body()).get("reason").asString()).isEqualTo("MethodNotAllowed");
    }

    private static JsonNode find(JsonNode resourceList, String name) {
        for (JsonNode r : resourceList.get("resources")) {
            if (r.get("name").asString().equals(name)) {
                return r;
            }
        }
        throw new AssertionError("no resource " + name + " in " + resourceList);
    }

    private static JsonNode findResource(JsonNode resources, String name) {
        for (JsonNode r : resources) {
            if (r.get("resource").asString().equals(name)) {
                return r;
            }
        }
        throw new AssertionError("no resource " + name + " in " + resources);
    }
}
