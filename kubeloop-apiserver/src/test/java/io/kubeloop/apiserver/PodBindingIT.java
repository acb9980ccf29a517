package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.clock.FakeClock;
import java.time.Instant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;

/**
 * Assigning pods to nodes as a scheduler does, over real HTTP: {@code pods/{name}/binding} and the legacy
 * {@code bindings} collection, with kube's validation, conflicts, preconditions and answers (BindingREST.Create
 * and assignPod in kube's pkg/registry/core/pod/storage). One server for the class; each test its own pods.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PodBindingIT {

    private static final String PODS = "/api/v1/namespaces/default/pods";
    private static final Instant START = Instant.parse("2026-03-01T10:00:00Z");

    private final FakeClock clock = new FakeClock(START);
    private EmbeddedApiServer server;
    private ApiClient api;

    @BeforeAll
    void start() {
        server = EmbeddedApiServer.builder().clock(clock).start();
        api = new ApiClient(server.url());
    }

    @AfterAll
    void stop() {
        server.close();
    }

    private JsonNode pod(String name) {
        return api.create(
                PODS,
                "{\"metadata\":{\"name\":\"" + name + "\",\"annotations\":{\"keep\":\"me\"}},"
                        + "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}");
    }

    private static String binding(String pod, String node) {
        return "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":\"" + pod + "\"},"
                + "\"target\":{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"" + node + "\"}}";
    }

    private ApiClient.Reply bind(String pod, String body) {
        return api.post(PODS + "/" + pod + "/binding", body);
    }

    private static void assertStatus(ApiClient.Reply r, int code, String reason, String message) {
        assertThat(r.code()).as(r.raw()).isEqualTo(code);
        assertThat(r.body().get("reason").asString()).isEqualTo(reason);
        assertThat(r.body().get("message").asString()).isEqualTo(message);
    }

    @Test
    void aBindingSetsTheNodeAndThePodScheduledCondition() {
        pod("web-1");
        clock.step(java.time.Duration.ofSeconds(7));
        ApiClient.Reply r = api.post(
                PODS + "/web-1/binding",
                "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":\"web-1\","
                        + "\"annotations\":{\"scheduled-by\":\"test\"}},\"target\":{\"kind\":\"Node\",\"name\":\"node-1\"}}");
        assertThat(r.code()).as(r.raw()).isEqualTo(201);
        assertThat(r.body().get("kind").asString()).isEqualTo("Status");
        assertThat(r.body().get("status").asString()).isEqualTo("Success");
        assertThat(r.body().get("code").asInt()).isEqualTo(201);

        JsonNode pod = api.get(PODS + "/web-1").body();
        assertThat(pod.at("/spec/nodeName").asString()).isEqualTo("node-1");
        assertThat(pod.at("/metadata/annotations/keep").asString()).isEqualTo("me");
        assertThat(pod.at("/metadata/annotations/scheduled-by").asString()).isEqualTo("test");
        JsonNode scheduled = condition(pod, "PodScheduled");
        assertThat(scheduled.get("status").asString()).isEqualTo("True");
        assertThat(scheduled.get("lastTransitionTime").asString()).isEqualTo("2026-03-01T10:00:07Z");
        assertThat(scheduled.has("reason")).isFalse();

        assertStatus(
                bind("web-1", binding("web-1", "node-2")),
                409,
                "Conflict",
                "Operation cannot be fulfilled on pods/binding \"web-1\": pod web-1 is already assigned to node "
                        + "\"node-1\"");
        assertThat(api.get(PODS + "/web-1").body().at("/spec/nodeName").asString())
                .isEqualTo("node-1");
    }

    @Test
    void anUnschedulableConditionBecomesTrue() {
        pod("web-2");
        api.request(
                "PATCH",
                PODS + "/web-2/status",
                "application/merge-patch+json",
                "{\"status\":{\"conditions\":[{\"type\":\"PodScheduled\",\"status\":\"False\",\"reason\":"
                        + "\"Unschedulable\",\"message\":\"0/3 nodes are available\","
                        + "\"lastTransitionTime\":\"2026-03-01T09:00:00Z\"}]}}");
        assertThat(bind("web-2", binding("web-2", "node-3")).code()).isEqualTo(201);
        JsonNode scheduled = condition(api.get(PODS + "/web-2").body(), "PodScheduled");
        assertThat(scheduled.get("status").asString()).isEqualTo("True");
        assertThat(scheduled.has("reason")).as("reason and message cleared").isFalse();
        assertThat(scheduled.has("message")).isFalse();
        assertThat(scheduled.get("lastTransitionTime").asString()).isNotEqualTo("2026-03-01T09:00:00Z");
    }

    @Test
    void aBadBindingIsRefusedAndChangesNothing() {
        pod("web-3");
        assertStatus(
                bind("web-3", binding("web-4", "node-1")),
                400,
                "BadRequest",
                "name in URL does not match name in Binding object");
        assertStatus(
                bind("web-3", "{\"metadata\":{\"name\":\"web-3\"},\"target\":{\"kind\":\"Pod\",\"name\":\"x\"}}"),
                400,
                "BadRequest",
                "target.kind: Unsupported value: \"Pod\": supported values: \"Node\", \"<empty>\"");
        assertStatus(
                bind("web-3", "{\"metadata\":{\"name\":\"web-3\"},\"target\":{\"kind\":\"Pod\"}}"),
                400,
                "BadRequest",
                "[target.kind: Unsupported value: \"Pod\": supported values: \"Node\", \"<empty>\", target.name: "
                        + "Required value]");
        assertThat(bind("web-3", "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"web-3\"}}")
                        .code())
                .as("not a Binding")
                .isEqualTo(400);
        assertThat(api.request("GET", PODS + "/web-3/binding", null, null).code())
                .isEqualTo(405);
        assertStatus(bind("nope", binding("nope", "node-1")), 404, "NotFound", "pods \"nope\" not found");
        assertThat(api.get(PODS + "/web-3").body().at("/spec/nodeName").isMissingNode())
                .isTrue();
    }

    @Test
    void preconditionsTerminatingPodsAndSchedulingGates() {
        JsonNode pod = pod("web-5");
        String uid = pod.at("/metadata/uid").asString();
        String rv = pod.at("/metadata/resourceVersion").asString();
        assertStatus(
                bind("web-5", "{\"metadata\":{\"name\":\"web-5\",\"uid\":\"other\"},\"target\":{\"name\":\"node-1\"}}"),
                409,
                "Conflict",
                "Operation cannot be fulfilled on pods \"web-5\": Precondition failed: UID in precondition: other, "
                        + "UID in object meta: " + uid);
        assertStatus(
                bind(
                        "web-5",
                        "{\"metadata\":{\"name\":\"web-5\",\"resourceVersion\":\"1\"},\"target\":{\"name\":\"n\"}}"),
                409,
                "Conflict",
                "Operation cannot be fulfilled on pods \"web-5\": Precondition failed: ResourceVersion in "
                        + "precondition: 1, ResourceVersion in object meta: " + rv);
        ApiClient.Reply dryRun = api.post(
                PODS + "/web-5/binding?dryRun=All",
                "{\"metadata\":{\"name\":\"web-5\",\"uid\":\"" + uid + "\",\"resourceVersion\":\"" + rv
                        + "\"},\"target\":{\"name\":\"node-1\"}}");
        assertThat(dryRun.code()).isEqualTo(201);
        assertThat(api.get(PODS + "/web-5")
                        .body()
                        .at("/metadata/resourceVersion")
                        .asString())
                .as("a dry run writes nothing")
                .isEqualTo(rv);
        assertThat(bind(
                                "web-5",
                                "{\"metadata\":{\"name\":\"web-5\",\"uid\":\"" + uid + "\",\"resourceVersion\":\"" + rv
                                        + "\"},\"target\":{\"name\":\"node-1\"}}")
                        .code())
                .isEqualTo(201);

        api.create(
                PODS,
                "{\"metadata\":{\"name\":\"gated\"},\"spec\":{\"schedulingGates\":[{\"name\":\"wait\"}],"
                        + "\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}");
        assertStatus(
                bind("gated", binding("gated", "node-1")),
                409,
                "Conflict",
                "Operation cannot be fulfilled on pods/binding \"gated\": pod gated has non-empty "
                        + ".spec.schedulingGates");

        api.create(
                PODS,
                "{\"metadata\":{\"name\":\"held\",\"finalizers\":[\"example.com/hold\"]},"
                        + "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}");
        assertThat(api.delete(PODS + "/held").code()).isEqualTo(200);
        assertStatus(
                bind("held", binding("held", "node-1")),
                409,
                "Conflict",
                "Operation cannot be fulfilled on pods/binding \"held\": pod held is being deleted, cannot be "
                        + "assigned to a host");
    }

    @Test
    void theLegacyBindingsCollection() {
        pod("web-6");
        ApiClient.Reply r = api.post("/api/v1/namespaces/default/bindings", binding("web-6", "node-2"));
        assertThat(r.code()).as(r.raw()).isEqualTo(201);
        assertThat(r.body().get("status").asString()).isEqualTo("Success");
        assertThat(api.get(PODS + "/web-6").body().at("/spec/nodeName").asString())
                .isEqualTo("node-2");
        assertThat(api.get("/api/v1/namespaces/default/bindings").code()).isEqualTo(405);
        assertThat(api.get("/api/v1/bindings").code()).isEqualTo(404);
        assertStatus(
                api.post("/api/v1/namespaces/default/bindings", "{\"target\":{\"name\":\"node-1\"}}"),
                400,
                "BadRequest",
                "Name parameter required.");
    }

    @Test
    void aProtobufBindingAsClientGoSendsIt() {
        pod("web-7");
        ProtobufClient proto = new ProtobufClient(server.url());
        ProtobufClient.Reply r = proto.send(
                "POST",
                PODS + "/web-7/binding",
                ProtobufClient.PROTOBUF,
                ProtobufClient.encode("{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":\"web-7\","
                        + "\"namespace\":\"default\"},\"target\":{\"kind\":\"Node\",\"name\":\"node-3\"}}"),
                ProtobufClient.PROTOBUF);
        assertThat(r.code()).isEqualTo(201);
        assertThat(r.isProtobuf()).isTrue();
        assertThat(r.body().get("status").asString()).isEqualTo("Success");
        assertThat(api.get(PODS + "/web-7").body().at("/spec/nodeName").asString())
                .isEqualTo("node-3");
    }

    @Test
    void discoveryListsTheBindingSubresourceAndCollection() {
        JsonNode legacy = api.get("/api/v1").body().get("resources");
        JsonNode sub = named(legacy, "name", "pods/binding");
        assertThat(sub.get("kind").asString()).isEqualTo("Binding");
        assertThat(sub.get("verbs")).extracting(JsonNode::asString).containsExactly("create");
        JsonNode collection = named(legacy, "name", "bindings");
        assertThat(collection.get("namespaced").asBoolean()).isTrue();
        assertThat(collection.get("verbs")).extracting(JsonNode::asString).containsExactly("create");

        JsonNode core = api.get("/api", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
                .body()
                .at("/items/0/versions/0/resources");
        JsonNode binding = named(named(core, "resource", "pods").get("subresources"), "subresource", "binding");
        assertThat(binding.at("/responseKind/kind").asString()).isEqualTo("Binding");
        assertThat(binding.get("verbs")).extracting(JsonNode::asString).containsExactly("create");
    }

    private static JsonNode named(JsonNode array, String field, String value) {
        for (JsonNode n : array) {
            if (n.path(field).asString("").equals(value)) {
                return n;
            }
        }
        throw new AssertionError("no " + field + "=" + value + " in " + array);
    }

    private static JsonNode condition(JsonNode pod, String type) {
        return named(pod.at("/status/conditions"), "type", type);
    }
}
