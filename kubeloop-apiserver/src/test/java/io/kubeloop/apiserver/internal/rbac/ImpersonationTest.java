package io.kubeloop.apiserver.internal.rbac;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubeloop.apiserver.internal.auth.UserInfo;
import io.kubeloop.apiserver.internal.storage.StorageKey;
import io.kubeloop.apiserver.internal.storage.Store;
import io.kubeloop.clock.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Impersonation for a real user who is not an admin (the HTTP tests can only be the admin while authentication
 * is off): who may impersonate what, the refusal's exact words, and the identity that results.
 */
class ImpersonationTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final UserInfo SUPPORT = new UserInfo("support", "", List.of("system:authenticated"), Map.of());

    private final Store store = Store.builder().build();
    private final Authorizer rbac = new RbacAuthorizer(store).withPrivilegedGroup();

    @BeforeEach
    void policy() {
        BootstrapPolicy.install(store, Clock.system());
        store.create(StorageKey.clusterScoped(RbacAuthorizer.GROUP, "clusterroles", "impersonator"), (ObjectNode)
                JSON.readTree("""
                        {"metadata":{"name":"impersonator"},"rules":[
                          {"apiGroups":[""],"resources":["users"],"resourceNames":["bob"],"verbs":["impersonate"]},
                          {"apiGroups":[""],"resources":["groups"],"resourceNames":["devs"],"verbs":["impersonate"]},
                          {"apiGroups":[""],"resources":["serviceaccounts"],"verbs":["impersonate"]},
                          {"apiGroups":["authentication.k8s.io"],"resources":["userextras/scopes","uids"],
                           "verbs":["impersonate"]}]}"""));
        store.create(StorageKey.clusterScoped(RbacAuthorizer.GROUP, "clusterrolebindings", "support"), (ObjectNode)
                JSON.readTree("""
                        {"metadata":{"name":"support"},
                         "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"impersonator"},
                         "subjects":[{"kind":"User","name":"support"}]}"""));
    }

    @AfterEach
    void close() {
        store.close();
    }

    private static Map<String, List<String>> headers(String... nameValues) {
        Map<String, List<String>> h = new LinkedHashMap<>();
        for (int i = 0; i < nameValues.length; i += 2) {
            h.computeIfAbsent(nameValues[i], k -> new java.util.ArrayList<>()).add(nameValues[i + 1]);
        }
        return h;
    }

    private static String refusal(Runnable r) {
        try {
            r.run();
        } catch (StatusException e) {
            assertThat(e.status().getCode()).isEqualTo(403);
            assertThat(e.status().getReason()).isEqualTo("Forbidden");
            return e.status().getMessage();
        }
        throw new AssertionError("not refused");
    }

    @Test
    void withoutHeadersTheRealUserStays() {
        assertThat(Impersonation.apply(headers("Accept", "application/json"), SUPPORT, rbac))
                .isSameAs(SUPPORT);
    }

    @Test
    void aUserMayImpersonateOnlyWhatRbacGrants() {
        UserInfo bob = Impersonation.apply(
                headers(
                        "Impersonate-User",
                        "bob",
                        "Impersonate-Group",
                        "devs",
                        "Impersonate-Uid",
                        "u-1",
                        "Impersonate-Extra-Scopes",
                        "read"),
                SUPPORT,
                rbac);
        assertThat(bob)
                .isEqualTo(new UserInfo(
                        "bob", "u-1", List.of("devs", "system:authenticated"), Map.of("scopes", List.of("read"))));

        assertThat(refusal(() -> Impersonation.apply(headers("Impersonate-User", "carol"), SUPPORT, rbac)))
                .isEqualTo(
                        "users \"carol\" is forbidden: User \"support\" cannot impersonate resource \"users\" in API "
                                + "group \"\" at the cluster scope");
        assertThat(refusal(() -> Impersonation.apply(
                        headers("Impersonate-User", "bob", "Impersonate-Group", "system:masters"), SUPPORT, rbac)))
                .isEqualTo("groups \"system:masters\" is forbidden: User \"support\" cannot impersonate resource "
                        + "\"groups\" in API group \"\" at the cluster scope");
        assertThat(refusal(() -> Impersonation.apply(
                        headers("Impersonate-User", "bob", "Impersonate-Extra-Team", "x"), SUPPORT, rbac)))
                .isEqualTo("userextras.authentication.k8s.io \"x\" is forbidden: User \"support\" cannot impersonate "
                        + "resource \"userextras/team\" in API group \"authentication.k8s.io\" at the cluster scope");
    }

    @Test
    void aServiceAccountIsImpersonatedThroughTheServiceaccountsResource() {
        UserInfo sa =
                Impersonation.apply(headers("Impersonate-User", "system:serviceaccount:ci:builder"), SUPPORT, rbac);
        assertThat(sa.groups())
                .containsExactly("system:serviceaccounts", "system:serviceaccounts:ci", "system:authenticated");
        UserInfo alice = new UserInfo("alice", "", List.of("system:authenticated"), Map.of());
        assertThat(refusal(() -> Impersonation.apply(
                        headers("Impersonate-User", "system:serviceaccount:ci:builder"), alice, rbac)))
                .isEqualTo("serviceaccounts \"builder\" is forbidden: User \"alice\" cannot impersonate resource "
                        + "\"serviceaccounts\" in API group \"\" in the namespace \"ci\"");
    }

    @Test
    void theAdminMayImpersonateAnyoneEvenWithoutRbac() {
        UserInfo anonymous = Impersonation.apply(
                headers("Impersonate-User", "system:anonymous"),
                UserInfo.ADMIN,
                Authorizer.ALWAYS_ALLOW.withPrivilegedGroup());
        assertThat(anonymous.groups()).containsExactly("system:unauthenticated");
        UserInfo root = Impersonation.apply(
                headers("Impersonate-User", "root", "Impersonate-Group", "system:masters"), UserInfo.ADMIN, rbac);
        assertThat(root.isAdmin()).isTrue();
    }

    @Test
    void groupsWithoutAUserAreABadRequest() {
        assertThatThrownBy(() -> Impersonation.apply(headers("Impersonate-Group", "devs"), UserInfo.ADMIN, rbac))
                .isInstanceOf(StatusException.class)
                .satisfies(e ->
                        assertThat(((StatusException) e).status().getCode()).isEqualTo(400));
    }
}
