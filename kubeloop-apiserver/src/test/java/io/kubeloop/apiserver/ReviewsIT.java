package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.apiserver.internal.protobuf.ProtoWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HexFormat;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** The review kinds over HTTP, in JSON and in the protobuf client-go sends. */
class ReviewsIT {

    private static final String SSAR = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
    private static final String SAR = "/apis/authorization.k8s.io/v1/subjectaccessreviews";
    private static final String SSR = "/apis/authentication.k8s.io/v1/selfsubjectreviews";
    private static final String PROTOBUF = "application/vnd.kubernetes.protobuf";
    /** The body kubectl v1.32 sends for {@code kubectl auth can-i list pods}, captured from the wire. */
    private static final byte[] KUBECTL_CAN_I_LIST_PODS = HexFormat.of()
            .parseHex("6b3873000a320a17617574686f72697a"
                    + "6174696f6e2e6b38732e696f2f7631121753656c665375626a656374416363657373526576696577123d0a100a0012001a002200"
                    + "2a00320038004200121f0a1d0a0764656661756c7412046c6973741a0022002a04706f647332003a001a08080012001a002000"
                    + "1a002200");
    /** The body of {@code kubectl auth whoami}. */
    private static final byte[] KUBECTL_WHOAMI = HexFormat.of()
            .parseHex("6b3873000a2d0a1861757468656e746963617469"
                    + "6f6e2e6b38732e696f2f7631121153656c665375626a656374526576696577121a0a100a0012001a0022002a00320038004200"
                    + "12060a040a0012001a002200");

    private final HttpClient http = HttpClient.newHttpClient();
    private EmbeddedApiServer server;
    private ApiClient api;

