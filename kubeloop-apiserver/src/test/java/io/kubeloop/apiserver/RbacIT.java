package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * RBAC over real HTTP: identities come from impersonation headers sent by the (admin) client, as
 * {@code kubectl --as} sends them; every refusal is checked word for word against kube-apiserver's.
 */
class RbacIT extends EmbeddedServerTest {

    @Override
    EmbeddedApiServer.Builder configure(EmbeddedApiServer.Builder builder) {
        return builder.rbac(true);
    }

    private static Map<String, String> as(String user, String... groups) {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("Impersonate-User", user);
        if (groups.length > 0) {
            h.put("Impersonate-Group", groups[0]); // java.net.http cannot repeat a header through a map
        }
        return h;
    }

    private ApiClient.Reply asUser(String user, String method, String path) {
        return api.request(
                method,
                path,
                method.equals("GET") || method.equals("DELETE") ? null : "application/json",
                method.equals("GET") || method.equals("DELETE") ? null : "{}",
                as(user));
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

    private void apply(String resourcePath, String json) {
        api.create(resourcePath, json);
    }

    private void role(String namespace, String name, String rules) {
        apply(
                "/apis/rbac.authorization.k8s.io/v1/namespaces/" + namespace + "/roles",
                "{\"metadata\":{\"name\":\"" + name + "\"},\"rules\":" + rules + "}");
    }

    private void bindRole(String namespace, String name, String roleKind, String role, String user) {
        apply("/apis/rbac.authorization.k8s.io/v1/namespaces/" + namespace + "/rolebindings", """
                {"metadata":{"name":"%s"},
                 "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"%s","name":"%s"},
                 "subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"%s"}]}""".formatted(
                        name, roleKind, role, user));
    }

    @Test
    void refusalsAreWordedAsKubeApiserverWordsThem() {
        assertForbidden(
                asUser("x", "GET", "/api/v1/namespaces/default/pods"),
                "pods is forbidden: User \"x\" cannot list resource \"pods\" in API group \"\" in the namespace "
                        + "\"default\"",
                "",
                "",
                "pods");
        assertForbidden(
                asUser("x", "GET", "/api/v1/namespaces/default/pods/p"),
                "pods \"p\" is forbidden: User \"x\" cannot get resource \"pods\" in API group \"\" in the namespace "
                        + "\"default\"",
                "p",
                "",
                "pods");
        assertForbidden(
                asUser("x", "GET", "/api/v1/nodes"),
                "nodes is forbidden: User \"x\" cannot list resource \"nodes\" at the cluster scope"
                        .replace("at the", "in API group \"\" at the"),
                "",
                "",
                "nodes");
        assertForbidden(
                asUser("x", "PUT", "/api/v1/namespaces/default/pods/p/status"),
                "pods \"p\" is forbidden: User \"x\" cannot update resource \"pods/status\" in API group \"\" in the "
                        + "namespace \"default\"",
                "p",
                "",
                "pods");
        assertForbidden(
                asUser("x", "GET", "/apis/apps/v1/namespaces/ns1/deployments?watch=true"),
                "deployments.apps is forbidden: User \"x\" cannot watch resource \"deployments\" in API group "
                        + "\"apps\" in the namespace \"ns1\"",
                "",
                "apps",
                "deployments");
        assertForbidden(
                asUser("x", "DELETE", "/apis/apps/v1/namespaces/ns1/deployments"),
                "deployments.apps is forbidden: User \"x\" cannot deletecollection resource \"deployments\" in API "
                        + "group \"apps\" in the namespace \"ns1\"",
                "",
                "apps",
                "deployments");
        assertForbidden(
                asUser("x", "GET", "/metrics"), "forbidden: User \"x\" cannot get path \"/metrics\"", "", "", "");
        assertForbidden(
                asUser("x", "GET", "/apis/example.com/v1/widgets"),
                "widgets.example.com is forbidden: User \"x\" cannot list resource \"widgets\" in API group "
                        + "\"example.com\" at the cluster scope",
                "",
                "example.com",
                "widgets");
    }

    @Test
    void discoveryHealthAndVersionAreOpenToAuthenticatedUsers() {
        for (String path :
                new String[] {"/api", "/api/v1", "/apis", "/apis/apps", "/apis/apps/v1", "/version", "/openapi/v3"}) {
            assertThat(asUser("x", "GET", path).code()).as(path).isEqualTo(200);
        }
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        for (String path : new String[] {"/healthz", "/readyz", "/livez"}) {
            java.net.http.HttpResponse<String> r = send(
                    http,
                    java.net.http.HttpRequest.newBuilder(server.url().resolve(path))
                            .header("Impersonate-User", "x")
                            .build());
            assertThat(r.statusCode()).as(path).isEqualTo(200);
            assertThat(r.body()).isEqualTo("ok");
        }
        assertThat(send(
                                http,
                                java.net.http.HttpRequest.newBuilder(
                                                server.url().resolve("/metrics"))
                                        .build())
                        .statusCode())
                .as("the admin")
                .isEqualTo(200);
    }

    private static java.net.http.HttpResponse<String> send(
            java.net.http.HttpClient http, java.net.http.HttpRequest request) {
        try {
            return http.send(request, java.net.http.HttpResponse.BodyHandlers.ofString());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aRoleGrantsExactlyItsVerbsResourcesAndNamesAndChangesTakeEffectAtOnce() {
        api.create("/api/v1/namespaces/default/configmaps", "{\"metadata\":{\"name\":\"a\"}}");
        api.create("/api/v1/namespaces/default/configmaps", "{\"metadata\":{\"name\":\"b\"}}");
        role("default", "cm-a", """
                [{"apiGroups":[""],"resources":["configmaps"],"resourceNames":["a"],"verbs":["get","update"]}]""");
        assertThat(asUser("alice", "GET", "/api/v1/namespaces/default/configmaps/a")
                        .code())
                .isEqualTo(403);

        bindRole("default", "alice-cm-a", "Role", "cm-a", "alice");
        assertThat(asUser("alice", "GET", "/api/v1/namespaces/default/configmaps/a")
                        .code())
                .isEqualTo(200);
        assertForbidden(
                asUser("alice", "GET", "/api/v1/namespaces/default/configmaps/b"),
                "configmaps \"b\" is forbidden: User \"alice\" cannot get resource \"configmaps\" in API group \"\" in "
                        + "the namespace \"default\"",
                "b",
                "",
                "configmaps");
        assertThat(asUser("alice", "GET", "/api/v1/namespaces/default/configmaps")
                        .code())
                .as("list")
                .isEqualTo(403);
        assertThat(asUser("alice", "GET", "/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Da")
                        .code())
                .as("list narrowed to a permitted name")
                .isEqualTo(403);
        assertThat(asUser("alice", "GET", "/api/v1/namespaces/other/configmaps/a")
                        .code())
                .isEqualTo(403);

        // widen the role: the next request sees it
        api.put("/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles/cm-a", """
                {"metadata":{"name":"cm-a"},
                 "rules":[{"apiGroups":[""],"resources":["configmaps"],"verbs":["get","list"]}]}""");
        assertThat(asUser("alice", "GET", "/api/v1/namespaces/default/configmaps/b")
                        .code())
                .isEqualTo(200);
        JsonNode list =
                asUser("alice", "GET", "/api/v1/namespaces/default/configmaps").body();
        assertThat(list.path("items")).hasSize(3); // a, b and the namespace's kube-root-ca.crt

        // remove the binding: access goes with it
        assertThat(api.delete("/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings/alice-cm-a")
                        .code())
                .isEqualTo(200);
        assertThat(asUser("alice", "GET", "/api/v1/namespaces/default/configmaps/b")
                        .code())
                .isEqualTo(403);
    }

    @Test
    void subresourcesNeedTheirOwnRules() {
        api.create("/api/v1/namespaces/default/pods", """
                {"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}""");
        role("default", "pod-status", """
                [{"apiGroups":[""],"resources":["pods/status"],"verbs":["get","update","patch"]}]""");
        bindRole("default", "bob-status", "Role", "pod-status", "bob");
        assertThat(asUser("bob", "GET", "/api/v1/namespaces/default/pods/p/status")
                        .code())
                .isEqualTo(200);
        assertForbidden(
                asUser("bob", "GET", "/api/v1/namespaces/default/pods/p"),
                "pods \"p\" is forbidden: User \"bob\" cannot get resource \"pods\" in API group \"\" in the namespace "
                        + "\"default\"",
                "p",
                "",
                "pods");
    }

    @Test
    void aClusterRoleBindingToABootstrapRoleGrantsClusterWide() {
        assertThat(asUser("vic", "GET", "/api/v1/pods").code()).isEqualTo(403);
        apply("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", """
                {"metadata":{"name":"vic-views"},
                 "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},
                 "subjects":[{"kind":"User","name":"vic"}]}""");
        assertThat(asUser("vic", "GET", "/api/v1/pods").code()).isEqualTo(200);
        assertThat(asUser("vic", "GET", "/apis/apps/v1/namespaces/x/deployments")
                        .code())
                .isEqualTo(200);
        assertThat(asUser("vic", "GET", "/api/v1/namespaces/x/secrets").code())
                .as("view excludes secrets")
                .isEqualTo(403);
        assertThat(asUser("vic", "POST", "/api/v1/namespaces/default/configmaps")
                        .code())
                .isEqualTo(403);
    }

    @Test
    void bootstrapObjectsAreStoredAndLabelled() {
        JsonNode roles = api.get("/apis/rbac.authorization.k8s.io/v1/clusterroles?labelSelector="
                        + "kubernetes.io%2Fbootstrapping%3Drbac-defaults")
                .body();
        assertThat(roles.path("items").findValuesAsString("name"))
                .contains(
                        "cluster-admin",
                        "admin",
                        "edit",
                        "view",
                        "system:discovery",
                        "system:basic-user",
                        "system:public-info-viewer");
        JsonNode binding = api.get("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/cluster-admin")
                .body();
        assertThat(binding.path("subjects").get(0).path("name").asString()).isEqualTo("system:masters");
        assertThat(api.get("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/system:discovery")
                        .body()
                        .path("subjects")
                        .get(0)
                        .path("name")
                        .asString())
                .isEqualTo("system:authenticated");
    }

    @Test
    void theImpersonatedGroupsAreWhatRbacSees() {
        Map<String, String> bobInDevs = Map.of("Impersonate-User", "bob", "Impersonate-Group", "devs");
        assertForbidden(
                api.request("GET", "/api/v1/namespaces/default/pods", null, null, bobInDevs),
                "pods is forbidden: User \"bob\" cannot list resource \"pods\" in API group \"\" in the namespace "
                        + "\"default\"",
                "",
                "",
                "pods");
        apply("/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings", """
                {"metadata":{"name":"devs-view"},
                 "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},
                 "subjects":[{"kind":"Group","name":"devs"}]}""");
        assertThat(api.request("GET", "/api/v1/namespaces/default/pods", null, null, bobInDevs)
                        .code())
                .isEqualTo(200);
        assertThat(asUser("bob", "GET", "/api/v1/namespaces/default/pods").code())
                .as("bob outside devs")
                .isEqualTo(403);
    }

    @Test
    void impersonatingAServiceAccountAddsItsGroups() {
        JsonNode whoami = api.request(
                        "POST",
                        "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                        "application/json",
                        "{}",
                        Map.of("Impersonate-User", "system:serviceaccount:ci:builder"))
                .body();
        assertThat(whoami.path("status").path("userInfo").path("username").asString())
                .isEqualTo("system:serviceaccount:ci:builder");
        assertThat(whoami.path("status")
                        .path("userInfo")
                        .path("groups")
                        .valueStream()
                        .map(JsonNode::asString))
                .containsExactly("system:serviceaccounts", "system:serviceaccounts:ci", "system:authenticated");
    }

    @Test
    void impersonationHeadersWithoutAUserAreRejected() {
        ApiClient.Reply r =
                api.request("GET", "/api/v1/namespaces/default/pods", null, null, Map.of("Impersonate-Group", "devs"));
        assertThat(r.code()).isEqualTo(400);
        assertThat(r.body().path("reason").asString()).isEqualTo("BadRequest");
        assertThat(r.body().path("message").asString()).contains("Impersonate-User");
    }

    @Test
    void bindingAPodNeedsCreateOnPodsBinding() {
        api.create(
                "/api/v1/namespaces/default/pods",
                "{\"metadata\":{\"name\":\"to-bind\"},"
                        + "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}");
        String binding = "{\"metadata\":{\"name\":\"to-bind\"},\"target\":{\"kind\":\"Node\",\"name\":\"node-1\"}}";
        assertForbidden(
                api.request(
                        "POST",
                        "/api/v1/namespaces/default/pods/to-bind/binding",
                        "application/json",
                        binding,
                        as("sched")),
                "pods \"to-bind\" is forbidden: User \"sched\" cannot create resource \"pods/binding\" in API group "
                        + "\"\" in the namespace \"default\"",
                "to-bind",
                "",
                "pods");
        role("default", "binder", "[{\"apiGroups\":[\"\"],\"resources\":[\"pods/binding\"],\"verbs\":[\"create\"]}]");
        bindRole("default", "binder", "Role", "binder", "sched");
        ApiClient.Reply bound = api.request(
                "POST", "/api/v1/namespaces/default/pods/to-bind/binding", "application/json", binding, as("sched"));
        assertThat(bound.code()).as(bound.raw()).isEqualTo(201);
        assertForbidden(
                api.request("POST", "/api/v1/namespaces/default/bindings", "application/json", binding, as("sched")),
                "bindings is forbidden: User \"sched\" cannot create resource \"bindings\" in API group \"\" in the "
                        + "namespace \"default\"",
                "",
                "",
                "bindings");
    }
}
