package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.apiserver.ApiClient.Reply;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Pods and the apps/v1 workloads as kube-apiserver 1.32 admits them, over HTTP: what a minimal object is stored as
 * (compared field by field with what a 1.32 cluster stores), each validation rule's 422 (code, reason, field path,
 * cause reason) with nothing stored, and the immutability rules of updates. One server for the class; each test
 * uses its own names.
 */
class WorkloadAdmissionIT {

    private static final String PODS = "/api/v1/namespaces/default/pods";
    private static final String DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments";
    private static final String REPLICASETS = "/apis/apps/v1/namespaces/default/replicasets";
    private static final String STATEFULSETS = "/apis/apps/v1/namespaces/default/statefulsets";
    private static final String DAEMONSETS = "/apis/apps/v1/namespaces/default/daemonsets";
    private static final AtomicInteger NAMES = new AtomicInteger();

    private static EmbeddedApiServer server;
    private static ApiClient api;

    @BeforeAll
    static void start() {
        server = EmbeddedApiServer.builder().start();
        api = new ApiClient(server.url());
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static JsonNode json(String text) {
        return ApiClient.JSON.readTree(text);
    }

    private static String pod(String name, String spec) {
        return "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"" + name + "\"},\"spec\":" + spec
                + "}";
    }

    private static String workload(String kind, String name, String spec) {
        return "{\"apiVersion\":\"apps/v1\",\"kind\":\"" + kind + "\",\"metadata\":{\"name\":\"" + name
                + "\"},\"spec\":" + spec + "}";
    }

    private static final String TEMPLATE =
            "\"template\":{\"metadata\":{\"labels\":{\"app\":\"web\"}},\"spec\":{\"containers\":[{\"name\":\"c\","
                    + "\"image\":\"nginx\"}]}}";
    private static final String SELECTOR = "\"selector\":{\"matchLabels\":{\"app\":\"web\"}}";

    /** The pod spec defaults a 1.32 pod template holds (a pod has these and more). */
    private static final String TEMPLATE_SPEC_DEFAULTS = """
            {"containers":[{"name":"c","image":"nginx","imagePullPolicy":"Always","resources":{},
              "terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],
             "dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":"default-scheduler",
             "securityContext":{},"terminationGracePeriodSeconds":30}""";

    @Test
    void aMinimalPodIsStoredAsKube132StoresIt() {
        JsonNode created = api.create(PODS, pod("minimal", "{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}"));

        // kubectl get pod -o json of the same pod on a 1.32 cluster, less the service account token volume
        // (kube-api-access-*, mounted by a token controller the embedded server does not have)
        assertThat(created.get("spec")).isEqualTo(json("""
                {"containers":[{"name":"c","image":"nginx","imagePullPolicy":"Always","resources":{},
                  "terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],
                 "dnsPolicy":"ClusterFirst","enableServiceLinks":true,"preemptionPolicy":"PreemptLowerPriority",
                 "priority":0,"restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},
                 "serviceAccount":"default","serviceAccountName":"default","terminationGracePeriodSeconds":30,
                 "tolerations":[
                   {"effect":"NoExecute","key":"node.kubernetes.io/not-ready","operator":"Exists","tolerationSeconds":300},
                   {"effect":"NoExecute","key":"node.kubernetes.io/unreachable","operator":"Exists","tolerationSeconds":300}]}
                """));
        assertThat(created.get("status")).isEqualTo(json("{\"phase\":\"Pending\",\"qosClass\":\"BestEffort\"}"));
        assertThat(api.get(PODS + "/minimal").body()).isEqualTo(created);
    }

    @Test
    void aMinimalDeploymentIsStoredAsKube132StoresIt() {
        JsonNode created =
                api.create(DEPLOYMENTS, workload("Deployment", "minimal", "{" + SELECTOR + "," + TEMPLATE + "}"));

        ObjectNode expected = (ObjectNode) json("""
                {"progressDeadlineSeconds":600,"replicas":1,"revisionHistoryLimit":10,
                 "selector":{"matchLabels":{"app":"web"}},
                 "strategy":{"rollingUpdate":{"maxSurge":"25%","maxUnavailable":"25%"},"type":"RollingUpdate"},
                 "template":{"metadata":{"labels":{"app":"web"}}}}""");
        ((ObjectNode) expected.get("template")).set("spec", json(TEMPLATE_SPEC_DEFAULTS));
        assertThat(created.get("spec")).isEqualTo(expected);
        assertThat(created.get("status")).isEqualTo(json("{}"));
        assertThat(created.at("/metadata/generation").asLong()).isEqualTo(1);
    }

    @Test
    void replicaSetsStatefulSetsAndDaemonSetsGetTheirDefaults() {
        JsonNode rs = api.create(REPLICASETS, workload("ReplicaSet", "minimal", "{" + SELECTOR + "," + TEMPLATE + "}"));
        assertThat(rs.at("/spec/replicas").asInt()).isEqualTo(1);
        assertThat(rs.at("/spec/template/spec")).isEqualTo(json(TEMPLATE_SPEC_DEFAULTS));

        JsonNode sts = api.create(
                STATEFULSETS,
                workload("StatefulSet", "minimal", "{\"serviceName\":\"web\"," + SELECTOR + "," + TEMPLATE + "}"));
        ObjectNode spec = ((ObjectNode) sts.get("spec")).deepCopy();
        assertThat(spec.remove("template").get("spec")).isEqualTo(json(TEMPLATE_SPEC_DEFAULTS));
        assertThat((JsonNode) spec).isEqualTo(json("""
                {"serviceName":"web","selector":{"matchLabels":{"app":"web"}},
                 "podManagementPolicy":"OrderedReady","replicas":1,"revisionHistoryLimit":10,
                 "updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":0}},
                 "persistentVolumeClaimRetentionPolicy":{"whenDeleted":"Retain","whenScaled":"Retain"}}"""));

        JsonNode ds = api.create(DAEMONSETS, workload("DaemonSet", "minimal", "{" + SELECTOR + "," + TEMPLATE + "}"));
        assertThat(ds.at("/spec/updateStrategy"))
                .isEqualTo(
                        json("{\"type\":\"RollingUpdate\",\"rollingUpdate\":{\"maxUnavailable\":1,\"maxSurge\":0}}"));
        assertThat(ds.at("/spec/revisionHistoryLimit").asInt()).isEqualTo(10);
        assertThat(ds.at("/metadata/annotations/deprecated.daemonset.template.generation")
                        .asString())
                .isEqualTo("1");
    }

    @Test
    void imagePullPolicyFollowsTheTagAndQosClassTheResources() {
        JsonNode pod = api.create(PODS, pod("pulls", """
                {"containers":[
                  {"name":"a","image":"nginx:latest"},
                  {"name":"b","image":"nginx:1.27"},
                  {"name":"c","image":"registry.local:5000/team/app"},
                  {"name":"d","image":"nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"},
                  {"name":"e","image":"nginx:1.27","imagePullPolicy":"Never"}]}"""));
        assertThat(pod.at("/spec/containers"))
                .extracting(c -> c.get("imagePullPolicy").asString())
                .containsExactly("Always", "IfNotPresent", "Always", "IfNotPresent", "Never");

        assertThat(qosOf("burstable", "{\"requests\":{\"cpu\":\"100m\"}}")).isEqualTo("Burstable");
        // limits alone: requests default to them, so the pod is Guaranteed
        assertThat(qosOf("guaranteed", "{\"limits\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}"))
                .isEqualTo("Guaranteed");
        assertThat(qosOf("mixed", "{\"limits\":{\"cpu\":\"1\",\"memory\":\"1Gi\"},\"requests\":{\"cpu\":\"500m\"}}"))
                .isEqualTo("Burstable");
        assertThat(api.get(PODS + "/guaranteed").body().at("/spec/containers/0/resources/requests"))
                .isEqualTo(json("{\"cpu\":\"1\",\"memory\":\"1Gi\"}"));
    }

    private static String qosOf(String name, String resources) {
        return api.create(
                        PODS,
                        pod(
                                name,
                                "{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\",\"resources\":" + resources
                                        + "}]}"))
                .at("/status/qosClass")
                .asString();
    }

    @Test
    void existingTolerationsOfNotReadyAndUnreachableNodesAreKept() {
        JsonNode pod = api.create(PODS, pod("tolerant", """
                {"containers":[{"name":"c","image":"nginx"}],
                 "tolerations":[{"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute",
                   "tolerationSeconds":60}]}"""));
        assertThat(pod.at("/spec/tolerations"))
                .extracting(t -> t.get("key").asString() + "="
                        + t.get("tolerationSeconds").asInt())
                .containsExactly("node.kubernetes.io/unreachable=60", "node.kubernetes.io/not-ready=300");
    }

    /** kind collection, body, then the expected field, cause reason and message of the single 422 cause. */
    static Stream<Arguments> invalidObjects() {
        String c = "{\"name\":\"c\",\"image\":\"nginx\"}";
        return Stream.of(
                Arguments.of(PODS, pod("x", "{}"), "spec.containers", "FieldValueRequired", "Required value"),
                Arguments.of(
                        PODS,
                        pod("x", "{\"containers\":[{\"name\":\"c\"}]}"),
                        "spec.containers[0].image",
                        "FieldValueRequired",
                        "Required value"),
                Arguments.of(
                        PODS,
                        pod("x", "{\"containers\":[{\"image\":\"nginx\"}]}"),
                        "spec.containers[0].name",
                        "FieldValueRequired",
                        "Required value"),
                Arguments.of(
                        PODS,
                        pod("x", "{\"containers\":[{\"name\":\"Web_1\",\"image\":\"nginx\"}]}"),
                        "spec.containers[0].name",
                        "FieldValueInvalid",
                        "Invalid value: \"Web_1\": a lowercase RFC 1123 label must consist of lower case alphanumeric "
                                + "characters or '-', and must start and end with an alphanumeric character (e.g. "
                                + "'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"),
                Arguments.of(
                        PODS,
                        pod("x", "{\"containers\":[" + c + "," + c + "]}"),
                        "spec.containers[1].name",
                        "FieldValueDuplicate",
                        "Duplicate value: \"c\""),
                Arguments.of(
                        PODS,
                        pod(
                                "x",
                                "{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\",\"ports\":[{\"containerPort\":70000}]}]}"),
                        "spec.containers[0].ports[0].containerPort",
                        "FieldValueInvalid",
                        "Invalid value: 70000: must be between 1 and 65535, inclusive"),
                Arguments.of(
                        PODS,
                        pod(
                                "x",
                                "{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\",\"ports\":[{\"containerPort\":80,\"protocol\":\"HTTP\"}]}]}"),
                        "spec.containers[0].ports[0].protocol",
                        "FieldValueNotSupported",
                        "Unsupported value: \"HTTP\": supported values: \"SCTP\", \"TCP\", \"UDP\""),
                Arguments.of(
                        PODS,
                        pod("x", "{\"restartPolicy\":\"Sometimes\",\"containers\":[" + c + "]}"),
                        "spec.restartPolicy",
                        "FieldValueNotSupported",
                        "Unsupported value: \"Sometimes\": supported values: \"Always\", \"OnFailure\", \"Never\""),
                Arguments.of(
                        PODS,
                        pod("x", "{\"dnsPolicy\":\"Google\",\"containers\":[" + c + "]}"),
                        "spec.dnsPolicy",
                        "FieldValueNotSupported",
                        "Unsupported value: \"Google\": supported values: \"ClusterFirstWithHostNet\", \"ClusterFirst\", "
                                + "\"Default\", \"None\""),
                Arguments.of(
                        PODS,
                        pod(
                                "x",
                                "{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\",\"resources\":{\"limits\":{\"cpu\":\"1\"},\"requests\":{\"cpu\":\"2\"}}}]}"),
                        "spec.containers[0].resources.requests",
                        "FieldValueInvalid",
                        "Invalid value: \"2\": must be less than or equal to cpu limit of 1"),
                Arguments.of(
                        PODS,
                        pod(
                                "x",
                                "{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\",\"volumeMounts\":[{\"name\":\"data\",\"mountPath\":\"/d\"}]}]}"),
                        "spec.containers[0].volumeMounts[0].name",
                        "FieldValueNotFound",
                        "Not found: \"data\""),
                Arguments.of(
                        PODS,
                        pod("x", "{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\",\"env\":[{\"name\":\"1X\"}]}]}"),
                        "spec.containers[0].env[0].name",
                        "FieldValueInvalid",
                        "Invalid value: \"1X\": a valid environment variable name must consist of alphabetic characters, "
                                + "digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or "
                                + "'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')"),
                Arguments.of(
                        DEPLOYMENTS,
                        workload("Deployment", "x", "{\"selector\":{}," + TEMPLATE + "}"),
                        "spec.selector",
                        "FieldValueInvalid",
                        "Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), "
                                + "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment"),
                Arguments.of(
                        DEPLOYMENTS,
                        workload(
                                "Deployment",
                                "x",
                                "{\"selector\":{\"matchLabels\":{\"app\":\"db\"}}," + TEMPLATE + "}"),
                        "spec.template.metadata.labels",
                        "FieldValueInvalid",
                        "Invalid value: map[string]string{\"app\":\"web\"}: `selector` does not match template `labels`"),
                Arguments.of(
                        DEPLOYMENTS,
                        workload("Deployment", "x", "{\"replicas\":-1," + SELECTOR + "," + TEMPLATE + "}"),
                        "spec.replicas",
                        "FieldValueInvalid",
                        "Invalid value: -1: must be greater than or equal to 0"),
                Arguments.of(
                        DEPLOYMENTS,
                        workload(
                                "Deployment",
                                "x",
                                "{\"strategy\":{\"type\":\"Recreate\",\"rollingUpdate\":{}}," + SELECTOR + ","
                                        + TEMPLATE + "}"),
                        "spec.strategy.rollingUpdate",
                        "FieldValueForbidden",
                        "Forbidden: may not be specified when strategy `type` is 'Recreate'"),
                Arguments.of(
                        DEPLOYMENTS,
                        workload(
                                "Deployment",
                                "x",
                                "{\"strategy\":{\"rollingUpdate\":{\"maxSurge\":0,\"maxUnavailable\":\"0%\"}},"
                                        + SELECTOR + "," + TEMPLATE + "}"),
                        "spec.strategy.rollingUpdate.maxUnavailable",
                        "FieldValueInvalid",
                        "Invalid value: \"0%\": may not be 0 when `maxSurge` is 0"),
                Arguments.of(
                        REPLICASETS,
                        workload(
                                "ReplicaSet",
                                "x",
                                "{" + SELECTOR + ","
                                        + TEMPLATE.replace(
                                                "\"containers\"", "\"restartPolicy\":\"Never\",\"containers\"")
                                        + "}"),
                        "spec.template.spec.restartPolicy",
                        "FieldValueNotSupported",
                        "Unsupported value: \"Never\": supported values: \"Always\""),
                Arguments.of(
                        STATEFULSETS,
                        workload(
                                "StatefulSet",
                                "x",
                                "{\"podManagementPolicy\":\"Random\"," + SELECTOR + "," + TEMPLATE + "}"),
                        "spec.podManagementPolicy",
                        "FieldValueInvalid",
                        "Invalid value: \"Random\": must be 'OrderedReady' or 'Parallel'"),
                Arguments.of(
                        DAEMONSETS,
                        workload(
                                "DaemonSet",
                                "x",
                                "{\"selector\":{\"matchExpressions\":[{\"key\":\"app\",\"operator\":\"In\"}]},"
                                        + TEMPLATE + "}"),
                        "spec.selector.matchExpressions[0].values",
                        "FieldValueRequired",
                        "Required value: must be specified when `operator` is 'In' or 'NotIn'"));
    }

    @ParameterizedTest(name = "{2}")
    @MethodSource("invalidObjects")
    void anInvalidObjectIs422WithKubesCauseAndNothingIsStored(
            String collection, String body, String field, String causeReason, String message) {
        Reply r = api.post(collection, body);

        assertThat(r.code()).as(r.raw()).isEqualTo(422);
        assertThat(r.body().get("reason").asString()).isEqualTo("Invalid");
        assertThat(r.body().at("/details/causes")).hasSize(1);
        JsonNode cause = r.body().at("/details/causes/0");
        assertThat(cause.get("field").asString()).isEqualTo(field);
        assertThat(cause.get("reason").asString()).isEqualTo(causeReason);
        assertThat(cause.get("message").asString()).isEqualTo(message);
        assertThat(r.body().get("message").asString()).endsWith("\"x\" is invalid: " + field + ": " + message);
        assertThat(api.get(collection + "/x").code()).isEqualTo(404);
    }

    @Test
    void aDeploymentWithoutSelectorGetsBothOfKubesErrors() {
        Reply r = api.post(DEPLOYMENTS, workload("Deployment", "noselector", "{" + TEMPLATE + "}"));

        assertThat(r.code()).isEqualTo(422);
        assertThat(r.body().get("message").asString())
                .isEqualTo("Deployment.apps \"noselector\" is invalid: [spec.selector: Required value, "
                        + "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"web\"}: "
                        + "`selector` does not match template `labels`]");
        assertThat(api.get(DEPLOYMENTS + "/noselector").code()).isEqualTo(404);
    }

    @Test
    void aPodsSpecIsImmutableButForImagesDeadlineAndAddedTolerations() {
        String name = "immutable-" + NAMES.incrementAndGet();
        JsonNode created = api.create(PODS, pod(name, "{\"containers\":[{\"name\":\"c\",\"image\":\"nginx:1.25\"}]}"));

        ObjectNode changed = (ObjectNode) created.deepCopy();
        ((ObjectNode) changed.at("/spec/containers/0")).putArray("command").add("sleep");
        Reply refused = api.put(PODS + "/" + name, changed.toString());
        assertThat(refused.code()).as(refused.raw()).isEqualTo(422);
        JsonNode cause = refused.body().at("/details/causes/0");
        assertThat(cause.get("field").asString()).isEqualTo("spec");
        assertThat(cause.get("reason").asString()).isEqualTo("FieldValueForbidden");
        assertThat(cause.get("message").asString())
                .startsWith("Forbidden: pod updates may not change fields other than `spec.containers[*].image`,"
                        + "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only "
                        + "additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set "
                        + "to 1 if it was previously negative)\n")
                .contains("Containers");
        assertThat(api.get(PODS + "/" + name).body()).isEqualTo(created);

        ObjectNode allowed = (ObjectNode) created.deepCopy();
        ((ObjectNode) allowed.at("/spec/containers/0")).put("image", "nginx:1.27");
        ((ObjectNode) allowed.get("spec")).put("activeDeadlineSeconds", 600);
        ObjectNode toleration =
                ((ObjectNode) allowed.get("spec")).withArray("tolerations").addObject();
        toleration.put("key", "dedicated").put("operator", "Exists").put("effect", "NoSchedule");
        Reply updated = api.put(PODS + "/" + name, allowed.toString());
        assertThat(updated.code()).as(updated.raw()).isEqualTo(200);
        assertThat(updated.body().at("/spec/containers/0/image").asString()).isEqualTo("nginx:1.27");

        ObjectNode removed = (ObjectNode) updated.body().deepCopy();
        ((ObjectNode) removed.get("spec")).withArray("tolerations").remove(2);
        Reply removal = api.put(PODS + "/" + name, removed.toString());
        assertThat(removal.code()).isEqualTo(422);
        assertThat(removal.body().at("/details/causes/0/field").asString()).isEqualTo("spec.tolerations");

        Reply grow = api.request(
                "PATCH",
                PODS + "/" + name,
                "application/merge-patch+json",
                "{\"spec\":{\"activeDeadlineSeconds\":1200}}");
        assertThat(grow.code()).isEqualTo(422);
        assertThat(grow.body().at("/details/causes/0/message").asString())
                .isEqualTo("Invalid value: 1200: must be less than or equal to previous value");
    }

    @Test
    void aStatusWriteKeepsThePodsQosClassWhichMayNotChange() {
        JsonNode created = api.create(PODS, pod("qos", "{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}"));
        ObjectNode running = (ObjectNode) created.deepCopy();
        running.putObject("status").put("phase", "Running");
        Reply kept = api.put(PODS + "/qos/status", running.toString());
        assertThat(kept.code()).as(kept.raw()).isEqualTo(200);
        assertThat(kept.body().at("/status")).isEqualTo(json("{\"phase\":\"Running\",\"qosClass\":\"BestEffort\"}"));

        ((ObjectNode) running.get("status")).put("qosClass", "Guaranteed");
        Reply refused = api.put(PODS + "/qos/status", running.toString());
        assertThat(refused.code()).isEqualTo(422);
        assertThat(refused.body().get("message").asString())
                .isEqualTo(
                        "Pod \"qos\" is invalid: status.qosClass: Invalid value: \"Guaranteed\": field is immutable");
    }

    @Test
    void aWorkloadsSelectorIsImmutable() {
        JsonNode created =
                api.create(DEPLOYMENTS, workload("Deployment", "fixed", "{" + SELECTOR + "," + TEMPLATE + "}"));
        Reply r = api.request(
                "PATCH",
                DEPLOYMENTS + "/fixed",
                "application/merge-patch+json",
                "{\"spec\":{\"selector\":{\"matchLabels\":{\"tier\":\"x\"}},\"template\":{\"metadata\":{\"labels\":{\"tier\":\"x\"}}}}}");

        assertThat(r.code()).as(r.raw()).isEqualTo(422);
        assertThat(r.body().get("message").asString())
                .isEqualTo("Deployment.apps \"fixed\" is invalid: spec.selector: Invalid value: "
                        + "v1.LabelSelector{MatchLabels:map[string]string{\"app\":\"web\", \"tier\":\"x\"}, "
                        + "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable");
        assertThat(api.get(DEPLOYMENTS + "/fixed").body()).isEqualTo(created);

        Reply scaled = api.request(
                "PATCH", DEPLOYMENTS + "/fixed", "application/merge-patch+json", "{\"spec\":{\"replicas\":3}}");
        assertThat(scaled.code()).isEqualTo(200);
        assertThat(scaled.body().at("/metadata/generation").asLong()).isEqualTo(2);
    }

    @Test
    void aStatefulSetUpdateMayChangeOnlyKubesListOfFields() {
        api.create(
                STATEFULSETS,
                workload("StatefulSet", "db", "{\"serviceName\":\"db\"," + SELECTOR + "," + TEMPLATE + "}"));
        Reply r = api.request(
                "PATCH",
                STATEFULSETS + "/db",
                "application/merge-patch+json",
                "{\"spec\":{\"serviceName\":\"other\"}}");

        assertThat(r.code()).isEqualTo(422);
        assertThat(r.body().at("/details/causes/0/field").asString()).isEqualTo("spec");
        assertThat(r.body().at("/details/causes/0/message").asString())
                .isEqualTo("Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', "
                        + "'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' "
                        + "and 'minReadySeconds' are forbidden");
        Reply scaled = api.request(
                "PATCH", STATEFULSETS + "/db", "application/merge-patch+json", "{\"spec\":{\"replicas\":2}}");
        assertThat(scaled.code()).isEqualTo(200);
    }

    @Test
    void aRewriteThatLeavesOutDefaultsChangesNothing() {
        String body = workload("Deployment", "same", "{" + SELECTOR + "," + TEMPLATE + "}");
        JsonNode created = api.create(DEPLOYMENTS, body);
        Reply replaced = api.put(DEPLOYMENTS + "/same", body);

        assertThat(replaced.code()).as(replaced.raw()).isEqualTo(200);
        assertThat(replaced.body().at("/metadata/generation").asLong()).isEqualTo(1);
        assertThat(replaced.body().at("/metadata/resourceVersion"))
                .as("a write that changes nothing takes no revision")
                .isEqualTo(created.at("/metadata/resourceVersion"));
    }

    @Test
    void aPodNamingAnUnknownPriorityClassIsForbidden() {
        Reply r = api.post(
                PODS,
                pod(
                        "urgent",
                        "{\"priorityClassName\":\"urgent\",\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}"));
        assertThat(r.code()).isEqualTo(403);
        assertThat(r.body().get("message").asString())
                .isEqualTo("pods \"urgent\" is forbidden: no PriorityClass with name urgent was found");

        JsonNode critical = api.create(
                PODS,
                pod(
                        "critical",
                        "{\"priorityClassName\":\"system-node-critical\","
                                + "\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}"));
        assertThat(critical.at("/spec/priority").asLong()).isEqualTo(2_000_001_000L);
    }

    @Test
    void invalidNamesAreListedTogetherInOneStatus() {
        Reply r = api.post(PODS, pod("two", "{\"containers\":[{\"name\":\"C\"}]}"));
        assertThat(r.code()).isEqualTo(422);
        assertThat(r.body().at("/details/causes"))
                .extracting(c -> c.get("field").asString())
                .containsExactly("spec.containers[0].name", "spec.containers[0].image");
        assertThat(List.of(r.body().get("message").asString()))
                .allMatch(m -> m.startsWith("Pod \"two\" is invalid: ["));
    }
}
