package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real kubectl under TLS and RBAC with real users, not {@code --as}: alice logs in with a client certificate
 * the server minted (CN alice, O devs), bob with a bearer token (group qa), and the admin with the server's own
 * kubeconfig, which applies the RBAC objects.
 */
class KubectlSecureClusterIT {

    private static final String BOB_TOKEN = "bob-token-0123456789";

    private EmbeddedApiServer server;
    private Kubectl admin;
    private Kubectl alice;
    private Kubectl bob;

    @TempDir
    Path dir;

    @BeforeEach
    void start() throws Exception {
        Kubectl.assumeInstalled();
        server = EmbeddedApiServer.builder()
                .tls()
                .rbac(true)
                .token("bob", BOB_TOKEN, "qa")
                .start();
        admin = kubectl("admin", null);
        alice = kubectl("alice", server.kubeconfigFor("alice", "devs"));
        bob = kubectl("bob", server.kubeconfigForToken(BOB_TOKEN));
        admin.runWithInput("""
                apiVersion: v1
                kind: Pod
                metadata: {name: p}
                spec:
                  containers:
                  - {name: c, image: nginx}
                """, "apply", "-f", "-").ok();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    /** A kubectl whose kubeconfig is {@code kubeconfig} (the helper writes the admin one first; it is replaced). */
    private Kubectl kubectl(String name, String kubeconfig) throws Exception {
        Path home = dir.resolve(name);
        Kubectl kubectl = new Kubectl(server, home);
        if (kubeconfig != null) {
            Files.writeString(home.resolve("kubeconfig"), kubeconfig);
        }
        return kubectl;
    }

    private void adminApplies(String yaml) throws Exception {
        admin.runWithInput(yaml, "apply", "-f", "-").ok();
    }

    @Test
    void aCertificateUserIsForbiddenUntilARoleBindingLetsHerListPods() throws Exception {
        assertThat(alice.run("auth", "whoami").ok().out())
                .containsPattern("Username\\s+alice")
                .containsPattern("Groups\\s+\\[devs system:authenticated\\]");

        Kubectl.Result no = alice.run("auth", "can-i", "list", "pods");
        assertThat(no.exit()).as(no.err()).isEqualTo(1);
        assertThat(no.out().strip()).isEqualTo("no");
        Kubectl.Result denied = alice.run("get", "pods");
        assertThat(denied.exit()).isEqualTo(1);
        assertThat(denied.err().strip())
                .isEqualTo("Error from server (Forbidden): pods is forbidden: User \"alice\" "
                        + "cannot list resource \"pods\" in API group \"\" in the namespace \"default\"");

        adminApplies("""
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
                """);
        assertThat(alice.run("auth", "can-i", "list", "pods").ok().out().strip())
                .isEqualTo("yes");
        assertThat(alice.run("get", "pods", "-o", "name").ok().out()).isEqualTo("pod/p\n");
        assertThat(alice.run("auth", "can-i", "--list").ok().out())
                .containsPattern("pods\\s+\\[\\]\\s+\\[\\]\\s+\\[get list watch\\]");
        Kubectl.Result create = alice.run("auth", "can-i", "create", "pods");
        assertThat(create.exit()).isEqualTo(1);
        assertThat(create.out().strip()).isEqualTo("no");
        Kubectl.Result delete = alice.run("delete", "pod", "p");
        assertThat(delete.exit()).isEqualTo(1);
        assertThat(delete.err())
                .contains("Error from server (Forbidden): pods \"p\" is forbidden: User \"alice\" "
                        + "cannot delete resource \"pods\" in API group \"\" in the namespace \"default\"");
    }

    @Test
    void aTokenUserAllowedGetButNotListOrWatchIsToldSoByKubectl() throws Exception {
        assertThat(bob.run("auth", "whoami").ok().out())
                .containsPattern("Username\\s+bob")
                .containsPattern("Groups\\s+\\[qa system:authenticated\\]");
        String role = """
                apiVersion: rbac.authorization.k8s.io/v1
                kind: Role
                metadata: {name: pod-getter, namespace: default}
                rules:
                - {apiGroups: [""], resources: [pods], verbs: [%s]}
                ---
                apiVersion: rbac.authorization.k8s.io/v1
                kind: RoleBinding
                metadata: {name: bob-gets-pods, namespace: default}
                roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: pod-getter}
                subjects:
                - {apiGroup: rbac.authorization.k8s.io, kind: User, name: bob}
                """;
        adminApplies(role.formatted("get"));
        assertThat(bob.run("get", "pod", "p", "-o", "name").ok().out()).isEqualTo("pod/p\n");
        Kubectl.Result list = bob.run("get", "pods");
        assertThat(list.exit()).isEqualTo(1);
        assertThat(list.err().strip())
                .isEqualTo("Error from server (Forbidden): pods is forbidden: User \"bob\" "
                        + "cannot list resource \"pods\" in API group \"\" in the namespace \"default\"");

        adminApplies(role.formatted("get, list"));
        Kubectl.Result watch = bob.run("get", "pods", "-w");
        assertThat(watch.exit()).isEqualTo(1);
        assertThat(watch.out()).as("the list is printed first").contains("p ");
        assertThat(watch.err())
                .contains("Error from server (Forbidden): pods is forbidden: User \"bob\" cannot "
                        + "watch resource \"pods\" in API group \"\" in the namespace \"default\"");
    }

    @Test
    void aCustomResourceIsForbiddenUntilAClusterRoleNamesItsApiGroup() throws Exception {
        adminApplies("""
                apiVersion: apiextensions.k8s.io/v1
                kind: CustomResourceDefinition
                metadata: {name: gadgets.example.org}
                spec:
                  group: example.org
                  scope: Namespaced
                  names: {plural: gadgets, singular: gadget, kind: Gadget}
                  versions:
                  - name: v1
                    served: true
                    storage: true
                    schema:
                      openAPIV3Schema:
                        type: object
                        properties:
                          spec:
                            type: object
                            properties:
                              size: {type: integer}
                """);
        adminApplies("""
                apiVersion: example.org/v1
                kind: Gadget
                metadata: {name: g}
                spec: {size: 1}
                """);
        Kubectl.Result denied = alice.run("get", "gadgets");
        assertThat(denied.exit()).isEqualTo(1);
        assertThat(denied.err().strip())
                .isEqualTo("Error from server (Forbidden): gadgets.example.org is forbidden: "
                        + "User \"alice\" cannot list resource \"gadgets\" in API group \"example.org\" in the namespace "
                        + "\"default\"");

        // a rule for the core group does not cover it: the API group must be named
        adminApplies("""
                apiVersion: rbac.authorization.k8s.io/v1
                kind: ClusterRole
                metadata: {name: gadget-reader}
                rules:
                - {apiGroups: [""], resources: [gadgets], verbs: [get, list]}
                ---
                apiVersion: rbac.authorization.k8s.io/v1
                kind: ClusterRoleBinding
                metadata: {name: devs-read-gadgets}
                roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: gadget-reader}
                subjects:
                - {apiGroup: rbac.authorization.k8s.io, kind: Group, name: devs}
                """);
        assertThat(alice.run("get", "gadgets").exit()).isEqualTo(1);

        admin.runWithInput("""
                apiVersion: rbac.authorization.k8s.io/v1
                kind: ClusterRole
                metadata: {name: gadget-reader}
                rules:
                - {apiGroups: [example.org], resources: [gadgets], verbs: [get, list]}
                """, "replace", "-f", "-").ok();
        assertThat(alice.run("auth", "can-i", "list", "gadgets.example.org")
                        .ok()
                        .out()
                        .strip())
                .isEqualTo("yes");
        assertThat(alice.run("get", "gadgets", "-o", "name").ok().out()).isEqualTo("gadget.example.org/g\n");
        Kubectl.Result patch = alice.run("patch", "gadget", "g", "--type=merge", "-p", "{\"spec\":{\"size\":2}}");
        assertThat(patch.exit()).isEqualTo(1);
        assertThat(patch.err())
                .contains("gadgets.example.org \"g\" is forbidden: User \"alice\" cannot patch "
                        + "resource \"gadgets\" in API group \"example.org\" in the namespace \"default\"");
    }
}
