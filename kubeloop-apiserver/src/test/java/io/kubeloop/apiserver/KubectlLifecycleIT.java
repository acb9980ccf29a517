package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.Test;

/** kubectl delete against finalizers, ownerReferences (all three cascades) and namespaces. */
class KubectlLifecycleIT extends KubectlTest {

    private static ConditionFactory eventuallyForKubectl() {
        return Awaitility.await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50));
    }

    private void createNamespace(String name) throws Exception {
        kubectl.run("create", "namespace", name).ok(); // a protobuf body
    }

    private boolean gone(String path) {
        return api.get(path).code() == 404;
    }

    @Test
    void deleteOfAnObjectWithAFinalizerWaitsUntilAPatchRemovesIt() throws Exception {
        kubectl.runWithInput("""
                apiVersion: v1
                kind: ConfigMap
                metadata:
                  name: held
                  finalizers: [example.com/hold]
                data: {k: v}
                """, "apply", "-f", "-").ok();
        Path out = dir.resolve("delete.txt");
        Process delete = kubectl.start(out, "delete", "configmap", "held");
        try {
            eventuallyForKubectl().until(() -> api.get("/api/v1/namespaces/default/configmaps/held")
                    .body()
                    .get("metadata")
                    .has("deletionTimestamp"));
            Awaitility.await()
                    .during(Duration.ofMillis(700))
                    .atMost(Duration.ofSeconds(5))
                    .until(delete::isAlive);

            kubectl.run("patch", "configmap", "held", "--type=merge", "-p", "{\"metadata\":{\"finalizers\":null}}")
                    .ok();
            assertThat(delete.waitFor(30, TimeUnit.SECONDS))
                    .as("kubectl delete finishes after the patch")
                    .isTrue();
            assertThat(delete.exitValue()).isZero();
            assertThat(Files.readString(out, StandardCharsets.UTF_8)).contains("configmap \"held\" deleted");
            assertThat(kubectl.run("get", "configmap", "held").err()).contains("NotFound");
        } finally {
            delete.destroyForcibly();
        }
    }

    /** A Deployment, a ReplicaSet it controls and two Pods the ReplicaSet controls, linked by ownerReferences. */
    private void deploymentWithReplicaSetAndPods() throws Exception {
        kubectl.runWithInput(DEPLOYMENT_YAML, "apply", "-f", "-").ok();
        String deploymentUid = kubectl.run("get", "deployment", "web", "-o", "jsonpath={.metadata.uid}")
                .ok()
                .out();
        kubectl.runWithInput("""
                apiVersion: apps/v1
                kind: ReplicaSet
                metadata:
                  name: web-7d4b9
                  labels: {app: web}
                  ownerReferences:
                  - {apiVersion: apps/v1, kind: Deployment, name: web, uid: %s,
                     controller: true, blockOwnerDeletion: true}
                spec:
                  replicas: 2
                  selector:
                    matchLabels: {app: web}
                  template:
                    metadata:
                      labels: {app: web}
                    spec:
                      containers:
                      - name: nginx
                        image: nginx:1.25
                """.formatted(deploymentUid), "apply", "-f", "-").ok();
        String rsUid = kubectl.run("get", "rs", "web-7d4b9", "-o", "jsonpath={.metadata.uid}")
                .ok()
                .out();
        for (String pod : new String[] {"web-7d4b9-a", "web-7d4b9-b"}) {
            kubectl.runWithInput("""
                    apiVersion: v1
                    kind: Pod
                    metadata:
                      name: %s
                      labels: {app: web}
                      ownerReferences:
                      - {apiVersion: apps/v1, kind: ReplicaSet, name: web-7d4b9, uid: %s,
                         controller: true, blockOwnerDeletion: true}
                    spec:
                      containers:
                      - name: nginx
                        image: nginx:1.25
                    """.formatted(pod, rsUid), "apply", "-f", "-").ok();
        }
        assertThat(kubectl.run("get", "rs,pods", "-o", "name").ok().out().lines())
                .containsExactly("replicaset.apps/web-7d4b9", "pod/web-7d4b9-a", "pod/web-7d4b9-b");
    }

    @Test
    void deletingADeploymentCollectsItsReplicaSetAndPods() throws Exception {
        deploymentWithReplicaSetAndPods();
        assertThat(kubectl.run("delete", "deployment", "web").ok().out()).contains("deployment.apps \"web\" deleted");
        eventuallyForKubectl()
                .until(() ->
                        kubectl.run("get", "rs,pods", "-o", "name").ok().out().isBlank());
    }

    @Test
    void cascadeOrphanKeepsTheReplicaSetWithoutItsOwnerReference() throws Exception {
        deploymentWithReplicaSetAndPods();
        kubectl.run("delete", "deployment", "web", "--cascade=orphan").ok();
        assertThat(kubectl.run("get", "deployment", "web").err()).contains("NotFound");
        assertThat(kubectl.run("get", "rs", "web-7d4b9", "-o", "jsonpath={.metadata.ownerReferences}")
                        .ok()
                        .out())
                .isEmpty();
        assertThat(kubectl.run("get", "pod", "web-7d4b9-a", "-o", "jsonpath={.metadata.ownerReferences[0].name}")
                        .ok()
                        .out())
                .as("the pods still belong to the replica set")
                .isEqualTo("web-7d4b9");
    }

    @Test
    void cascadeForegroundRemovesTheDependentsBeforeTheDeployment() throws Exception {
        deploymentWithReplicaSetAndPods();
        kubectl.run("delete", "deployment", "web", "--cascade=foreground").ok();
        assertThat(gone("/apis/apps/v1/namespaces/default/deployments/web")).isTrue();
        assertThat(kubectl.run("get", "rs,pods", "-o", "name").ok().out())
                .as("gone before their owner, which kubectl waited for")
                .isBlank();
    }

    @Test
    void deletingANamespaceDeletesWhatIsInIt() throws Exception {
        createNamespace("team");
        kubectl.runWithInput(
                        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {k: v}\n",
                        "-n",
                        "team",
                        "apply",
                        "-f",
                        "-")
                .ok();
        kubectl.runWithInput(DEPLOYMENT_YAML, "-n", "team", "apply", "-f", "-").ok();
        assertThat(kubectl.run("delete", "namespace", "team").ok().out()).contains("namespace \"team\" deleted");
        assertThat(kubectl.run("get", "namespace", "team").err()).contains("NotFound");
        // what is left is the kube-root-ca.crt of each of the four namespaces every cluster has, as on a real one
        assertThat(kubectl.run("get", "configmaps,deployments", "-A", "-o", "name")
                        .ok()
                        .out()
                        .lines())
                .containsExactly(
                        "configmap/kube-root-ca.crt",
                        "configmap/kube-root-ca.crt",
                        "configmap/kube-root-ca.crt",
                        "configmap/kube-root-ca.crt");
    }

    @Test
    void aNamespaceHeldByAFinalizerShowsTerminatingAndRefusesNewContent() throws Exception {
        createNamespace("team");
        kubectl.runWithInput("""
                apiVersion: v1
                kind: ConfigMap
                metadata: {name: held, namespace: team, finalizers: [example.com/hold]}
                """, "apply", "-f", "-").ok();
        kubectl.run("delete", "namespace", "team", "--wait=false").ok();
        assertThat(kubectl.run("get", "namespace", "team", "--no-headers").ok().out())
                .contains("Terminating");
        assertThat(kubectl.runWithInput(
                                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: late}\n",
                                "-n",
                                "team",
                                "apply",
                                "-f",
                                "-")
                        .err())
                .contains("configmaps \"late\" is "
                        + "forbidden: unable to create new content in namespace team because it is being terminated");

        kubectl.run(
                        "-n",
                        "team",
                        "patch",
                        "configmap",
                        "held",
                        "--type=merge",
                        "-p",
                        "{\"metadata\":{\"finalizers\":null}}")
                .ok();
        eventuallyForKubectl().until(() -> gone("/api/v1/namespaces/team"));
    }
}
