package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * RBAC as a kubectl user meets it: the kubeconfig's user is the admin (authentication is off), and
 * {@code --as} impersonates the identities whose access is under test.
 */
class KubectlRbacIT extends KubectlTest {

    @Override
    EmbeddedApiServer.Builder configure(EmbeddedApiServer.Builder builder) {
        return builder.rbac(true);
    }

    @Test
    void canIAnswersForTheAdminAndForImpersonatedUsers() throws Exception {
        assertThat(kubectl.run("auth", "can-i", "list", "pods").ok().out().strip())
                .isEqualTo("yes");
        Kubectl.Result alice = kubectl.run("auth", "can-i", "list", "pods", "--as=alice");
        assertThat(alice.exit()).as(alice.err()).isEqualTo(1);
        assertThat(alice.out().strip()).isEqualTo("no");

        kubectl.runWithInput("""
                apiVersion: rbac.authorization.k8s.io/v1
                kind: Role
                metadata: {name: pod-reader, namespace: default}
                rules:
                - {apiGroups: [""], resources: [pods], verbs: [get, list, watch]}
                ---
                apiVersion: rbac.authorization.k8s.io/v1
                kind: RoleBinding
                metadata: {name: alice-reads-pods, namespace: default}
                roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: pod-reader}
                subjects:
                - {apiGroup: rbac.authorization.k8s.io, kind: User, name: alice}
                """, "apply", "-f", "-").ok();

        assertThat(kubectl.run("auth", "can-i", "list", "pods", "--as=alice")
                        .ok()
                        .out()
                        .strip())
                .isEqualTo("yes");
        assertThat(kubectl.run("auth", "can-i", "--list", "--as=alice").ok().out())
                .containsPattern("pods\\s+\\[\\]\\s+\\[\\]\\s+\\[get list watch\\]")
                .containsPattern("\\[/version\\]\\s+\\[\\]\\s+\\[get\\]");
        Kubectl.Result create = kubectl.run("auth", "can-i", "create", "pods", "--as=alice");
        assertThat(create.exit()).isEqualTo(1);
        assertThat(create.out().strip()).isEqualTo("no");
        Kubectl.Result otherNamespace = kubectl.run("auth", "can-i", "list", "pods", "-n", "kube-system", "--as=alice");
        assertThat(otherNamespace.out().strip()).isEqualTo("no");
    }

    @Test
    void aForbiddenListPrintsKubeApiserversMessage() throws Exception {
        Kubectl.Result denied = kubectl.run("get", "pods", "--as=alice");
        assertThat(denied.exit()).isEqualTo(1);
        assertThat(denied.err())
                .contains("Error from server (Forbidden): pods is forbidden: User \"alice\" cannot "
                        + "list resource \"pods\" in API group \"\" in the namespace \"default\"");

        Kubectl.Result nodes = kubectl.run("get", "nodes", "--as=alice");
        assertThat(nodes.err())
                .contains("Error from server (Forbidden): nodes is forbidden: User \"alice\" cannot "
                        + "list resource \"nodes\" in API group \"\" at the cluster scope");
    }

    @Test
    void aRoleThatGrantsGetButNotListForbidsTheList() throws Exception {
        kubectl.runWithInput("""
                apiVersion: v1
                kind: Pod
                metadata: {name: web}
                spec:
                  containers: [{name: c, image: nginx}]
                """, "apply", "-f", "-").ok();
        kubectl.runWithInput("""
                apiVersion: rbac.authorization.k8s.io/v1
                kind: Role
                metadata: {name: pod-getter, namespace: default}
                rules:
                - apiGroups: [""]
                  resources: [pods]
                  verbs: [get]
                ---
                apiVersion: rbac.authorization.k8s.io/v1
                kind: RoleBinding
                metadata: {name: bob-gets-pods, namespace: default}
                roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: pod-getter}
                subjects:
                - {apiGroup: rbac.authorization.k8s.io, kind: User, name: bob}
                """, "apply", "-f", "-").ok();

        assertThat(kubectl.run("get", "pod", "web", "--as=bob", "-o", "name")
                        .ok()
                        .out()
                        .strip())
                .isEqualTo("pod/web");
        Kubectl.Result list = kubectl.run("get", "pods", "--as=bob");
        assertThat(list.exit()).isEqualTo(1);
        assertThat(list.err())
                .contains("pods is forbidden: User \"bob\" cannot list resource \"pods\" in API group "
                        + "\"\" in the namespace \"default\"");
        Kubectl.Result watch = kubectl.run("auth", "can-i", "watch", "pods", "--as=bob");
        assertThat(watch.out().strip()).isEqualTo("no");
        Kubectl.Result delete = kubectl.run("delete", "pod", "web", "--as=bob");
        assertThat(delete.err())
                .contains("pods \"web\" is forbidden: User \"bob\" cannot delete resource \"pods\" "
                        + "in API group \"\" in the namespace \"default\"");
    }