    private void start(boolean rbac) {
        server = EmbeddedApiServer.builder().rbac(rbac).start();
        api = new ApiClient(server.url());
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private record Raw(int code, JsonNode body) {}

    private Raw post(String path, String contentType, byte[] body, Map<String, String> headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(server.url().resolve(path))
                .header("Content-Type", contentType)
                .header("Accept", PROTOBUF + ", application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        headers.forEach(b::header);
        try {
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            return new Raw(r.statusCode(), ApiClient.JSON.readTree(r.body()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static byte[] ssar(
            String namespace, String verb, String group, String resource, String subresource, String name) {
        ProtoWriter attributes = new ProtoWriter()
                .string(1, namespace)
                .string(2, verb)
                .string(3, group)
                .string(4, "")
                .string(5, resource)
                .string(6, subresource)
                .string(7, name);
        ProtoWriter review = new ProtoWriter()
                .message(1, new ProtoWriter())
                .message(2, new ProtoWriter().message(1, attributes))
                .message(3, new ProtoWriter().varint(1, 0));
        return ProtoWriter.kubernetesBody("authorization.k8s.io/v1", "SelfSubjectAccessReview", review.toByteArray());
    }

    private void bindAliceToPodReader() {
        api.create("/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles", """
                {"metadata":{"name":"pod-reader"},
                 "rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get","list","watch"]}]}""");
        api.create("/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings", """
                {"metadata":{"name":"alice"},
                 "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"pod-reader"},
                 "subjects":[{"kind":"User","name":"alice"}]}""");
    }

    @Test
    void selfSubjectAccessReviewInProtobufAnswersForTheRequestingUser() {
        start(true);
        Raw admin = post(SSAR, PROTOBUF, KUBECTL_CAN_I_LIST_PODS, Map.of());
        assertThat(admin.code()).isEqualTo(201);
        assertThat(admin.body().path("kind").asString()).isEqualTo("SelfSubjectAccessReview");
        assertThat(admin.body().path("apiVersion").asString()).isEqualTo("authorization.k8s.io/v1");
        assertThat(admin.body()
                        .path("spec")
                        .path("resourceAttributes")
                        .path("resource")
                        .asString())
                .isEqualTo("pods");
        assertThat(admin.body()
                        .path("spec")
                        .path("resourceAttributes")
                        .path("namespace")
                        .asString())
                .isEqualTo("default");
        assertThat(admin.body().path("status").path("allowed").asBoolean()).isTrue();

        Map<String, String> alice = Map.of("Impersonate-User", "alice");
        Raw denied = post(SSAR, PROTOBUF, KUBECTL_CAN_I_LIST_PODS, alice);
        assertThat(denied.code()).isEqualTo(201);
        assertThat(denied.body().path("status").path("allowed").asBoolean()).isFalse();

        bindAliceToPodReader();
        Raw allowed = post(SSAR, PROTOBUF, KUBECTL_CAN_I_LIST_PODS, alice);
        assertThat(allowed.body().path("status").path("allowed").asBoolean()).isTrue();
        assertThat(allowed.body().path("status").path("reason").asString())
                .isEqualTo("RBAC: allowed by RoleBinding \"alice/default\" of Role \"pod-reader\" to User \"alice\"");
        Raw status = post(SSAR, PROTOBUF, ssar("default", "get", "", "pods", "status", "p"), alice);
        assertThat(status.body().path("status").path("allowed").asBoolean())
                .as("pods/status")
                .isFalse();
        Raw named = post(SSAR, PROTOBUF, ssar("default", "get", "", "pods", "", "p"), alice);
        assertThat(named.body().path("status").path("allowed").asBoolean()).isTrue();
    }

    @Test
    void selfSubjectAccessReviewInJsonCoversNonResourcePaths() {
        start(true);
        Map<String, String> alice = Map.of("Impersonate-User", "alice");
        JsonNode apis =
                api.request("POST", SSAR, "application/json", """
                {"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview",
                 "spec":{"nonResourceAttributes":{"path":"/apis","verb":"get"}}}""", alice).body();
        assertThat(apis.path("status").path("allowed").asBoolean()).isTrue();
        assertThat(apis.path("status").path("reason").asString())
                .isEqualTo("RBAC: allowed by ClusterRoleBinding "
                        + "\"system:discovery\" of ClusterRole \"system:discovery\" to Group \"system:authenticated\"");
        JsonNode metrics = api.request(
                        "POST",
                        SSAR,
                        "application/json",
                        "{\"spec\":{\"nonResourceAttributes\":{\"path\":\"/metrics\",\"verb\":\"get\"}}}",
                        alice)
                .body();
        assertThat(metrics.path("status").path("allowed").asBoolean()).isFalse();
        assertThat(metrics.path("status").has("denied"))
                .as("RBAC has no opinion, it does not deny")
                .isFalse();
    }

    @Test
    void subjectAccessReviewAsksAboutSomeoneElse() {
        start(true);
        bindAliceToPodReader();
        ProtoWriter spec = new ProtoWriter()
                .message(
                        1,
                        new ProtoWriter().string(1, "default").string(2, "list").string(5, "pods"))
                .string(3, "alice")
                .string(4, "devs")
                .string(4, "system:authenticated")
                .message(5, new ProtoWriter().string(1, "scopes").message(2, new ProtoWriter().string(1, "read")))
                .string(6, "uid-1");
        byte[] body = ProtoWriter.kubernetesBody(
                "authorization.k8s.io/v1",
                "SubjectAccessReview",
                new ProtoWriter().message(2, spec).toByteArray());
        Raw r = post(SAR, PROTOBUF, body, Map.of());
        assertThat(r.code()).as(r.body().toString()).isEqualTo(201);
        assertThat(r.body().path("spec").path("groups").valueStream().map(JsonNode::asString))
                .containsExactly("devs", "system:authenticated");
        assertThat(r.body().path("spec").path("extra").path("scopes").get(0).asString())
                .isEqualTo("read");
        assertThat(r.body().path("status").path("allowed").asBoolean()).isTrue();

        JsonNode bob = api.create(SAR, """
                {"spec":{"user":"bob","resourceAttributes":{"namespace":"default","verb":"list","resource":"pods"}}}""");
        assertThat(bob.path("status").path("allowed").asBoolean()).isFalse();
        JsonNode masters = api.create(SAR, """
                {"spec":{"groups":["system:masters"],"nonResourceAttributes":{"path":"/metrics","verb":"get"}}}""");
        assertThat(masters.path("status").path("allowed").asBoolean()).isTrue();

        ApiClient.Reply forbidden =
                api.request("POST", SAR, "application/json", "{}", Map.of("Impersonate-User", "alice"));
        assertThat(forbidden.code()).isEqualTo(403);
        assertThat(forbidden.body().path("message").asString())
                .isEqualTo("subjectaccessreviews.authorization.k8s.io "
                        + "is forbidden: User \"alice\" cannot create resource \"subjectaccessreviews\" in API group "
                        + "\"authorization.k8s.io\" at the cluster scope");
    }

    @Test
    void selfSubjectRulesReviewListsTheRulesBoundInTheNamespace() {
        start(true);
        bindAliceToPodReader();
        byte[] body = ProtoWriter.kubernetesBody(
                "authorization.k8s.io/v1",
                "SelfSubjectRulesReview",
                new ProtoWriter()
                        .message(1, new ProtoWriter())
                        .message(2, new ProtoWriter().string(1, "default"))
                        .toByteArray());
        Raw r = post(
                "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
                PROTOBUF,
                body,
                Map.of("Impersonate-User", "alice"));
        assertThat(r.code()).as(r.body().toString()).isEqualTo(201);
        JsonNode status = r.body().path("status");
        assertThat(status.path("incomplete").asBoolean()).isFalse();
        assertThat(status.path("resourceRules").valueStream().map(JsonNode::toString))
                .contains(
                        "{\"verbs\":[\"get\",\"list\",\"watch\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"]}",
                        "{\"verbs\":[\"create\"],\"apiGroups\":[\"authorization.k8s.io\"],"
                                + "\"resources\":[\"selfsubjectaccessreviews\",\"selfsubjectrulesreviews\"]}");
        assertThat(status.path("nonResourceRules").valueStream().map(r2 -> r2.path("nonResourceURLs")
                        .toString()))
                .contains("[\"/livez\",\"/readyz\",\"/healthz\",\"/version\",\"/version/\"]");

        Raw otherNamespace = post(
                "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
                "application/json",
                "{\"spec\":{\"namespace\":\"kube-system\"}}".getBytes(),
                Map.of("Impersonate-User", "alice"));
        assertThat(otherNamespace
                        .body()
                        .path("status")
                        .path("resourceRules")
                        .valueStream()
                        .map(n -> n.path("resources").toString()))
                .doesNotContain("[\"pods\"]");
        Raw noNamespace = post(
                "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
                "application/json",
                "{\"spec\":{}}".getBytes(),
                Map.of());
        assertThat(noNamespace.code()).isEqualTo(400);
        assertThat(noNamespace.body().path("message").asString()).isEqualTo("no namespace on request");
    }

    @Test
    void reviewsWithoutTheirAttributesAreInvalid() {
        start(true);
        ApiClient.Reply noAttributes = api.post(SSAR, "{\"spec\":{}}");
        assertThat(noAttributes.code()).isEqualTo(422);
        assertThat(noAttributes.body().path("message").asString())
                .isEqualTo("SelfSubjectAccessReview.authorization"
                        + ".k8s.io \"\" is invalid: spec.resourceAttributes: Invalid value: \"null\": exactly one of "
                        + "nonResourceAttributes or resourceAttributes must be specified");
        ApiClient.Reply noUser =
                api.post(SAR, "{\"spec\":{\"nonResourceAttributes\":{\"path\":\"/\",\"verb\":\"get\"}}}");
        assertThat(noUser.code()).isEqualTo(422);
        assertThat(noUser.body().path("message").asString())
                .isEqualTo(
                        "SubjectAccessReview.authorization.k8s.io "
                                + "\"\" is invalid: spec.user: Invalid value: \"\": at least one of user or group must be specified");
    }

    @Test
    void selfSubjectReviewTellsWhoIsAsking() {
        start(false);
        Raw admin = post(SSR, PROTOBUF, KUBECTL_WHOAMI, Map.of());
        assertThat(admin.code()).isEqualTo(201);
        assertThat(admin.body().path("kind").asString()).isEqualTo("SelfSubjectReview");
        assertThat(admin.body().path("status").path("userInfo").path("username").asString())
                .isEqualTo("kubeloop-admin");
        Raw alice = post(
                SSR,
                "application/json",
                "{}".getBytes(),
                Map.of("Impersonate-User", "alice", "Impersonate-Uid", "42", "Impersonate-Extra-Team", "blue"));
        JsonNode info = alice.body().path("status").path("userInfo");
        assertThat(info.path("username").asString()).isEqualTo("alice");
        assertThat(info.path("uid").asString()).isEqualTo("42");
        assertThat(info.path("groups").valueStream().map(JsonNode::asString)).containsExactly("system:authenticated");
        assertThat(info.path("extra").path("team").get(0).asString()).isEqualTo("blue");
    }

    @Test
    void withoutRbacEveryAccessReviewIsAllowed() {
        start(false);
        Raw r = post(SSAR, PROTOBUF, KUBECTL_CAN_I_LIST_PODS, Map.of("Impersonate-User", "alice"));
        assertThat(r.body().path("status").path("allowed").asBoolean()).isTrue();
        assertThat(api.get("/apis/rbac.authorization.k8s.io/v1/clusterroles")
                        .body()
                        .path("items"))
                .as("no bootstrap policy without RBAC")
                .isEmpty();
    }

    @Test
    void reviewsAreCreateOnly() {
        start(true);
        ApiClient.Reply list = api.get(SSAR);
        assertThat(list.code()).isEqualTo(405);
        assertThat(list.body().path("reason").asString()).isEqualTo("MethodNotAllowed");
        assertThat(api.get(SSAR + "/x").code()).isEqualTo(405);
        assertThat(api.delete(SSR).code()).isEqualTo(405);
        assertThat(api.create(SSAR, "{\"spec\":{\"nonResourceAttributes\":{\"path\":\"/\",\"verb\":\"get\"}}}")
                        .path("status")
                        .path("allowed")
                        .asBoolean())
                .isTrue();
        assertThat(api.get(SSAR).code()).as("nothing was stored").isEqualTo(405);
    }

    @Test
    void malformedProtobufBodiesAreBadRequestsNeverServerErrors() {
        start(true);
        for (int cut = 0; cut < KUBECTL_CAN_I_LIST_PODS.length; cut++) {
            Raw r = post(SSAR, PROTOBUF, java.util.Arrays.copyOf(KUBECTL_CAN_I_LIST_PODS, cut), Map.of());
            // a cut between fields leaves a shorter valid message: without its spec, that is a 422
            assertThat(r.code()).as("cut at %d", cut).isIn(201, 400, 422);
            assertThat(r.body().path("kind").asString()).isIn("Status", "SelfSubjectAccessReview");
            if (r.code() == 400) {
                assertThat(r.body().path("reason").asString()).isEqualTo("BadRequest");
            }
        }
        Random random = new Random(42);
        for (int i = 0; i < 200; i++) {
            byte[] body = java.util.Arrays.copyOf(KUBECTL_CAN_I_LIST_PODS, KUBECTL_CAN_I_LIST_PODS.length);
            for (int flips = 0; flips < 1 + random.nextInt(4); flips++) {
                body[4 + random.nextInt(body.length - 4)] = (byte) random.nextInt(256);
            }
            Raw r = post(SSAR, PROTOBUF, body, Map.of());
            assertThat(r.code()).as("mutation %d: %s", i, r.body()).isIn(201, 400, 422);
        }
        Raw garbage = post(SSR, PROTOBUF, new byte[] {'k', '8', 's', 0, (byte) 0xFF}, Map.of());
        assertThat(garbage.code()).isEqualTo(400);
        assertThat(garbage.body().path("message").asString()).startsWith("the object provided is unrecognized (");
        Raw wrongKind = post(SSAR, PROTOBUF, ProtoWriter.kubernetesBody("v1", "Pod", new byte[0]), Map.of());
        assertThat(wrongKind.code()).isEqualTo(400);
    }

    /**
     * The JDK server shares exchange attributes across requests, so an identity kept there would leak from
     * one request to the next: every request must see only its own.
     */
    @Test
    void anIdentityNeverLeaksIntoAnotherRequest() throws Exception {
        start(true);
        assertThat(whoami(Map.of("Impersonate-User", "alice"))).isEqualTo("alice");
        assertThat(whoami(Map.of())).isEqualTo("kubeloop-admin");
        try (var executor = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            java.util.List<java.util.concurrent.Future<Boolean>> results = new java.util.ArrayList<>();
            for (int i = 0; i < 100; i++) {
                String user = "user-" + i;
                boolean impersonate = i % 2 == 0;
                results.add(executor.submit(() -> (impersonate ? user : "kubeloop-admin")
                        .equals(whoami(impersonate ? Map.of("Impersonate-User", user) : Map.of()))));
            }
            for (var r : results) {
                assertThat(r.get(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            }
        }
    }

    private String whoami(Map<String, String> headers) {
        return post(SSR, "application/json", "{}".getBytes(), headers)
                .body()
                .path("status")
                .path("userInfo")
                .path("username")
                .asString();
    }
}
