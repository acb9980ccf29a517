package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * OpenAPI v3 with the built-in kinds' schemas, over HTTP and through {@code kubectl explain}: the per-group-version
 * documents hold each kind's component with {@code x-kubernetes-group-version-kind} and every component it
 * references, as kube-apiserver 1.32's documents do.
 */
class OpenApiIT {

    private static EmbeddedApiServer server;
    private static final HttpClient http = HttpClient.newHttpClient();
    private static final JsonMapper json = JsonMapper.builder().build();

    @TempDir
    static Path dir;

    @BeforeAll
    static void start() {
        server = EmbeddedApiServer.builder().start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static HttpResponse<String> get(String path) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create(server.url() + path))
                        .header("Accept", "application/json")
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode document(String gv) throws Exception {
        String url = json.readTree(get("/openapi/v3").body())
                .get("paths")
                .get(gv)
                .get("serverRelativeURL")
                .asString();
        HttpResponse<String> doc = get(url);
        assertThat(doc.statusCode()).isEqualTo(200);
        assertThat(doc.headers().firstValue("Cache-Control"))
                .as("the hashed URL stays cacheable")
                .hasValue("public, immutable");
        assertThat(get(url).body()).as("the same bytes on every request").isEqualTo(doc.body());
        return json.readTree(doc.body());
    }

    @Test
    void coreDocumentHasThePodSchemaAndEverySchemaItReferences() throws Exception {
        JsonNode schemas = document("api/v1").get("components").get("schemas");
        JsonNode pod = schemas.get("io.k8s.api.core.v1.Pod");
        assertThat(pod.get("description").asString()).startsWith("Pod is a collection of containers");
        assertThat(pod.get("x-kubernetes-group-version-kind").get(0).toString())
                .isEqualTo("{\"group\":\"\",\"kind\":\"Pod\",\"version\":\"v1\"}");
        assertThat(pod.at("/properties/spec/allOf/0/$ref").asString())
                .isEqualTo("#/components/schemas/io.k8s.api.core.v1.PodSpec");
        assertThat(schemas.at("/io.k8s.api.core.v1.Container/properties/image/type")
                        .asString())
                .isEqualTo("string");
        // every reference resolves inside the document
        assertThat(json.writeValueAsString(schemas))
                .contains("\"$ref\":\"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta\"");
        schemas.findValues("$ref").stream()
                .filter(JsonNode::isString)
                .map(r -> r.asString().substring("#/components/schemas/".length()))
                .forEach(name -> assertThat(schemas.has(name)).as(name).isTrue());
        assertThat(schemas.has("io.k8s.api.apps.v1.Deployment"))
                .as("a document holds its own group-version's kinds")
                .isFalse();
    }

    @Test
    void appsDocumentHasTheDeploymentSchemaWithTheScaleBodyAndPatchOperation() throws Exception {
        JsonNode doc = document("apis/apps/v1");
        JsonNode schemas = doc.get("components").get("schemas");
        JsonNode replicas = schemas.at("/io.k8s.api.apps.v1.DeploymentSpec/properties/replicas");
        assertThat(replicas.get("type").asString()).isEqualTo("integer");
        assertThat(replicas.get("format").asString()).isEqualTo("int32");
        assertThat(replicas.get("description").asString()).startsWith("Number of desired pods.");
        assertThat(schemas.has("io.k8s.api.core.v1.PodTemplateSpec")).isTrue();
        assertThat(schemas.has("io.k8s.api.autoscaling.v1.Scale")).isTrue();
        JsonNode patch = doc.at("/paths/~1apis~1apps~1v1~1namespaces~1{namespace}~1deployments~1{name}/patch");
        assertThat(patch.at("/x-kubernetes-group-version-kind/kind").asString()).isEqualTo("Deployment");
        assertThat(patch.at("/responses/200/content/application~1json/schema/$ref")
                        .asString())
                .isEqualTo("#/components/schemas/io.k8s.api.apps.v1.Deployment");
    }

    @Test
    void customResourceMetadataIsObjectMetaAsInKubesDocuments() throws Exception {
        HttpResponse<String> created = http.send(
                HttpRequest.newBuilder(
                                URI.create(server.url() + "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("""
                                {"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
                                 "metadata":{"name":"gadgets.openapi.example.com"},
                                 "spec":{"group":"openapi.example.com","scope":"Namespaced",
                                  "names":{"plural":"gadgets","singular":"gadget","kind":"Gadget"},
                                  "versions":[{"name":"v1","served":true,"storage":true,
                                   "schema":{"openAPIV3Schema":{"type":"object","properties":{
                                    "spec":{"type":"object","properties":{"size":{"type":"integer"}}}}}}}]}}
                                """))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        await().atMost(Duration.ofSeconds(10))
                .until(() ->
                        json.readTree(get("/openapi/v3").body()).at("/paths").has("apis/openapi.example.com/v1"));
        JsonNode schemas =
                document("apis/openapi.example.com/v1").get("components").get("schemas");
        assertThat(schemas.at("/com.example.openapi.v1.Gadget/properties/metadata/allOf/0/$ref")
                        .asString())
                .isEqualTo("#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
        assertThat(schemas.has("io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry"))
                .isTrue();
        assertThat(schemas.at("/com.example.openapi.v1.Gadget/properties/spec/properties/size/type")
                        .asString())
                .isEqualTo("integer");
    }

    @Test
    void kubectlExplainPods() throws Exception {
        Kubectl.assumeInstalled();
        String out = kubectl().run("explain", "pods").ok().out();
        assertThat(out)
                .contains("KIND:       Pod")
                .contains("VERSION:    v1")
                .contains("Pod is a collection of containers that can run on a host.")
                .containsPattern("spec\\t<PodSpec>")
                .containsPattern("metadata\\t<ObjectMeta>");
    }

    @Test
    void kubectlExplainDeploymentSpecReplicasShowsItsTypeAndDescription() throws Exception {
        Kubectl.assumeInstalled();
        String out = kubectl().run("explain", "deployment.spec.replicas").ok().out();
        assertThat(out)
                .contains("GROUP:      apps")
                .contains("KIND:       Deployment")
                .contains("FIELD: replicas <integer>")
                .contains("Number of desired pods.");
    }

    @Test
    void kubectlExplainAContainerFieldAndTheRecursiveTree() throws Exception {
        Kubectl.assumeInstalled();
        Kubectl kubectl = kubectl();
        assertThat(kubectl.run("explain", "pods.spec.containers.image").ok().out())
                .contains("FIELD: image <string>")
                .contains("Container image name.");
        assertThat(kubectl.run("explain", "pods.spec.containers", "--recursive")
                        .ok()
                        .out())
                .contains("FIELD: containers <[]Container>")
                .containsPattern("\\n  name\\t<string> -required-")
                .containsPattern("\\n    containerPort\\t<integer> -required-")
                .containsPattern("\\n    limits\\t<map\\[string\\]Quantity>");
    }

    private static Kubectl kubectl() {
        return new Kubectl(server, dir);
    }
}
