package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;

/**
 * Object lifecycle, custom resources and fault injection behave the same over plain HTTP and over HTTPS with
 * authentication and RBAC on, where every request carries the admin kubeconfig's client certificate. The fault
 * admin path is for the admin identity only: a non-admin certificate gets 403, no credentials 401.
 */
class SecureFeaturesIT {

    private static final String CM = "/api/v1/namespaces/default/configmaps";
    private static final String SECRETS = "/api/v1/namespaces/default/secrets";
    private static final String PODS = "/api/v1/namespaces/default/pods";
    private static final String MERGE = "application/merge-patch+json";
    private static final String FAULTS = "/kubeloop/faults";
    private static final String WATCHER = "secure-watcher/1.0";

    /** How requests reach the server; the same test body runs over each. */
    enum Transport {
        HTTP,
        HTTPS
    }

    /** A client over either transport, answering as {@link ApiClient} answers. */
    private interface Client {
        ApiClient.Reply request(String method, String path, String contentType, String body) throws Exception;

        ApiClient.Watch watch(String path, Map<String, String> headers) throws Exception;

        default ApiClient.Reply get(String path) throws Exception {
            return request("GET", path, null, null);
        }

        default JsonNode create(String path, String json) throws Exception {
            ApiClient.Reply r = request("POST", path, "application/json", json);
            assertThat(r.code()).as("create %s: %s", path, r.raw()).isEqualTo(201);
            return r.body();
        }

        default boolean gone(String path) throws Exception {
            return get(path).code() == 404;
        }
    }

    private EmbeddedApiServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private Client start(Transport transport) throws Exception {
        if (transport == Transport.HTTP) {
            server = EmbeddedApiServer.builder().faultInjection(true).start();
            ApiClient api = new ApiClient(server.url());
            return new Client() {
                @Override
                public ApiClient.Reply request(String method, String path, String contentType, String body) {
                    return api.request(method, path, contentType, body);
                }

                @Override
                public ApiClient.Watch watch(String path, Map<String, String> headers) {
                    return api.watch(path, headers);
                }
            };
        }
        server = EmbeddedApiServer.builder()
                .tls()
                .rbac(true)
                .faultInjection(true)
                .start();
        assertThat(server.url().getScheme()).isEqualTo("https");
        TlsClient admin = TlsClient.fromKubeconfig(server.kubeconfig());
        return new Client() {
            @Override
            public ApiClient.Reply request(String method, String path, String contentType, String body)
                    throws Exception {
                return admin.request(method, path, contentType, body);
            }

            @Override
            public ApiClient.Watch watch(String path, Map<String, String> headers) throws Exception {
                return admin.watch(path, headers);
            }
        };
    }

