package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * kubectl's imperative commands, the first things a new user types. Their typed clients send protobuf bodies
 * (and reviews) with no JSON fallback, so each command here crosses the protobuf path; each created object is
 * read back as JSON and compared with what the same command prints with {@code --dry-run=client -o json}, after
 * {@link #normalized}: the stored object is the dry run's plus the server's defaults ({@link #defaultedOnly}).
 */
class KubectlImperativeIT extends KubectlTest {

    @Override
    EmbeddedApiServer.Builder configure(EmbeddedApiServer.Builder builder) {
        return builder.rbac(true); // so that can-i can say no
    }

    /**
     * The object without what the server adds and the client cannot know, so that the dry-run's object and the
     * stored one compare equal. Removed, and nothing else:
     * <ul>
     *   <li>{@code metadata}: {@code uid}, {@code resourceVersion}, {@code creationTimestamp}, {@code generation},
     *       {@code managedFields} (server-populated) and {@code namespace} (the server sets it from the URL);
     *   <li>{@code status} (the server's, or a dry-run's empty one);
     *   <li>server defaults: a Namespace's {@code spec.finalizers: ["kubernetes"]} and
     *       {@code kubernetes.io/metadata.name} label; a Service's allocated {@code clusterIP}, {@code clusterIPs},
     *       {@code ipFamilies}, {@code ipFamilyPolicy} and default {@code type: ClusterIP}, {@code sessionAffinity:
     *       None} and {@code internalTrafficPolicy: Cluster}; a Secret's {@code type: Opaque};
     *   <li>a {@code "creationTimestamp": null} at any depth (a pod template's: Go renders a zero time as null,
     *       and absent means the same).
     * </ul>
     */
    static JsonNode normalized(JsonNode object) {
        ObjectNode copy = (ObjectNode) object.deepCopy();
        if (copy.get("metadata") instanceof ObjectNode meta) {
            meta.remove(
                    List.of("uid", "resourceVersion", "creationTimestamp", "generation", "managedFields", "namespace"));
        }
        copy.remove("status");
        if (copy.path("kind").asString("").equals("Service") && copy.get("spec") instanceof ObjectNode spec) {
            spec.remove(List.of("clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"));
            if (spec.path("type").asString("").equals("ClusterIP")) {
                spec.remove("type");
            }
            if (spec.path("sessionAffinity").asString("").equals("None")) {
                spec.remove("sessionAffinity");
            }
            if (spec.path("internalTrafficPolicy").asString("").equals("Cluster")) {
                spec.remove("internalTrafficPolicy");
            }
        }
        if (copy.path("kind").asString("").equals("Namespace")
                && copy.get("spec") instanceof ObjectNode spec
                && spec.path("finalizers").size() == 1
                && spec.path("finalizers").get(0).asString("").equals("kubernetes")) {
            spec.remove("finalizers");
        }
        if (copy.path("kind").asString("").equals("Secret")
                && copy.path("type").asString("").equals("Opaque")) {
            copy.remove("type");
        }
        if (copy.path("kind").asString("").equals("Namespace")
                && copy.path("metadata").get("labels") instanceof ObjectNode labels) {
            labels.remove("kubernetes.io/metadata.name");
            if (labels.isEmpty()) {
                ((ObjectNode) copy.get("metadata")).remove("labels");
            }
        }
        dropNullCreationTimestamps(copy);
        return copy;
    }

    private static void dropNullCreationTimestamps(JsonNode node) {
        if (node instanceof ObjectNode o
                && o.has("creationTimestamp")
                && o.get("creationTimestamp").isNull()) {
            o.remove("creationTimestamp");
        }
        node.forEach(KubectlImperativeIT::dropNullCreationTimestamps);
    }

    private static JsonNode json(String text) {
        return ApiClient.JSON.readTree(text);
    }

    /**
     * Runs {@code command} with {@code --dry-run=client -o json}, then for real (which must print {@code printed}),
     * then reads {@code resource} back as JSON (in the command's {@code -n} namespace, if any) and compares the two
     * objects; returns the stored one.
     */
    private JsonNode createsWhatItsDryRunPrints(String resource, String printed, String... command) throws Exception {
        List<String> dryRun = new ArrayList<>(List.of(command));
        dryRun.addAll(List.of("--dry-run=client", "-o", "json"));
        JsonNode expected = json(kubectl.run(dryRun.toArray(String[]::new)).ok().out());
        assertThat(kubectl.run(command).ok().out().strip()).isEqualTo(printed);
        List<String> get = new ArrayList<>(List.of("get", resource, "-o", "json"));
        int namespace = List.of(command).indexOf("-n");
        if (namespace >= 0) {
            get.addAll(List.of("-n", command[namespace + 1]));
        }
        JsonNode stored = json(kubectl.run(get.toArray(String[]::new)).ok().out());
        assertThat(defaultedOnly(normalized(stored), normalized(expected), ""))
                .as("stored %s vs dry run: the dry run plus server defaults", resource)
                .isEmpty();
        return stored;
    }

    /**
     * Where {@code stored} differs from {@code sent} other than by fields the server added (its defaults: a pod's
     * {@code dnsPolicy}, a Deployment's {@code strategy}...): every field sent is stored with the value sent, and
     * arrays keep their length. Empty when it is only defaulted.
     */
    static List<String> defaultedOnly(JsonNode stored, JsonNode sent, String path) {
        List<String> differences = new ArrayList<>();
        if (sent.isObject() && stored.isObject()) {
            for (var e : sent.properties()) {
                JsonNode s = stored.get(e.getKey());
                if (s == null) {
                    differences.add(path + "/" + e.getKey() + " missing");
                } else {
                    differences.addAll(defaultedOnly(s, e.getValue(), path + "/" + e.getKey()));
                }
            }
        } else if (sent.isArray() && stored.isArray() && sent.size() == stored.size()) {
            for (int i = 0; i < sent.size(); i++) {
                differences.addAll(defaultedOnly(stored.get(i), sent.get(i), path + "/" + i));
            }
        } else if (!sent.equals(stored)) {
            differences.add(path + ": " + stored + " instead of " + sent);
        }
        return differences;
    }

    @Test
    void createNamespaceConfigMapAndSecret() throws Exception {
        createsWhatItsDryRunPrints("namespace/dev", "namespace/dev created", "create", "namespace", "dev");
        JsonNode cm = createsWhatItsDryRunPrints(
                "configmap/app", "configmap/app created", "create", "configmap", "app", "--from-literal=k=v");
        assertThat(cm.at("/data/k").asString()).isEqualTo("v");
        JsonNode secret = createsWhatItsDryRunPrints(
                "secret/s", "secret/s created", "create", "secret", "generic", "s", "--from-literal=p=q");
        assertThat(secret.at("/data/p").asString()).isEqualTo("cQ==");
        createsWhatItsDryRunPrints(
                "configmap/there",
                "configmap/there created",
                "create",
                "configmap",
                "there",
                "-n",
                "dev",
                "--from-literal=a=b");
        assertThat(kubectl.run("get", "configmap", "there", "-n", "dev", "-o", "jsonpath={.metadata.namespace}")
                        .ok()
                        .out())
                .isEqualTo("dev");
    }

    @Test
    void createDeploymentKeepsItsReplicasEvenZero() throws Exception {
        JsonNode web = createsWhatItsDryRunPrints(
                "deployment/web",
                "deployment.apps/web created",
                "create",
                "deployment",
                "web",
                "--image=nginx",
                "--replicas=3");
        assertThat(web.at("/spec/replicas").asInt()).isEqualTo(3);
        String table = kubectl.run("get", "deploy", "web").ok().out();
        assertThat(table.lines().toList()).hasSize(2);
        assertThat(table.lines().toList().get(1).split("\\s+")).startsWith("web", "0/3");

        JsonNode zero = createsWhatItsDryRunPrints(
                "deployment/zero",
                "deployment.apps/zero created",
                "create",
                "deployment",
                "zero",
                "--image=nginx",
                "--replicas=0");
        assertThat(zero.at("/spec/replicas").isIntegralNumber())
                .as("an explicit 0 is kept, not dropped")
                .isTrue();
        assertThat(zero.at("/spec/replicas").asInt()).isZero();
        assertThat(kubectl.run("get", "deploy", "zero", "-o", "jsonpath={.spec.replicas}")
                        .ok()
                        .out())
                .isEqualTo("0");
    }

    @Test
    void runExposeSetImageAndRolloutRestart() throws Exception {
        JsonNode pod = createsWhatItsDryRunPrints("pod/tmp", "pod/tmp created", "run", "tmp", "--image=busybox");
        assertThat(pod.at("/spec/containers/0/image").asString()).isEqualTo("busybox");

        createsWhatItsDryRunPrints(
                "deployment/web",
                "deployment.apps/web created",
                "create",
                "deployment",
                "web",
                "--image=nginx",
                "--replicas=3");
        JsonNode svc = createsWhatItsDryRunPrints(
                "service/web", "service/web exposed", "expose", "deployment", "web", "--port=80", "--target-port=8080");
        assertThat(svc.at("/spec/ports/0/targetPort").asInt()).isEqualTo(8080);
        assertThat(svc.at("/spec/selector/app").asString()).isEqualTo("web");
        assertThat(svc.at("/spec/clusterIP").asString()).as("allocated").startsWith("10.");
        String row =
                kubectl.run("get", "service", "web").ok().out().lines().toList().get(1);
        assertThat(row.split("\\s+"))
                .as("NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE: %s", row)
                .startsWith("web", "ClusterIP", svc.at("/spec/clusterIP").asString(), "<none>", "80/TCP");

        JsonNode image = createsWhatItsDryRunPrints(
                "deployment/web",
                "deployment.apps/web image updated",
                "set",
                "image",
                "deployment/web",
                "nginx=nginx:1.27");
        assertThat(image.at("/spec/template/spec/containers/0/image").asString())
                .isEqualTo("nginx:1.27");

        // kubectl 1.32's rollout restart has no --dry-run: what it prints with -o json (the server's answer to its
        // patch) must be what is stored, and that is the object before plus the restartedAt stamp.
        JsonNode before =
                json(kubectl.run("get", "deployment/web", "-o", "json").ok().out());
        JsonNode printed = json(kubectl.run("rollout", "restart", "deployment/web", "-o", "json")
                .ok()
                .out());
        JsonNode stored =
                json(kubectl.run("get", "deployment/web", "-o", "json").ok().out());
        assertThat(normalized(stored)).isEqualTo(normalized(printed));
        String stamp = "/spec/template/metadata/annotations/kubectl.kubernetes.io~1restartedAt";
        assertThat(stored.at(stamp).asString()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d.*");
        assertThat(normalized(withoutRestartStamp(stored))).isEqualTo(normalized(before));
        assertThat(stored.at("/metadata/generation").asLong())
                .isGreaterThan(before.at("/metadata/generation").asLong());
    }

    /** The deployment without its template's annotations, which held only the restartedAt stamp. */
    private static JsonNode withoutRestartStamp(JsonNode deployment) {
        ObjectNode copy = (ObjectNode) deployment.deepCopy();
        ObjectNode templateMeta = (ObjectNode) copy.at("/spec/template/metadata");
        assertThat(templateMeta.path("annotations").propertyNames())
                .containsExactly("kubectl.kubernetes.io/restartedAt");
        templateMeta.remove("annotations");
        return copy;
    }

    @Test
    void moreGeneratorsAndAServerSideDryRun() throws Exception {
        JsonNode svc = createsWhatItsDryRunPrints(
                "service/svc", "service/svc created", "create", "service", "clusterip", "svc", "--tcp=80:8080");
        assertThat(svc.at("/spec/ports/0/targetPort").asInt()).isEqualTo(8080);
        createsWhatItsDryRunPrints(
                "serviceaccount/robot", "serviceaccount/robot created", "create", "serviceaccount", "robot");
        JsonNode pull = createsWhatItsDryRunPrints(
                "secret/pull",
                "secret/pull created",
                "create",
                "secret",
                "docker-registry",
                "pull",
                "--docker-server=registry.example.com",
                "--docker-username=u",
                "--docker-password=p");
        assertThat(pull.at("/type").asString()).isEqualTo("kubernetes.io/dockerconfigjson");
        createsWhatItsDryRunPrints(
                "clusterrole/reader",
                "clusterrole.rbac.authorization.k8s.io/reader created",
                "create",
                "clusterrole",
                "reader",
                "--verb=get,list",
                "--resource=pods,deployments.apps");
        createsWhatItsDryRunPrints(
                "clusterrolebinding/readers",
                "clusterrolebinding.rbac.authorization.k8s.io/readers created",
                "create",
                "clusterrolebinding",
                "readers",
                "--clusterrole=reader",
                "--group=devs");

        JsonNode preview = json(kubectl.run(
                        "create",
                        "deployment",
                        "preview",
                        "--image=nginx",
                        "--replicas=0",
                        "--dry-run=server",
                        "-o",
                        "json")
                .ok()
                .out());
        assertThat(preview.at("/metadata/uid").asString())
                .as("the server completed it")
                .isNotEmpty();
        assertThat(preview.at("/spec/replicas").asInt()).isZero();
        Kubectl.Result notStored = kubectl.run("get", "deployment", "preview");
        assertThat(notStored.exit()).isEqualTo(1);
        assertThat(notStored.err()).contains("NotFound");
    }

    @Test
    void rolesBindingsAndAuth() throws Exception {
        assertThat(kubectl.run("auth", "can-i", "get", "pods").ok().out().strip())
                .isEqualTo("yes");
        Kubectl.Result bobBefore = kubectl.run("auth", "can-i", "get", "pods", "--as=bob");
        assertThat(bobBefore.exit()).isEqualTo(1);
        assertThat(bobBefore.out().strip()).isEqualTo("no");

        JsonNode role = createsWhatItsDryRunPrints(
                "role/r",
                "role.rbac.authorization.k8s.io/r created",
                "create",
                "role",
                "r",
                "--verb=get",
                "--resource=pods");
        assertThat(role.at("/rules/0/verbs/0").asString()).isEqualTo("get");
        createsWhatItsDryRunPrints(
                "rolebinding/rb",
                "rolebinding.rbac.authorization.k8s.io/rb created",
                "create",
                "rolebinding",
                "rb",
                "--role=r",
                "--user=bob");
        assertThat(kubectl.run("auth", "can-i", "get", "pods", "--as=bob")
                        .ok()
                        .out()
                        .strip())
                .isEqualTo("yes");
        Kubectl.Result bobCannotList = kubectl.run("auth", "can-i", "list", "pods", "--as=bob");
        assertThat(bobCannotList.exit()).isEqualTo(1);
        assertThat(bobCannotList.out().strip()).isEqualTo("no");

        JsonNode whoami = json(kubectl.run("auth", "whoami", "-o", "json").ok().out());
        assertThat(whoami.at("/kind").asString()).isEqualTo("SelfSubjectReview");
        assertThat(whoami.at("/status/userInfo/username").asString()).isEqualTo("kubeloop-admin");
        assertThat(kubectl.run("auth", "whoami", "--as=bob").ok().out()).contains("bob");
    }
}
