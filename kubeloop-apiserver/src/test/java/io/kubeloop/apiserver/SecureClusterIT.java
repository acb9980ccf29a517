package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * TLS, authentication and RBAC together, with real identities rather than impersonation: alice logs in with a
 * client certificate the server's CA minted (CN alice, O devs), bob with a static bearer token (group qa), and
 * the admin with the server's own kubeconfig. Every refusal is checked word for word against kube-apiserver's.
 */
class SecureClusterIT {

    private static final String UNAUTHORIZED = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
            + "\"status\":\"Failure\",\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}";
    private static final String BOB_TOKEN = "bob-token-0123456789";
    private static final String PODS = "/api/v1/namespaces/default/pods";
    private static final String RBAC = "/apis/rbac.authorization.k8s.io/v1";

    private EmbeddedApiServer server;
    private TlsClient admin;
    private TlsClient alice;
    private TlsClient bob;

    @BeforeEach
    void start() throws Exception {
        server = EmbeddedApiServer.builder()
                .tls()
                .rbac(true)
                .token("bob", BOB_TOKEN, "qa")
                .start();
        admin = TlsClient.fromKubeconfig(server.kubeconfig());
        alice = TlsClient.fromKubeconfig(server.kubeconfigFor("alice", "devs"));
        bob = TlsClient.fromKubeconfig(server.kubeconfigForToken(BOB_TOKEN));
        create(
                admin,
                PODS,
                "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}");
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static ApiClient.Reply get(TlsClient client, String path) throws Exception {
        return client.request("GET", path, null, null);
    }

    private static ApiClient.Reply post(TlsClient client, String path, String json) throws Exception {
        return client.request("POST", path, "application/json", json);
    }

    private static JsonNode create(TlsClient client, String path, String json) throws Exception {
        ApiClient.Reply r = post(client, path, json);
        assertThat(r.code()).as("create %s: %s", path, r.raw()).isEqualTo(201);
        return r.body();
    }

    private static void assertForbidden(ApiClient.Reply r, String message, String name, String group, String kind) {
        assertThat(r.code()).as(r.raw()).isEqualTo(403);
        assertThat(r.body().path("kind").asString()).isEqualTo("Status");
        assertThat(r.body().path("reason").asString()).isEqualTo("Forbidden");
        assertThat(r.body().path("message").asString()).isEqualTo(message);
        JsonNode details = r.body().path("details");
        assertThat(details.path("name").asString("")).isEqualTo(name);
        assertThat(details.path("group").asString("")).isEqualTo(group);
        assertThat(details.path("kind").asString("")).isEqualTo(kind);
    }

    private static String aliceCannot(String what) {
        return what.replace("%U", "User \"alice\" cannot");
    }

    @Test
    void aUserWithNoBindingsIsRefusedWithKubeApiserversWordsUntilAnAdminBindsHer() throws Exception {
        assertForbidden(
                get(alice, PODS),
                aliceCannot("pods is forbidden: %U list resource \"pods\" in API group \"\" "
                        + "in the namespace \"default\""),
                "",
                "",
                "pods");
        assertForbidden(
                get(alice, PODS + "/p"),
                aliceCannot("pods \"p\" is forbidden: %U get resource \"pods\" in "
                        + "API group \"\" in the namespace \"default\""),
                "p",
                "",
                "pods");
        assertForbidden(
                post(alice, "/api/v1/namespaces/default/configmaps", "{\"metadata\":{\"name\":\"c\"}}"),
                aliceCannot("configmaps is forbidden: %U create resource \"configmaps\" in API group \"\" in the "
                        + "namespace \"default\""),
                "",
                "",
                "configmaps");
        assertForbidden(
                get(alice, "/api/v1/nodes"),
                aliceCannot(
                        "nodes is forbidden: %U list resource \"nodes\" in " + "API group \"\" at the cluster scope"),
                "",
                "",
                "nodes");
        assertForbidden(
                get(alice, PODS + "/p/status"),
                aliceCannot("pods \"p\" is forbidden: %U get resource "
                        + "\"pods/status\" in API group \"\" in the namespace \"default\""),
                "p",
                "",
                "pods");
        assertForbidden(
                get(alice, "/apis/apps/v1/namespaces/default/deployments"),
                aliceCannot(
                        "deployments.apps is "
                                + "forbidden: %U list resource \"deployments\" in API group \"apps\" in the namespace \"default\""),
                "",
                "apps",
                "deployments");
        assertForbidden(get(alice, "/metrics"), aliceCannot("forbidden: %U get path \"/metrics\""), "", "", "");
        assertThat(get(alice, "/api/v1/namespaces/default/configmaps/c").code())
                .as("nothing was created")
                .isEqualTo(403);
        assertThat(get(admin, "/api/v1/namespaces/default/configmaps/c").code()).isEqualTo(404);

        // the admin binds alice by name in default, and her certificate's group devs cluster-wide
        create(admin, RBAC + "/namespaces/default/roles", """
                {"metadata":{"name":"pods-and-configmaps"},
                 "rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get","list","watch"]},
                          {"apiGroups":[""],"resources":["configmaps"],"verbs":["create","get"]}]}""");
        create(admin, RBAC + "/namespaces/default/rolebindings", """
                {"metadata":{"name":"alice"},
                 "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"pods-and-configmaps"},
                 "subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"alice"}]}""");
        create(admin, RBAC + "/clusterroles", """
                {"metadata":{"name":"devs"},
                 "rules":[{"apiGroups":[""],"resources":["nodes"],"verbs":["list"]},
                          {"apiGroups":[""],"resources":["pods/status"],"verbs":["get"]},
                          {"apiGroups":["apps"],"resources":["deployments"],"verbs":["list"]},
                          {"nonResourceURLs":["/metrics"],"verbs":["get"]}]}""");
        create(admin, RBAC + "/clusterrolebindings", """
                {"metadata":{"name":"devs"},
                 "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"devs"},
                 "subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"Group","name":"devs"}]}""");

        assertThat(get(alice, PODS).body().path("items")).hasSize(1);
        assertThat(get(alice, PODS + "/p").body().path("metadata").path("name").asString())
                .isEqualTo("p");
        create(alice, "/api/v1/namespaces/default/configmaps", "{\"metadata\":{\"name\":\"c\"}}");
        assertThat(get(alice, "/api/v1/nodes").code()).isEqualTo(200);
        assertThat(get(alice, PODS + "/p/status").code()).isEqualTo(200);
        assertThat(get(alice, "/apis/apps/v1/namespaces/default/deployments").code())
                .isEqualTo(200);
        assertThat(admin.get("/metrics").code()).isEqualTo(200);
        TlsClient.Reply metrics = alice.get("/metrics");
        assertThat(metrics.code()).isEqualTo(200);
        assertThat(metrics.body()).contains("apiserver_request_total");

        // what was granted is exactly that: other verbs, namespaces and users stay refused
        assertForbidden(
                alice.request("DELETE", PODS + "/p", null, null),
                aliceCannot("pods \"p\" is "
                        + "forbidden: %U delete resource \"pods\" in API group \"\" in the namespace \"default\""),
                "p",
                "",
                "pods");
        assertThat(get(alice, "/api/v1/namespaces/kube-system/pods").code()).isEqualTo(403);
        assertForbidden(
                get(bob, "/api/v1/nodes"),
                "nodes is forbidden: User \"bob\" cannot list resource \"nodes\" in "
                        + "API group \"\" at the cluster scope",
                "",
                "",
                "nodes");
    }

    @Test
    void aRoleWithGetButNotListOrWatchLetsGetsThroughAndRefusesWhatAnInformerNeeds() throws Exception {
        create(admin, RBAC + "/namespaces/default/roles", """
                {"metadata":{"name":"pod-getter"},
                 "rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get"]}]}""");
        create(admin, RBAC + "/namespaces/default/rolebindings", """
                {"metadata":{"name":"bob-gets-pods"},
                 "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"pod-getter"},
                 "subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"bob"}]}""");

        assertThat(get(bob, PODS + "/p").code()).isEqualTo(200);
        // an informer lists, then watches from the list's resourceVersion: both are refused, so it never syncs
        assertForbidden(
                get(bob, PODS + "?limit=500&resourceVersion=0"),
                "pods is forbidden: User \"bob\" cannot list "
                        + "resource \"pods\" in API group \"\" in the namespace \"default\"",
                "",
                "",
                "pods");
        assertForbidden(
                get(bob, PODS + "?allowWatchBookmarks=true&resourceVersion=1&watch=true"),
                "pods is forbidden: "
                        + "User \"bob\" cannot watch resource \"pods\" in API group \"\" in the namespace \"default\"",
                "",
                "",
                "pods");
        try (ApiClient.Watch watch = bob.watch(PODS + "?watch=true", Map.of())) {
            assertThat(watch.code).isEqualTo(403);
            assertThat(watch.next().path("message").asString())
                    .isEqualTo("pods is forbidden: User \"bob\" cannot "
                            + "watch resource \"pods\" in API group \"\" in the namespace \"default\"");
        }
        // a list narrowed to one name is still a list (kube names the object, as its RequestInfo does)
        assertForbidden(
                get(bob, PODS + "?fieldSelector=metadata.name%3Dp"),
                "pods \"p\" is forbidden: User \"bob\" "
                        + "cannot list resource \"pods\" in API group \"\" in the namespace \"default\"",
                "p",
                "",
                "pods");
    }

    @Test
    void aClusterRoleAggregatedIntoViewOpensACustomResourceToViewers() throws Exception {
        create(admin, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", """
                {"metadata":{"name":"gadgets.example.org"},
                 "spec":{"group":"example.org","scope":"Namespaced","names":{"plural":"gadgets","kind":"Gadget"},
                  "versions":[{"name":"v1","served":true,"storage":true,
                   "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}""");
        String gadgets = "/apis/example.org/v1/namespaces/default/gadgets";
        create(admin, gadgets, "{\"apiVersion\":\"example.org/v1\",\"kind\":\"Gadget\",\"metadata\":{\"name\":\"g\"}}");
        create(admin, RBAC + "/namespaces/default/rolebindings", """
                {"metadata":{"name":"alice-views"},
                 "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},
                 "subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"alice"}]}""");
        assertThat(get(alice, PODS).code()).isEqualTo(200);
        assertForbidden(
                get(alice, gadgets),
                aliceCannot("gadgets.example.org is forbidden: %U list resource "
                        + "\"gadgets\" in API group \"example.org\" in the namespace \"default\""),
                "",
                "example.org",
                "gadgets");

        create(admin, RBAC + "/clusterroles", """
                {"metadata":{"name":"gadget-viewer","labels":{"rbac.authorization.k8s.io/aggregate-to-view":"true"}},
                 "rules":[{"apiGroups":["example.org"],"resources":["gadgets"],"verbs":["get","list","watch"]}]}""");
        assertThat(get(alice, gadgets).body().path("items")).hasSize(1);
        assertForbidden(
                post(
                        alice,
                        gadgets,
                        "{\"apiVersion\":\"example.org/v1\",\"kind\":\"Gadget\"," + "\"metadata\":{\"name\":\"h\"}}"),
                aliceCannot("gadgets.example.org is forbidden: %U create "
                        + "resource \"gadgets\" in API group \"example.org\" in the namespace \"default\""),
                "",
                "example.org",
                "gadgets");
    }

    @Test
    void onlyAUserAllowedToImpersonateMayActAsAnother() throws Exception {
        String whoami = "/apis/authentication.k8s.io/v1/selfsubjectreviews";
        String review = "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"SelfSubjectReview\"}";
        Map<String, String> asBob = Map.of("Impersonate-User", "bob");
        ApiClient.Reply refused = alice.request("POST", whoami, "application/json", review, asBob);
        assertForbidden(
                refused,
                "users \"bob\" is forbidden: User \"alice\" cannot impersonate resource \"users\" "
                        + "in API group \"\" at the cluster scope",
                "bob",
                "",
                "users");
        assertThat(admin.request("POST", whoami, "application/json", review, asBob)
                        .body()
                        .at("/status/userInfo/username")
                        .asString())
                .as("system:masters may")
                .isEqualTo("bob");

        create(admin, RBAC + "/clusterroles", """
                {"metadata":{"name":"impersonate-bob"},
                 "rules":[{"apiGroups":[""],"resources":["users"],"resourceNames":["bob"],"verbs":["impersonate"]}]}""");
        create(admin, RBAC + "/clusterrolebindings", """
                {"metadata":{"name":"alice-as-bob"},
                 "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"impersonate-bob"},
                 "subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"alice"}]}""");
        JsonNode asBobNow =
                alice.request("POST", whoami, "application/json", review, asBob).body();
        assertThat(asBobNow.at("/status/userInfo/username").asString()).isEqualTo("bob");
        assertForbidden(
                alice.request("GET", PODS, null, null, asBob),
                "pods is forbidden: User \"bob\" cannot list "
                        + "resource \"pods\" in API group \"\" in the namespace \"default\"",
                "",
                "",
                "pods");
        assertThat(alice.request("GET", PODS, null, null, Map.of("Impersonate-User", "carol"))
                        .code())
                .as("only bob")
                .isEqualTo(403);
    }

    /**
     * A refusal answered before the body is read must leave the connection usable: over TLS the next request on
     * it used to hang (within a few rounds) until the client timed out.
     */
    @Test
    void refusedWritesLeaveTheConnectionUsableForTheNextRequest() throws Exception {
        TlsClient wrong =
                TlsClient.fromKubeconfig(server.kubeconfigForToken(BOB_TOKEN).replace(BOB_TOKEN, "not-bobs-token-000"));
        String body = "{\"metadata\":{\"name\":\"c\",\"labels\":{\"pad\":\"" + "x".repeat(60) + "\"}}}";
        for (int round = 0; round < 40; round++) {
            assertThat(post(alice, "/api/v1/namespaces/default/configmaps", body)
                            .code())
                    .as("round %d", round)
                    .isEqualTo(403);
            assertThat(get(alice, "/api/v1/nodes").code()).as("round %d", round).isEqualTo(403);
            assertThat(post(wrong, "/api/v1/namespaces/default/configmaps", body)
                            .code())
                    .isEqualTo(401);
            assertThat(get(wrong, "/api/v1/nodes").code()).isEqualTo(401);
        }
    }

    @Test
    void selfSubjectReviewReturnsTheCertificatesAndTheTokensIdentity() throws Exception {
        TlsClient carol = TlsClient.fromKubeconfig(server.kubeconfigFor("carol", "devs", "ops"));
        String review = "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"SelfSubjectReview\"}";
        String path = "/apis/authentication.k8s.io/v1/selfsubjectreviews";
        for (var expected : List.of(
                Map.entry(alice, List.of("alice", "devs", "system:authenticated")),
                Map.entry(carol, List.of("carol", "devs", "ops", "system:authenticated")),
                Map.entry(bob, List.of("bob", "qa", "system:authenticated")),
                Map.entry(admin, List.of("kubeloop-admin", "system:masters", "system:authenticated")))) {
            JsonNode user =
                    create(expected.getKey(), path, review).path("status").path("userInfo");
            assertThat(user.path("username").asString())
                    .isEqualTo(expected.getValue().get(0));
            assertThat(user.path("groups").valueStream().map(JsonNode::asString))
                    .containsExactlyElementsOf(
                            expected.getValue().subList(1, expected.getValue().size()));
        }
    }

    @Test
    void selfSubjectAccessReviewAnswersForTheAuthenticatedUser() throws Exception {
        String path = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
        String listPods = """
                {"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview",
                 "spec":{"resourceAttributes":{"namespace":"default","verb":"list","resource":"pods"}}}""";
        String deletePods = listPods.replace("\"list\"", "\"delete\"");
        assertThat(create(alice, path, listPods).path("status").path("allowed").asBoolean())
                .isFalse();
        assertThat(create(admin, path, listPods).path("status").path("allowed").asBoolean())
                .isTrue();

        create(admin, RBAC + "/namespaces/default/rolebindings", """
                {"metadata":{"name":"devs-view"},
                 "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},
                 "subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"Group","name":"devs"}]}""");
        JsonNode yes = create(alice, path, listPods).path("status");
        assertThat(yes.path("allowed").asBoolean()).isTrue();
        assertThat(yes.path("reason").asString())
                .contains("RoleBinding \"devs-view/default\"")
                .contains("Group \"devs\"");
        assertThat(create(alice, path, deletePods)
                        .path("status")
                        .path("allowed")
                        .asBoolean())
                .isFalse();
        assertThat(create(bob, path, listPods).path("status").path("allowed").asBoolean())
                .as("bob is not in devs")
                .isFalse();
    }

    @Test
    void badCredentialsGet401AndAnonymousRequestsReachOnlyHealthAndVersion() throws Exception {
        HttpClient anonymous = TlsClient.client(server.certificateAuthority(), null, null);
        for (String path : new String[] {"/healthz", "/livez", "/readyz", "/version"}) {
            HttpResponse<String> r = anonymous.send(
                    HttpRequest.newBuilder(server.url().resolve(path))
                            .timeout(Duration.ofSeconds(30))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(path).isEqualTo(200);
        }
        HttpResponse<String> pods = anonymous.send(
                HttpRequest.newBuilder(server.url().resolve(PODS))
                        .timeout(Duration.ofSeconds(30))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(pods.statusCode()).isEqualTo(401);
        assertThat(pods.body()).isEqualTo(UNAUTHORIZED);

        TlsClient wrong =
                TlsClient.fromKubeconfig(server.kubeconfigForToken(BOB_TOKEN).replace(BOB_TOKEN, "not-bobs-token-000"));
        for (String path : new String[] {PODS, "/version", "/healthz"}) {
            TlsClient.Reply r = wrong.get(path);
            assertThat(r.code()).as(path).isEqualTo(401);
            assertThat(r.body()).isEqualTo(UNAUTHORIZED);
        }
        // with RBAC on, an authenticated user without bindings still reads health, version and discovery
        for (String path : new String[] {"/healthz", "/version", "/api", "/apis"}) {
            assertThat(alice.get(path).code()).as(path).isEqualTo(200);
        }
    }
}