    @Test
    void whoamiReportsTheAdminAndTheImpersonatedUser() throws Exception {
        assertThat(kubectl.run("auth", "whoami").ok().out())
                .contains("kubeloop-admin")
                .contains("system:masters");
        String alice = kubectl.run("auth", "whoami", "--as=alice", "--as-group=devs", "-o", "json")
                .ok()
                .out();
        assertThat(alice)
                .contains("\"username\": \"alice\"")
                .contains("\"devs\"")
                .contains("\"system:authenticated\"");
    }

    @Test
    void theBootstrapViewRoleLetsAUserReadButNotWrite() throws Exception {
        kubectl.runWithInput("""
                apiVersion: rbac.authorization.k8s.io/v1
                kind: RoleBinding
                metadata: {name: carol-views, namespace: default}
                roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
                subjects:
                - {apiGroup: rbac.authorization.k8s.io, kind: User, name: carol}
                """, "apply", "-f", "-").ok();
        kubectl.runWithInput("""
                apiVersion: v1
                kind: ConfigMap
                metadata: {name: settings}
                data: {a: b}
                """, "apply", "-f", "-").ok();
        assertThat(kubectl.run("get", "configmaps", "--as=carol").ok().out()).contains("settings");
        // refused before its (protobuf) body is read: authorization comes first
        Kubectl.Result write = kubectl.run("create", "configmap", "other", "--from-literal=a=b", "--as=carol");
        assertThat(write.err())
                .contains("configmaps is forbidden: User \"carol\" cannot create resource "
                        + "\"configmaps\" in API group \"\" in the namespace \"default\"");
        assertThat(kubectl.run("get", "clusterroles", "-l", "kubernetes.io/bootstrapping=rbac-defaults", "-o", "name")
                        .ok()
                        .out())
                .contains("clusterrole.rbac.authorization.k8s.io/cluster-admin")
                .contains("clusterrole.rbac.authorization.k8s.io/view")
                .contains("clusterrole.rbac.authorization.k8s.io/system:discovery");
    }

    @Test
    void nonResourceUrlsFollowClusterRoles() throws Exception {
        Kubectl.Result metrics = kubectl.run("get", "--raw", "/metrics", "--as=alice");
        assertThat(metrics.exit()).isEqualTo(1);
        assertThat(metrics.err())
                .contains("Error from server (Forbidden): forbidden: User \"alice\" cannot get path " + "\"/metrics\"");
        assertThat(kubectl.run("auth", "can-i", "get", "/metrics", "--as=alice")
                        .out()
                        .strip())
                .isEqualTo("no");
        assertThat(kubectl.run("get", "--raw", "/version", "--as=alice").ok().out())
                .contains("\"minor\":\"32\"");

        kubectl.runWithInput("""
                apiVersion: rbac.authorization.k8s.io/v1
                kind: ClusterRole
                metadata: {name: metrics-reader}
                rules:
                - {nonResourceURLs: [/metrics], verbs: [get]}
                ---
                apiVersion: rbac.authorization.k8s.io/v1
                kind: ClusterRoleBinding
                metadata: {name: alice-metrics}
                roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: metrics-reader}
                subjects:
                - {apiGroup: rbac.authorization.k8s.io, kind: User, name: alice}
                """, "apply", "-f", "-").ok();
        assertThat(kubectl.run("auth", "can-i", "get", "/metrics", "--as=alice")
                        .ok()
                        .out()
                        .strip())
                .isEqualTo("yes");
        assertThat(kubectl.run("get", "--raw", "/metrics", "--as=alice").ok().out())
                .contains("apiserver_request_total");
    }
}
