package io.kubeloop.apiserver.internal.rbac;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.apiserver.internal.auth.UserInfo;
import io.kubeloop.apiserver.internal.storage.StorageKey;
import io.kubeloop.apiserver.internal.storage.Store;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** The RBAC authorizer over a real store: subjects, role references, reasons and aggregation. */
class RbacAuthorizerTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String G = RbacAuthorizer.GROUP;

    private final Store store = Store.builder().build();
    private final Authorizer rbac = new RbacAuthorizer(store).withPrivilegedGroup();

    @AfterEach
    void close() {
        store.close();
    }

    private static UserInfo user(String name, String... groups) {
        return new UserInfo(name, "", List.of(groups), Map.of());
    }

    private static Attributes listPods(UserInfo user, String namespace) {
        return Attributes.resource(user, "list", "", "pods", "", namespace, "");
    }

    private void put(String resource, String namespace, String json) {
        ObjectNode o = (ObjectNode) JSON.readTree(json);
        store.create(
                new StorageKey(
                        G, resource, namespace, o.path("metadata").path("name").asString()),
                o);
    }

    private void podReaderRole(String namespace) {
        put("roles", namespace, """
                {"metadata":{"name":"pod-reader","namespace":"%s"},
                 "rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get","list"]}]}""".formatted(namespace));
    }

    private void roleBinding(String namespace, String name, String roleKind, String role, String subjects) {
        put("rolebindings", namespace, """
                {"metadata":{"name":"%s","namespace":"%s"},
                 "roleRef":{"apiGroup":"%s","kind":"%s","name":"%s"},"subjects":%s}""".formatted(name, namespace, G, roleKind, role, subjects));
    }

    @Test
    void nothingIsAllowedWithoutBindingsButSystemMastersIsAlwaysAllowed() {
        assertThat(rbac.authorize(listPods(user("alice", "system:authenticated"), "default")))
                .isEqualTo(Decision.notAllowed(""));
        assertThat(rbac.authorize(listPods(UserInfo.ADMIN, "default")).allowed())
                .isTrue();
    }

    @Test
    void aRoleBindingGrantsItsUsersGroupsAndServiceAccountsInItsNamespaceOnly() {
        podReaderRole("team");
        roleBinding("team", "readers", "Role", "pod-reader", """
                [{"kind":"User","name":"alice"},{"kind":"Group","name":"devs"},
                 {"kind":"ServiceAccount","name":"bot"},{"kind":"ServiceAccount","name":"ci","namespace":"build"}]""");

        Decision alice = rbac.authorize(listPods(user("alice"), "team"));
        assertThat(alice)
                .isEqualTo(new Decision(
                        true,
                        "RBAC: allowed by RoleBinding \"readers/team\" of Role \"pod-reader\" to User \"alice\""));
        assertThat(rbac.authorize(listPods(user("alice"), "other")).allowed()).isFalse();
        assertThat(rbac.authorize(listPods(user("alice"), "")).allowed())
                .as("all namespaces")
                .isFalse();
        assertThat(rbac.authorize(listPods(user("bob", "devs"), "team")).reason())
                .isEqualTo("RBAC: allowed by RoleBinding \"readers/team\" of Role \"pod-reader\" to Group \"devs\"");
        assertThat(rbac.authorize(listPods(user("system:serviceaccount:team:bot"), "team"))
                        .reason())
                .isEqualTo("RBAC: allowed by RoleBinding \"readers/team\" of Role \"pod-reader\" to ServiceAccount "
                        + "\"bot/team\"");
        assertThat(rbac.authorize(listPods(user("system:serviceaccount:build:ci"), "team"))
                        .allowed())
                .isTrue();
        assertThat(rbac.authorize(listPods(user("system:serviceaccount:other:bot"), "team"))
                        .allowed())
                .isFalse();
        assertThat(rbac.authorize(Attributes.resource(user("alice"), "delete", "", "pods", "", "team", "p"))
                        .allowed())
                .isFalse();
    }

    @Test
    void aClusterRoleBindingGrantsEverywhereAndAtTheClusterScope() {
        put("clusterroles", "", """
                {"metadata":{"name":"node-reader"},
                 "rules":[{"apiGroups":[""],"resources":["nodes","pods"],"verbs":["list"]},
                          {"nonResourceURLs":["/metrics"],"verbs":["get"]}]}""");
        put("clusterrolebindings", "", """
                {"metadata":{"name":"ops-read"},"roleRef":{"apiGroup":"%s","kind":"ClusterRole","name":"node-reader"},
                 "subjects":[{"kind":"Group","name":"ops"}]}""".formatted(G));
        UserInfo ops = user("olga", "ops");
        assertThat(rbac.authorize(Attributes.resource(ops, "list", "", "nodes", "", "", ""))
                        .reason())
                .isEqualTo("RBAC: allowed by ClusterRoleBinding \"ops-read\" of ClusterRole \"node-reader\" to "
                        + "Group \"ops\"");
        assertThat(rbac.authorize(listPods(ops, "any")).allowed()).isTrue();
        assertThat(rbac.authorize(listPods(ops, "")).allowed()).isTrue();
        assertThat(rbac.authorize(Attributes.nonResource(ops, "get", "/metrics"))
                        .allowed())
                .isTrue();
        assertThat(rbac.authorize(Attributes.nonResource(ops, "get", "/healthz"))
                        .allowed())
                .isFalse();
    }

    @Test
    void aRoleBindingToAClusterRoleGrantsItsRulesInTheBindingsNamespace() {
        put("clusterroles", "", """
                {"metadata":{"name":"cm-editor"},
                 "rules":[{"apiGroups":[""],"resources":["configmaps"],"verbs":["*"]}]}""");
        roleBinding("a", "edit-cms", "ClusterRole", "cm-editor", "[{\"kind\":\"User\",\"name\":\"alice\"}]");
        assertThat(rbac.authorize(Attributes.resource(user("alice"), "create", "", "configmaps", "", "a", ""))
                        .allowed())
                .isTrue();
        assertThat(rbac.authorize(Attributes.resource(user("alice"), "create", "", "configmaps", "", "b", ""))
                        .allowed())
                .isFalse();
    }

    @Test
    void bindingsToMissingRolesAreReportedInTheReason() {
        roleBinding("team", "broken", "Role", "gone", "[{\"kind\":\"User\",\"name\":\"alice\"}]");
        roleBinding("team", "broken2", "ClusterRole", "gone-too", "[{\"kind\":\"User\",\"name\":\"alice\"}]");
        roleBinding("team", "not-mine", "Role", "other", "[{\"kind\":\"User\",\"name\":\"bob\"}]");
        assertThat(rbac.authorize(listPods(user("alice"), "team")))
                .isEqualTo(Decision.notAllowed("RBAC: [role.rbac.authorization.k8s.io \"gone\" not found, "
                        + "clusterrole.rbac.authorization.k8s.io \"gone-too\" not found]"));
        podReaderRole("team");
        roleBinding("team", "works", "Role", "pod-reader", "[{\"kind\":\"User\",\"name\":\"alice\"}]");
        assertThat(rbac.authorize(listPods(user("alice"), "team")).allowed()).isTrue();
    }

    @Test
    void anAggregatedClusterRoleHasTheRulesOfTheRolesItSelects() {
        put("clusterroles", "", """
                {"metadata":{"name":"monitoring"},
                 "aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"example.com/aggregate-to-monitoring":"true"}}]},
                 "rules":[]}""");
        put("clusterrolebindings", "", """
                {"metadata":{"name":"mon"},"roleRef":{"apiGroup":"%s","kind":"ClusterRole","name":"monitoring"},
                 "subjects":[{"kind":"User","name":"mona"}]}""".formatted(G));
        assertThat(rbac.authorize(listPods(user("mona"), "x")).allowed()).isFalse();
        put("clusterroles", "", """
                {"metadata":{"name":"pods-for-monitoring","labels":{"example.com/aggregate-to-monitoring":"true"}},
                 "rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["list"]}]}""");
        assertThat(rbac.authorize(listPods(user("mona"), "x")).allowed()).isTrue();
    }

    @Test
    void theBootstrapPolicyGrantsDiscoveryAndSelfReviewsToAuthenticatedUsers() {
        BootstrapPolicy.install(store, io.kubeloop.clock.Clock.system());
        UserInfo alice = user("alice", "system:authenticated");
        for (String path : List.of(
                "/api",
                "/api/v1",
                "/apis",
                "/apis/apps/v1",
                "/version",
                "/healthz",
                "/openapi/v3",
                "/openapi/v3/apis/apps/v1")) {
            assertThat(rbac.authorize(Attributes.nonResource(alice, "get", path))
                            .allowed())
                    .as(path)
                    .isTrue();
        }
        assertThat(rbac.authorize(Attributes.nonResource(alice, "get", "/metrics"))
                        .allowed())
                .isFalse();
        assertThat(rbac.authorize(Attributes.resource(
                                alice, "create", "authorization.k8s.io", "selfsubjectaccessreviews", "", "", ""))
                        .allowed())
                .isTrue();
        assertThat(rbac.authorize(Attributes.resource(
                                alice, "create", "authorization.k8s.io", "subjectaccessreviews", "", "", ""))
                        .allowed())
                .isFalse();
        UserInfo anonymous = user("system:anonymous", "system:unauthenticated");
        assertThat(rbac.authorize(Attributes.nonResource(anonymous, "get", "/version"))
                        .allowed())
                .isTrue();
        assertThat(rbac.authorize(Attributes.nonResource(anonymous, "get", "/apis"))
                        .allowed())
                .isFalse();
        UserInfo master = user("root", "system:masters");
        assertThat(new RbacAuthorizer(store).authorize(listPods(master, "x")).reason())
                .as("without the privileged-group shortcut, the bootstrap binding allows system:masters")
                .isEqualTo("RBAC: allowed by ClusterRoleBinding \"cluster-admin\" of ClusterRole \"cluster-admin\" "
                        + "to Group \"system:masters\"");
        // edit includes view's rules and its own, admin edit's and its own (through aggregation)
        roleBindingToClusterRole("admin", "ann");
        roleBindingToClusterRole("edit", "ed");
        roleBindingToClusterRole("view", "vi");
        Attributes readPods = listPods(user("x"), "team");
        Attributes writeDeployments = Attributes.resource(user("x"), "update", "apps", "deployments", "", "team", "d");
        Attributes writeRoles = Attributes.resource(user("x"), "create", G, "roles", "", "team", "");
        assertThat(allowed("vi", readPods, writeDeployments, writeRoles)).containsExactly(true, false, false);
        assertThat(allowed("ed", readPods, writeDeployments, writeRoles)).containsExactly(true, true, false);
        assertThat(allowed("ann", readPods, writeDeployments, writeRoles)).containsExactly(true, true, true);
    }

    private void roleBindingToClusterRole(String clusterRole, String userName) {
        roleBinding(
                "team",
                userName + "-" + clusterRole,
                "ClusterRole",
                clusterRole,
                "[{\"kind\":\"User\",\"name\":\"" + userName + "\"}]");
    }

    private List<Boolean> allowed(String userName, Attributes... requests) {
        UserInfo u = user(userName);
        return java.util.Arrays.stream(requests)
                .map(a -> rbac.authorize(a.withUser(u)).allowed())
                .toList();
    }
}