    private static ConditionFactory eventually() {
        return Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10));
    }

    private static String rv(JsonNode object) {
        return object.get("metadata").get("resourceVersion").asString();
    }

    private static String name(JsonNode event) {
        return event.get("object").get("metadata").get("name").asString();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Transport.class)
    void aFinalizerHoldsADeleteUntilAPatchRemovesIt(Transport transport) throws Exception {
        Client api = start(transport);
        JsonNode created = api.create(CM, "{\"metadata\":{\"name\":\"held\",\"finalizers\":[\"example.com/hold\"]}}");
        try (ApiClient.Watch watch = api.watch(CM + "?watch=true&resourceVersion=" + rv(created), Map.of())) {
            ApiClient.Reply deleted = api.request("DELETE", CM + "/held", null, null);
            assertThat(deleted.code()).as(deleted.raw()).isEqualTo(200);
            assertThat(deleted.body().get("metadata").has("deletionTimestamp")).isTrue();
            assertThat(api.get(CM + "/held").code()).as("held by its finalizer").isEqualTo(200);
            assertThat(watch.next().get("type").asString()).isEqualTo("MODIFIED");

            ApiClient.Reply patched = api.request("PATCH", CM + "/held", MERGE, "{\"metadata\":{\"finalizers\":null}}");
            assertThat(patched.code()).as(patched.raw()).isEqualTo(200);
            assertThat(api.gone(CM + "/held")).isTrue();
            JsonNode removed = watch.next();
            assertThat(removed.get("type").asString()).isEqualTo("DELETED");
            assertThat(name(removed)).isEqualTo("held");
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Transport.class)
    void backgroundDeletionCollectsTheDependent(Transport transport) throws Exception {
        Client api = start(transport);
        JsonNode owner = api.create(CM, "{\"metadata\":{\"name\":\"owner\"}}");
        api.create(
                SECRETS,
                "{\"metadata\":{\"name\":\"child\",\"ownerReferences\":[{\"apiVersion\":\"v1\","
                        + "\"kind\":\"ConfigMap\",\"name\":\"owner\",\"uid\":\""
                        + owner.get("metadata").get("uid").asString()
                        + "\"}]}}");
        ApiClient.Reply deleted =
                api.request("DELETE", CM + "/owner", "application/json", "{\"propagationPolicy\":\"Background\"}");
        assertThat(deleted.code()).as(deleted.raw()).isEqualTo(200);
        assertThat(api.gone(CM + "/owner")).isTrue();
        eventually().until(() -> api.gone(SECRETS + "/child"));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Transport.class)
    void aDeletedNamespaceTerminatesAndGoesWithItsContents(Transport transport) throws Exception {
        Client api = start(transport);
        api.create("/api/v1/namespaces", "{\"metadata\":{\"name\":\"team\"}}");
        api.create("/api/v1/namespaces/team/configmaps", "{\"metadata\":{\"name\":\"a\"}}");
        ApiClient.Reply deleted = api.request("DELETE", "/api/v1/namespaces/team", null, null);
        assertThat(deleted.code()).as(deleted.raw()).isEqualTo(200);
        assertThat(deleted.body().get("status").get("phase").asString()).isEqualTo("Terminating");
        eventually().until(() -> api.gone("/api/v1/namespaces/team"));
        assertThat(api.gone("/api/v1/namespaces/team/configmaps/a")).isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Transport.class)
    void aCustomResourceDefinitionServesItsResourceWithValidation(Transport transport) throws Exception {
        Client api = start(transport);
        JsonNode crd = api.create("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", """
                {"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
                 "metadata":{"name":"gadgets.example.org"},
                 "spec":{"group":"example.org","scope":"Namespaced",
                  "names":{"plural":"gadgets","singular":"gadget","kind":"Gadget"},
                  "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{
                   "type":"object","properties":{"spec":{"type":"object","properties":{"size":{"type":"integer"}}}}}}}]}}""");
        assertThat(crd.get("status").get("conditions").toString()).contains("Established");
        String gadgets = "/apis/example.org/v1/namespaces/default/gadgets";
        JsonNode g = api.create(gadgets, """
                {"apiVersion":"example.org/v1","kind":"Gadget","metadata":{"name":"g"},"spec":{"size":1}}""");
        assertThat(g.get("metadata").get("uid").asString()).isNotEmpty();
        assertThat(api.get(gadgets).body().get("items")).hasSize(1);
        ApiClient.Reply patched = api.request("PATCH", gadgets + "/g", MERGE, "{\"spec\":{\"size\":2}}");
        assertThat(patched.code()).as(patched.raw()).isEqualTo(200);
        assertThat(api.get(gadgets + "/g").body().at("/spec/size").asInt()).isEqualTo(2);

        ApiClient.Reply invalid = api.request("POST", gadgets, "application/json", """
                {"apiVersion":"example.org/v1","kind":"Gadget","metadata":{"name":"bad"},"spec":{"size":"big"}}""");
        assertThat(invalid.code()).isEqualTo(422);
        assertThat(invalid.body().get("reason").asString()).isEqualTo("Invalid");
        assertThat(invalid.body().get("message").asString())
                .isEqualTo(
                        "Gadget.example.org \"bad\" is invalid: "
                                + "spec.size: Invalid value: \"string\": spec.size in body must be of type integer: \"string\"");

        assertThat(api.request("DELETE", gadgets + "/g", null, null).code()).isEqualTo(200);
        assertThat(api.gone(gadgets + "/g")).isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Transport.class)
    void rbacObjectsAndDefinitionsTakeTheStrategicMergePatchOfKubectlApply(Transport transport) throws Exception {
        Client api = start(transport);
        String smp = "application/strategic-merge-patch+json";
        String roles = "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles";
        api.create(roles, """
                {"metadata":{"name":"r"},"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get"]}]}""");
        ApiClient.Reply role = api.request(
                "PATCH",
                roles + "/r",
                smp,
                "{\"rules\":[{\"apiGroups\":[\"\"],\"resources\":[\"pods\"],\"verbs\":[\"get\",\"list\"]}]}");
        assertThat(role.code()).as(role.raw()).isEqualTo(200);
        assertThat(role.body().get("rules").toString())
                .as("the list is replaced, as k8s.io/api has no strategy")
                .isEqualTo("[{\"apiGroups\":[\"\"],\"resources\":[\"pods\"],\"verbs\":[\"get\",\"list\"]}]");

        String bindings = "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings";
        api.create(bindings, """
                {"metadata":{"name":"b"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},
                 "subjects":[{"kind":"User","name":"a"},{"kind":"User","name":"b"}]}""");
        ApiClient.Reply binding = api.request(
                "PATCH",
                bindings + "/b",
                smp,
                "{\"metadata\":{\"labels\":{\"x\":\"y\"}},\"subjects\":[{\"kind\":\"User\",\"name\":\"c\"}]}");
        assertThat(binding.code()).as(binding.raw()).isEqualTo(200);
        assertThat(binding.body().get("subjects").findValuesAsString("name")).containsExactly("c");
        assertThat(binding.body().at("/metadata/labels/x").asString()).isEqualTo("y");

        String crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
        api.create(crds, """
                {"metadata":{"name":"things.example.org"},
                 "spec":{"group":"example.org","scope":"Namespaced","names":{"plural":"things","kind":"Thing"},
                  "versions":[{"name":"v1","served":true,"storage":true,
                   "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}""");
        ApiClient.Reply crd = api.request(
                "PATCH", crds + "/things.example.org", smp, "{\"spec\":{\"names\":{\"shortNames\":[\"th\"]}}}");
        assertThat(crd.code()).as(crd.raw()).isEqualTo(200);
        assertThat(crd.body().at("/spec/names/shortNames/0").asString()).isEqualTo("th");
        assertThat(crd.body().at("/spec/names/plural").asString())
                .as("maps merge")
                .isEqualTo("things");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Transport.class)
    void aWatchSeesHeldEventsAfterAPartitionAndAStallAndEndsOnCloseWatches(Transport transport) throws Exception {
        Client api = start(transport);
        JsonNode first = api.create(PODS, pod("first"));
        try (ApiClient.Watch watch =
                api.watch(PODS + "?watch=true&resourceVersion=" + rv(first), Map.of("User-Agent", WATCHER))) {
            assertThat(watch.code).isEqualTo(200);
            ApiClient.Reply partition = api.request(
                    "POST",
                    FAULTS + "/partition",
                    "application/json",
                    "{\"seconds\":3600,\"userAgent\":\"secure-watcher\"}");
            assertThat(partition.code()).as(partition.raw()).isEqualTo(200);
            api.create(PODS, pod("p1"));
            api.create(PODS, pod("p2"));
            Awaitility.await()
                    .during(Duration.ofMillis(300))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> watch.available() == 0);
            assertThat(api.request("DELETE", FAULTS, null, null)
                            .body()
                            .get("cleared")
                            .asInt())
                    .isEqualTo(1);
            assertThat(List.of(name(watch.next()), name(watch.next()))).containsExactly("p1", "p2");

            assertThat(api.request("POST", FAULTS + "/stall", "application/json", "{\"seconds\":3600}")
                            .code())
                    .isEqualTo(200);
            api.create(PODS, pod("s1"));
            Awaitility.await()
                    .during(Duration.ofMillis(300))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> watch.available() == 0);
            assertThat(api.request("DELETE", FAULTS, null, null)
                            .body()
                            .get("cleared")
                            .asInt())
                    .isEqualTo(1);
            assertThat(name(watch.next())).isEqualTo("s1");

            ApiClient.Reply closed = api.request("POST", FAULTS + "/close-watches", "application/json", "{}");
            assertThat(closed.body().get("closed").asInt()).as(closed.raw()).isEqualTo(1);
            assertThat(watch.endsWithoutMoreEvents()).isTrue();
        }
    }

    private static String pod(String name) {
        return "{\"metadata\":{\"name\":\"" + name
                + "\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}";
    }

    @Test
    void aPartitionHoldsRequestsThatWouldBeRefusedToo() throws Exception {
        Client admin = start(Transport.HTTPS);
        TlsClient alice = TlsClient.fromKubeconfig(server.kubeconfigFor("alice", "devs"));
        TlsClient wrong = TlsClient.fromKubeconfig(server.kubeconfig()
                .replaceAll("\\n\\s+client-(certificate|key)-data: \\S+", "")
                .replace("user:\n", "user:\n    token: not-a-known-token\n"));
        assertThat(admin.request("POST", FAULTS + "/partition", "application/json", "{\"seconds\":3600}")
                        .code())
                .isEqualTo(200);
        java.util.concurrent.ExecutorService async = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor();
        try {
            var forbidden =
                    async.submit(() -> alice.request("GET", PODS, null, null).code());
            var unauthorized =
                    async.submit(() -> wrong.request("GET", PODS, null, null).code());
            Awaitility.await()
                    .during(Duration.ofMillis(300))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> !forbidden.isDone() && !unauthorized.isDone());
            assertThat(admin.request("DELETE", FAULTS, null, null).code())
                    .as("the admin path is exempt")
                    .isEqualTo(200);
            assertThat(forbidden.get(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(403);
            assertThat(unauthorized.get(10, java.util.concurrent.TimeUnit.SECONDS))
                    .isEqualTo(401);
        } finally {
            async.shutdownNow();
        }
    }

    @Test
    void theFaultAdminPathIsForTheAdminIdentityOnly() throws Exception {
        Client admin = start(Transport.HTTPS);
        assertThat(admin.get(FAULTS).code()).isEqualTo(200);

        TlsClient alice = TlsClient.fromKubeconfig(server.kubeconfigFor("alice", "devs"));
        ApiClient.Reply unbound = alice.request("POST", FAULTS + "/partition", "application/json", "{\"seconds\":5}");
        assertThat(unbound.code()).isEqualTo(403);
        assertThat(unbound.body().get("message").asString())
                .isEqualTo("forbidden: User \"alice\" cannot post path \"/kubeloop/faults/partition\"");

        // even a cluster-admin binding does not open it: it is for system:masters
        admin.create("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", """
                {"metadata":{"name":"alice-admin"},
                 "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"cluster-admin"},
                 "subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"alice"}]}""");
        ApiClient.Reply bound = alice.request("POST", FAULTS + "/partition", "application/json", "{\"seconds\":5}");
        assertThat(bound.code()).isEqualTo(403);
        assertThat(bound.body().get("message").asString())
                .isEqualTo("forbidden: User \"alice\" cannot use the fault "
                        + "injection API: it is for members of system:masters");
        assertThat(alice.request("GET", PODS, null, null).code())
                .as("the binding itself works")
                .isEqualTo(200);
        assertThat(server.faults().active()).as("nothing was started").isEmpty();

        HttpClient anonymous = TlsClient.client(server.certificateAuthority(), null, null);
        HttpResponse<String> r = anonymous.send(
                HttpRequest.newBuilder(server.url().resolve(FAULTS))
                        .timeout(Duration.ofSeconds(30))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(401);
        assertThat(r.body()).contains("\"reason\":\"Unauthorized\"");
    }
}
