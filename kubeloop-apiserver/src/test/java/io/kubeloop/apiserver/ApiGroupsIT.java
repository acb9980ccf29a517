package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The API groups of issue 17 over HTTP, as kube-apiserver 1.32 serves them: batch/v1, networking.k8s.io/v1,
 * policy/v1 with {@code pods/eviction}, autoscaling/v2, storage.k8s.io/v1, discovery.k8s.io/v1 and core
 * PersistentVolume/PersistentVolumeClaim — discovery, kube's defaulting, validation (422 naming the field, nothing
 * stored), immutability, table columns and evictions honouring PodDisruptionBudgets. One server for the class;
 * each test uses its own namespace.
 */
class ApiGroupsIT {

    static final String AGGREGATED = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
    static final String TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io";
    static final String MESSAGE = "Cannot evict pod as it would violate the pod's disruption budget.";

    static EmbeddedApiServer server;
    static ApiClient api;

    @BeforeAll
    static void start() {
        server = EmbeddedApiServer.builder().start();
        api = new ApiClient(server.url());
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static void namespace(String name) {
        api.create("/api/v1/namespaces", "{\"metadata\":{\"name\":\"" + name + "\"}}");
    }

    private static JsonNode named(JsonNode array, String field, String value) {
        for (JsonNode n : array) {
            if (n.at(field).asString("").equals(value)) {
                return n;
            }
        }
        throw new AssertionError(value + " not in " + array);
    }

    private static JsonNode resource(JsonNode aggregated, String group, String plural) {
        JsonNode item = group.isEmpty()
                ? aggregated.get("items").get(0)
                : named(aggregated.get("items"), "/metadata/name", group);
        return named(item.get("versions").get(0).get("resources"), "/resource", plural);
    }

    /** Asserts a 422 naming {@code field} (and its cause), and that nothing named {@code name} was stored. */
    private static void assertInvalid(ApiClient.Reply reply, String field, String messagePart, String path) {
        assertThat(reply.code()).as(reply.raw()).isEqualTo(422);
        assertThat(reply.body().get("reason").asString()).isEqualTo("Invalid");
        assertThat(reply.body().at("/details/causes").findValuesAsString("field"))
                .contains(field);
        assertThat(reply.body().get("message").asString()).contains(messagePart);
        if (path != null) {
            assertThat(api.get(path).code()).as("nothing stored at %s", path).isEqualTo(404);
        }
    }

    @Test
    void aggregatedAndLegacyDiscoveryListTheNewResourcesAsKubeDoes() {
        JsonNode apis = api.get("/apis", AGGREGATED).body();
        JsonNode jobs = resource(apis, "batch", "jobs");
        assertThat(jobs.get("categories").get(0).asString()).isEqualTo("all");
        assertThat(jobs.at("/subresources/0/subresource").asString()).isEqualTo("status");
        assertThat(resource(apis, "batch", "cronjobs").get("shortNames").get(0).asString())
                .isEqualTo("cj");
        assertThat(resource(apis, "networking.k8s.io", "ingresses")
                        .get("shortNames")
                        .get(0)
                        .asString())
                .isEqualTo("ing");
        assertThat(resource(apis, "networking.k8s.io", "ingressclasses")
                        .get("scope")
                        .asString())
                .isEqualTo("Cluster");
        assertThat(resource(apis, "policy", "poddisruptionbudgets")
                        .get("shortNames")
                        .get(0)
                        .asString())
                .isEqualTo("pdb");
        JsonNode hpa = resource(apis, "autoscaling", "horizontalpodautoscalers");
        assertThat(hpa.at("/responseKind/version").asString()).isEqualTo("v2");
        assertThat(resource(apis, "storage.k8s.io", "storageclasses")
                        .get("shortNames")
                        .get(0)
                        .asString())
                .isEqualTo("sc");
        assertThat(resource(apis, "discovery.k8s.io", "endpointslices").has("shortNames"))
                .isFalse();

        JsonNode core = api.get("/api", AGGREGATED).body();
        assertThat(resource(core, "", "persistentvolumeclaims")
                        .get("shortNames")
                        .get(0)
                        .asString())
                .isEqualTo("pvc");
        JsonNode eviction = named(resource(core, "", "pods").get("subresources"), "/subresource", "eviction");
        assertThat(eviction.at("/responseKind/group").asString()).isEqualTo("policy");
        assertThat(eviction.at("/responseKind/kind").asString()).isEqualTo("Eviction");
        assertThat(eviction.get("verbs")).extracting(JsonNode::asString).containsExactly("create");

        JsonNode legacy = named(api.get("/api/v1").body().get("resources"), "/name", "pods/eviction");
        assertThat(legacy.get("group").asString()).isEqualTo("policy");
        assertThat(legacy.get("version").asString()).isEqualTo("v1");
        assertThat(legacy.get("verbs")).extracting(JsonNode::asString).containsExactly("create");
        assertThat(api.get("/apis/batch/v1").body().get("resources"))
                .extracting(r -> r.get("name").asString())
                .containsExactly("cronjobs", "cronjobs/status", "jobs", "jobs/status");
    }

    @Test
    void aJobGetsKubeDefaultsAndAGeneratedSelectorAndRefusesBadTemplates() {
        namespace("jobs");
        JsonNode job = api.create("/apis/batch/v1/namespaces/jobs/jobs", """
                {"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"pi"},
                 "spec":{"template":{"metadata":{"labels":{"app":"pi"}},"spec":{"restartPolicy":"Never",
                  "containers":[{"name":"pi","image":"perl:5.34"}]}}}}""");
        String uid = job.at("/metadata/uid").asString();
        JsonNode spec = job.get("spec");
        assertThat(spec.get("completions").asInt()).isEqualTo(1);
        assertThat(spec.get("parallelism").asInt()).isEqualTo(1);
        assertThat(spec.get("backoffLimit").asInt()).isEqualTo(6);
        assertThat(spec.get("completionMode").asString()).isEqualTo("NonIndexed");
        assertThat(spec.get("suspend").asBoolean()).isFalse();
        assertThat(spec.get("manualSelector").asBoolean()).isFalse();
        assertThat(spec.at("/selector/matchLabels/batch.kubernetes.io~1controller-uid")
                        .asString())
                .isEqualTo(uid);
        JsonNode labels = spec.at("/template/metadata/labels");
        assertThat(labels.get("controller-uid").asString()).isEqualTo(uid);
        assertThat(labels.get("batch.kubernetes.io/job-name").asString()).isEqualTo("pi");
        assertThat(labels.get("job-name").asString()).isEqualTo("pi");
        assertThat(job.at("/metadata/labels/app").asString())
                .as("the template's labels")
                .isEqualTo("pi");

        ApiClient.Reply always = api.post("/apis/batch/v1/namespaces/jobs/jobs", """
                {"metadata":{"name":"always"},"spec":{"template":{"spec":{
                  "containers":[{"name":"c","image":"busybox"}]}}}}""");
        assertInvalid(
                always,
                "spec.template.spec.restartPolicy",
                "Unsupported value: \"Always\": supported values: \"OnFailure\", \"Never\"",
                "/apis/batch/v1/namespaces/jobs/jobs/always");

        ApiClient.Reply manual = api.post("/apis/batch/v1/namespaces/jobs/jobs", """
                {"metadata":{"name":"manual"},"spec":{"manualSelector":true,"selector":{"matchLabels":{"a":"b"}},
                  "template":{"metadata":{"labels":{"a":"c"}},"spec":{"restartPolicy":"OnFailure",
                  "containers":[{"name":"c","image":"busybox"}]}}}}""");
        assertInvalid(
                manual,
                "spec.template.metadata.labels",
                "`selector` does not match template `labels`",
                "/apis/batch/v1/namespaces/jobs/jobs/manual");

        ApiClient.Reply change = api.request(
                "PATCH",
                "/apis/batch/v1/namespaces/jobs/jobs/pi",
                "application/merge-patch+json",
                "{\"spec\":{\"selector\":{\"matchLabels\":{\"x\":\"y\"}}}}");
        assertInvalid(change, "spec.selector", "field is immutable", null);

        JsonNode table = api.get("/apis/batch/v1/namespaces/jobs/jobs", TABLE).body();
        assertThat(table.get("columnDefinitions"))
                .extracting(c -> c.get("name").asString())
                .startsWith("Name", "Status", "Completions", "Duration", "Age");
        assertThat(table.at("/rows/0/cells/1").asString()).isEqualTo("Running");
        assertThat(table.at("/rows/0/cells/2").asString()).isEqualTo("0/1");
    }

    @Test
    void aCronJobNeedsAScheduleThatParsesAsCron() {
        namespace("cron");
        ApiClient.Reply bad = api.post("/apis/batch/v1/namespaces/cron/cronjobs", """
                {"metadata":{"name":"bad"},"spec":{"schedule":"every minute","jobTemplate":{"spec":{"template":{
                  "spec":{"restartPolicy":"OnFailure","containers":[{"name":"c","image":"busybox"}]}}}}}}""");
        assertInvalid(
                bad,
                "spec.schedule",
                "spec.schedule: Invalid value: \"every minute\": expected exactly 5 fields, found 2: [every minute]",
                "/apis/batch/v1/namespaces/cron/cronjobs/bad");
        ApiClient.Reply range = api.post("/apis/batch/v1/namespaces/cron/cronjobs", """
                {"metadata":{"name":"range"},"spec":{"schedule":"0 25 * * *","jobTemplate":{"spec":{"template":{
                  "spec":{"restartPolicy":"OnFailure","containers":[{"name":"c","image":"busybox"}]}}}}}}""");
        assertInvalid(range, "spec.schedule", "end of range (25) above maximum (23): 25", null);

        JsonNode ok = api.create("/apis/batch/v1/namespaces/cron/cronjobs", """
                {"metadata":{"name":"nightly"},"spec":{"schedule":"@daily","jobTemplate":{"spec":{"template":{
                  "spec":{"restartPolicy":"OnFailure","containers":[{"name":"c","image":"busybox"}]}}}}}}""");
        assertThat(ok.at("/spec/concurrencyPolicy").asString()).isEqualTo("Allow");
        assertThat(ok.at("/spec/suspend").asBoolean()).isFalse();
        assertThat(ok.at("/spec/successfulJobsHistoryLimit").asInt()).isEqualTo(3);
        assertThat(ok.at("/spec/failedJobsHistoryLimit").asInt()).isEqualTo(1);
        JsonNode row =
                api.get("/apis/batch/v1/namespaces/cron/cronjobs", TABLE).body().at("/rows/0/cells");
        assertThat(row.get(1).asString()).isEqualTo("@daily");
        assertThat(row.get(2).asString()).isEqualTo("<none>");
        assertThat(row.get(3).asString()).isEqualTo("False");
        assertThat(row.get(5).asString()).isEqualTo("<none>");
    }

    @Test
    void ingressesPdbsVolumesAndStorageClassesAreValidatedAsKubeDoes() {
        namespace("net");
        ApiClient.Reply noPathType = api.post("/apis/networking.k8s.io/v1/namespaces/net/ingresses", """
                {"metadata":{"name":"web"},"spec":{"rules":[{"host":"shop.example.com","http":{"paths":[
                  {"path":"/","backend":{"service":{"name":"web","port":{"number":80}}}}]}}]}}""");
        assertInvalid(
                noPathType,
                "spec.rules[0].http.paths[0].pathType",
                "Required value: pathType must be specified",
                "/apis/networking.k8s.io/v1/namespaces/net/ingresses/web");
        assertInvalid(
                api.post("/apis/networking.k8s.io/v1/namespaces/net/ingresses", "{\"metadata\":{\"name\":\"e\"}}"),
                "spec",
                "either `defaultBackend` or `rules` must be specified",
                null);

        ApiClient.Reply both = api.post("/apis/policy/v1/namespaces/net/poddisruptionbudgets", """
                {"metadata":{"name":"both"},"spec":{"minAvailable":1,"maxUnavailable":"10%",
                  "selector":{"matchLabels":{"app":"web"}}}}""");
        assertInvalid(
                both,
                "spec",
                "minAvailable and maxUnavailable cannot be both set",
                "/apis/policy/v1/namespaces/net/poddisruptionbudgets/both");
        JsonNode pdb = api.create("/apis/policy/v1/namespaces/net/poddisruptionbudgets", """
                {"metadata":{"name":"web"},"spec":{"minAvailable":"50%","selector":{"matchLabels":{"app":"web"}}}}""");
        assertThat(pdb.at("/status/disruptionsAllowed").asInt()).isZero();
        JsonNode pdbRow = api.get("/apis/policy/v1/namespaces/net/poddisruptionbudgets", TABLE)
                .body();
        assertThat(pdbRow.at("/rows/0/cells/1").asString()).isEqualTo("50%");
        assertThat(pdbRow.at("/rows/0/cells/2").asString()).isEqualTo("N/A");

        ApiClient.Reply noSize = api.post("/api/v1/namespaces/net/persistentvolumeclaims", """
                {"metadata":{"name":"data"},"spec":{"accessModes":["ReadWriteOnce"]}}""");
        assertInvalid(
                noSize,
                "spec.resources[storage]",
                "Required value",
                "/api/v1/namespaces/net/persistentvolumeclaims/data");
        JsonNode pvc = api.create("/api/v1/namespaces/net/persistentvolumeclaims", """
                {"metadata":{"name":"data"},"spec":{"accessModes":["ReadWriteOnce"],
                  "resources":{"requests":{"storage":"1Gi"}}}}""");
        assertThat(pvc.at("/spec/volumeMode").asString()).isEqualTo("Filesystem");
        assertThat(pvc.at("/status/phase").asString()).isEqualTo("Pending");
        ApiClient.Reply grow = api.request(
                "PATCH",
                "/api/v1/namespaces/net/persistentvolumeclaims/data",
                "application/merge-patch+json",
                "{\"spec\":{\"accessModes\":[\"ReadWriteMany\"]}}");
        assertThat(grow.code()).isEqualTo(422);
        assertThat(grow.body().get("message").asString())
                .contains("spec: Forbidden: spec is immutable after creation except resources.requests");

        JsonNode sc = api.create("/apis/storage.k8s.io/v1/storageclasses", """
                {"metadata":{"name":"fast"},"provisioner":"ebs.csi.aws.com"}""");
        assertThat(sc.get("reclaimPolicy").asString()).isEqualTo("Delete");
        assertThat(sc.get("volumeBindingMode").asString()).isEqualTo("Immediate");
        ApiClient.Reply provisioner = api.request(
                "PATCH",
                "/apis/storage.k8s.io/v1/storageclasses/fast",
                "application/merge-patch+json",
                "{\"provisioner\":\"other\"}");
        assertThat(provisioner.code()).isEqualTo(422);
        assertThat(provisioner.body().get("message").asString())
                .contains("provisioner: Forbidden: updates to provisioner are forbidden.");
        assertInvalid(
                api.post("/apis/storage.k8s.io/v1/storageclasses", "{\"metadata\":{\"name\":\"none\"}}"),
                "provisioner",
                "Required value",
                "/apis/storage.k8s.io/v1/storageclasses/none");
    }

    private static void runningReadyPod(String namespace, String name, String app) {
        api.create("/api/v1/namespaces/" + namespace + "/pods", """
                {"metadata":{"name":"%s","labels":{"app":"%s"}},"spec":{"terminationGracePeriodSeconds":0,
                  "containers":[{"name":"c","image":"nginx:1.27"}]}}""".formatted(name, app));
        ApiClient.Reply status = api.request(
                "PATCH",
                "/api/v1/namespaces/" + namespace + "/pods/" + name + "/status",
                "application/merge-patch+json",
                "{\"status\":{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}");
        assertThat(status.code()).as(status.raw()).isEqualTo(200);
    }

    private static ApiClient.Reply evict(String namespace, String name) {
        return api.post(
                "/api/v1/namespaces/" + namespace + "/pods/" + name + "/eviction",
                "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\",\"metadata\":{\"name\":\"" + name
                        + "\",\"namespace\":\"" + namespace + "\"}}");
    }

    @Test
    void anEvictionDeletesThePodUnlessItsDisruptionBudgetWouldBeViolated() {
        namespace("evict");
        runningReadyPod("evict", "web-1", "web");
        runningReadyPod("evict", "web-2", "web");
        api.create("/apis/policy/v1/namespaces/evict/poddisruptionbudgets", """
                {"metadata":{"name":"web"},"spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"web"}}}}""");

        ApiClient.Reply first = evict("evict", "web-1");
        assertThat(first.code()).as(first.raw()).isEqualTo(201);
        assertThat(first.body().get("kind").asString()).isEqualTo("Status");
        assertThat(first.body().get("status").asString()).isEqualTo("Success");
        assertThat(api.get("/api/v1/namespaces/evict/pods/web-1").code()).isEqualTo(404);

        ApiClient.Reply second = evict("evict", "web-2");
        assertThat(second.code()).as(second.raw()).isEqualTo(429);
        assertThat(second.body().get("reason").asString()).isEqualTo("TooManyRequests");
        assertThat(second.body().get("message").asString()).isEqualTo(MESSAGE);
        assertThat(second.body().at("/details/causes/0/reason").asString()).isEqualTo("DisruptionBudget");
        assertThat(second.body().at("/details/causes/0/message").asString())
                .isEqualTo("The disruption budget web needs 1 healthy pods and has 1 currently");
        assertThat(api.get("/api/v1/namespaces/evict/pods/web-2").code())
                .as("still there")
                .isEqualTo(200);

        // A pod no budget selects, and a pending one, go at once; a missing pod is 404; GET is not served.
        runningReadyPod("evict", "lone", "other");
        assertThat(evict("evict", "lone").code()).isEqualTo(201);
        api.create("/api/v1/namespaces/evict/pods", """
                {"metadata":{"name":"pending","labels":{"app":"web"}},
                 "spec":{"containers":[{"name":"c","image":"nginx:1.27"}]}}""");
        api.request(
                "PATCH",
                "/api/v1/namespaces/evict/pods/pending/status",
                "application/merge-patch+json",
                "{\"status\":{\"phase\":\"Pending\"}}");
        assertThat(evict("evict", "pending").code()).isEqualTo(201);
        ApiClient.Reply missing = evict("evict", "nope");
        assertThat(missing.code()).isEqualTo(404);
        assertThat(missing.body().get("message").asString()).isEqualTo("pods \"nope\" not found");
        ApiClient.Reply mismatch = api.post(
                "/api/v1/namespaces/evict/pods/web-2/eviction",
                "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\",\"metadata\":{\"name\":\"other\"}}");
        assertThat(mismatch.code()).isEqualTo(400);
        assertThat(mismatch.body().get("message").asString())
                .isEqualTo("name in URL does not match name in Eviction object");
        assertThat(api.get("/api/v1/namespaces/evict/pods/web-2/eviction").code())
                .isEqualTo(405);

        // Once the budget allows it (maxUnavailable 1 over the one remaining ready pod), the eviction goes through.
        api.request(
                "PATCH",
                "/apis/policy/v1/namespaces/evict/poddisruptionbudgets/web",
                "application/merge-patch+json",
                "{\"spec\":{\"minAvailable\":null,\"maxUnavailable\":1}}");
        assertThat(evict("evict", "web-2").code()).isEqualTo(201);
    }
}
