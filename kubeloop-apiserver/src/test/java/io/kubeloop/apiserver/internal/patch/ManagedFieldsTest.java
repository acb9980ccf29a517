package io.kubeloop.apiserver.internal.patch;

import static io.kubeloop.apiserver.internal.patch.Trees.json;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

class ManagedFieldsTest {

    static final PatchSchema DEPLOYMENT = PatchSchema.forKind("apps", "v1", "Deployment");
    static final Instant T1 = Instant.parse("2026-01-02T03:04:05.678Z");
    static final Instant T2 = Instant.parse("2026-01-02T04:00:00Z");
    static final Instant T3 = Instant.parse("2026-01-02T05:00:00Z");

    static final String MANIFEST = """
            {"apiVersion":"apps/v1","kind":"Deployment",
             "metadata":{"name":"nginx","namespace":"default","uid":"u1","resourceVersion":"5","generation":1,
               "creationTimestamp":"2026-01-01T00:00:00Z","labels":{"app":"nginx"}},
             "spec":{"replicas":2,"selector":{"matchLabels":{"app":"nginx"}},
               "template":{"metadata":{"labels":{"app":"nginx"}},
                 "spec":{"containers":[{"name":"nginx","image":"nginx:1.27","ports":[{"containerPort":80}]}]}}}}""";

    static final String CREATED_FIELDS = "{\"f:metadata\":{\"f:labels\":{\".\":{},\"f:app\":{}}},"
            + "\"f:spec\":{\"f:replicas\":{},\"f:selector\":{},"
            + "\"f:template\":{\"f:metadata\":{\"f:labels\":{\".\":{},\"f:app\":{}}},"
            + "\"f:spec\":{\"f:containers\":{\".\":{},\"k:{\\\"name\\\":\\\"nginx\\\"}\":{\".\":{},\"f:image\":{},"
            + "\"f:name\":{},\"f:ports\":{\".\":{},\"k:{\\\"containerPort\\\":80,\\\"protocol\\\":\\\"TCP\\\"}\":"
            + "{\".\":{},\"f:containerPort\":{}}}}}}}}}";

    private static ObjectNode created() {
        ObjectNode object = (ObjectNode) json(MANIFEST);
        ManagedFields.recordUpdate(null, object, "kubectl-create", "apps/v1", "", DEPLOYMENT, T1);
        return object;
    }

    private static ObjectNode update(JsonNode live, String change, String manager, String subresource, Instant now) {
        ObjectNode next = (ObjectNode) live.deepCopy();
        JsonMergePatchApply.into(next, json(change));
        ManagedFields.recordUpdate(live, next, manager, "apps/v1", subresource, DEPLOYMENT, now);
        return next;
    }

    /** Merge patch helper that keeps the result an ObjectNode. */
    private static final class JsonMergePatchApply {
        static void into(ObjectNode target, JsonNode patch) {
            ObjectNode merged = (ObjectNode) JsonMergePatch.apply(target, patch);
            target.removeAll();
            target.setAll(merged);
        }
    }

    private static JsonNode entry(JsonNode object, String manager) {
        for (JsonNode e : object.at("/metadata/managedFields").values()) {
            if (e.get("manager").stringValue().equals(manager)) {
                return e;
            }
        }
        return null;
    }

    @Test
    void createOwnsEverythingTheClientSetButServerOwnedMetadata() {
        ObjectNode object = created();
        JsonNode managed = object.at("/metadata/managedFields");
        assertThat(managed.size()).isEqualTo(1);
        assertThat(managed.get(0).toString())
                .isEqualTo("{\"manager\":\"kubectl-create\",\"operation\":\"Update\","
                        + "\"apiVersion\":\"apps/v1\",\"time\":\"2026-01-02T03:04:05Z\",\"fieldsType\":\"FieldsV1\","
                        + "\"fieldsV1\":" + CREATED_FIELDS + "}");
    }

    @Test
    void createWithStatusOwnsTheStatus() {
        ObjectNode object = (ObjectNode) json("{apiVersion:'v1',kind:'ConfigMap',metadata:{name:'c'},data:{a:'1'}}");
        ManagedFields.recordUpdate(null, object, "me", "v1", "", PatchSchema.forKind("", "v1", "ConfigMap"), T1);
        assertThat(object.at("/metadata/managedFields/0/fieldsV1").toString())
                .isEqualTo("{\"f:data\":{\".\":{},\"f:a\":{}}}");

        ObjectNode pod = (ObjectNode) json("{apiVersion:'v1',kind:'Pod',metadata:{name:'p'},"
                + "spec:{containers:[{name:'a',image:'x'}]},status:{phase:'Pending'}}");
        ManagedFields.recordUpdate(null, pod, "me", "v1", "", PatchSchema.forKind("", "v1", "Pod"), T1);
        assertThat(pod.at("/metadata/managedFields/0/fieldsV1/f:status").toString())
                .isEqualTo("{\"f:phase\":{}}");
    }

    @Test
    void updateBySameManagerMergesIntoItsEntryAndMovesTheTime() {
        ObjectNode next = update(created(), "{spec:{replicas:3,paused:true}}", "kubectl-create", "", T2);
        JsonNode managed = next.at("/metadata/managedFields");
        assertThat(managed.size()).isEqualTo(1);
        assertThat(managed.get(0).get("time").stringValue()).isEqualTo("2026-01-02T04:00:00Z");
        assertThat(managed.get(0).get("fieldsV1").toString())
                .isEqualTo(CREATED_FIELDS.replace("\"f:replicas\":{}", "\"f:paused\":{},\"f:replicas\":{}"));
    }

    @Test
    void updateByAnotherManagerTakesTheChangedFields() {
        ObjectNode next =
                update(created(), "{spec:{replicas:3},metadata:{labels:{tier:'web'}}}", "kubectl-edit", "", T2);
        JsonNode managed = next.at("/metadata/managedFields");
        assertThat(managed.size()).isEqualTo(2);
        assertThat(managed.get(0).get("manager").stringValue())
                .as("sorted by time")
                .isEqualTo("kubectl-create");
        assertThat(managed.get(0).get("time").stringValue()).isEqualTo("2026-01-02T03:04:05Z");
        assertThat(managed.get(0).get("fieldsV1").toString())
                .isEqualTo(CREATED_FIELDS.replace("\"f:replicas\":{},", ""));
        assertThat(managed.get(1).toString())
                .isEqualTo(
                        "{\"manager\":\"kubectl-edit\",\"operation\":\"Update\","
                                + "\"apiVersion\":\"apps/v1\",\"time\":\"2026-01-02T04:00:00Z\",\"fieldsType\":\"FieldsV1\","
                                + "\"fieldsV1\":{\"f:metadata\":{\"f:labels\":{\"f:tier\":{}}},\"f:spec\":{\"f:replicas\":{}}}}");

        // The first manager takes replicas back; the second keeps only its label.
        ObjectNode back = update(next, "{spec:{replicas:2}}", "kubectl-create", "", T3);
        assertThat(entry(back, "kubectl-edit").get("fieldsV1").toString())
                .isEqualTo("{\"f:metadata\":{\"f:labels\":{\"f:tier\":{}}}}");
        assertThat(entry(back, "kubectl-create").get("fieldsV1").toString()).isEqualTo(CREATED_FIELDS);
    }

    @Test
    void anEntryLeftEmptyIsRemoved() {
        ObjectNode next = update(created(), "{spec:{replicas:3}}", "hpa", "", T2);
        ObjectNode again = update(next, "{spec:{replicas:4}}", "kubectl-edit", "", T3);
        assertThat(entry(again, "hpa")).isNull();
        assertThat(entry(again, "kubectl-edit").get("fieldsV1").toString())
                .isEqualTo("{\"f:spec\":{\"f:replicas\":{}}}");
    }

    @Test
    void removedFieldsLeaveEverySetAndGiveTheRemoverNothing() {
        ObjectNode next =
                update(created(), "{metadata:{labels:{app:null}},spec:{replicas:null}}", "kubectl-label", "", T2);
        assertThat(entry(next, "kubectl-label")).as("a removal gains nothing").isNull();
        // The emptied labels map is still there (the store keeps "labels":{}), and so is its owner.
        assertThat(next.at("/metadata/labels").toString()).isEqualTo("{}");
        assertThat(next.at("/metadata/managedFields/0/fieldsV1").toString())
                .isEqualTo(CREATED_FIELDS
                        .replaceFirst("\\{\"\\.\":\\{},\"f:app\":\\{}}", "{}")
                        .replace("\"f:replicas\":{},", ""));
        assertThat(next.at("/metadata/managedFields/0/time").stringValue()).isEqualTo("2026-01-02T03:04:05Z");
    }

    @Test
    void statusSubresourceWritesGetTheirOwnEntry() {
        ObjectNode live = created();
        ObjectNode next = update(
                live,
                "{status:{replicas:2,conditions:[{type:'Available',status:'True'}]}}",
                "kube-controller-manager",
                "status",
                T2);
        JsonNode e = entry(next, "kube-controller-manager");
        assertThat(e.get("subresource").stringValue()).isEqualTo("status");
        assertThat(e.get("fieldsV1").toString())
                .isEqualTo(
                        "{\"f:status\":{\"f:conditions\":{\".\":{},"
                                + "\"k:{\\\"type\\\":\\\"Available\\\"}\":{\".\":{},\"f:status\":{},\"f:type\":{}}},\"f:replicas\":{}}}");
        // The same manager on the main resource is a different entry.
        ObjectNode main = update(next, "{spec:{paused:true}}", "kube-controller-manager", "", T3);
        assertThat(main.at("/metadata/managedFields").size()).isEqualTo(3);
        assertThat(main.at("/metadata/managedFields/2/subresource").isMissingNode())
                .isTrue();
    }

    @Test
    void anApplyEntrySurvivesAnUpdateShrunkByWhatTheUpdateChanged() {
        JsonNode applied = ServerSideApply.apply(
                null,
                json(MANIFEST.replace("\"uid\":\"u1\",", "")
                        .replace("\"resourceVersion\":\"5\",\"generation\":1,", "")
                        .replace("\"creationTimestamp\":\"2026-01-01T00:00:00Z\",", "")),
                "kubectl",
                DEPLOYMENT,
                T1);
        String applyFields = applied.at("/metadata/managedFields/0/fieldsV1").toString();
        assertThat(applyFields).contains("\"f:replicas\":{}");
        ObjectNode next = update(applied, "{spec:{replicas:5}}", "kubectl-scale", "scale", T2);
        JsonNode managed = next.at("/metadata/managedFields");
        assertThat(managed.size()).isEqualTo(2);
        assertThat(managed.get(0).get("operation").stringValue()).isEqualTo("Apply");
        assertThat(managed.get(0).get("fieldsV1").toString()).isEqualTo(applyFields.replace("\"f:replicas\":{},", ""));
        assertThat(managed.get(1).get("manager").stringValue()).isEqualTo("kubectl-scale");
        assertThat(managed.get(1).get("subresource").stringValue()).isEqualTo("scale");
        assertThat(managed.get(1).get("fieldsV1").toString()).isEqualTo("{\"f:spec\":{\"f:replicas\":{}}}");
        // A later apply still finds its own entry.
        JsonNode reapplied = ServerSideApply.apply(
                next,
                json("{apiVersion:'apps/v1',kind:'Deployment'," + "metadata:{name:'nginx'},spec:{replicas:2}}"),
                "kubectl",
                DEPLOYMENT,
                T3);
        assertThat(reapplied.at("/metadata/managedFields").size()).isEqualTo(2);
    }

    @Test
    void aWriteThatChangesNothingKeepsManagedFieldsAsTheyAre() {
        ObjectNode live = created();
        ObjectNode next = live.deepCopy();
        ((ObjectNode) next.get("metadata")).remove("managedFields"); // a client that does not send them
        ManagedFields.recordUpdate(live, next, "other", "apps/v1", "", DEPLOYMENT, T3);
        assertThat(next).isEqualTo(live);

        ObjectNode sentBack = live.deepCopy();
        ManagedFields.recordUpdate(live, sentBack, "other", "apps/v1", "", DEPLOYMENT, T3);
        assertThat(sentBack).isEqualTo(live);

        ObjectNode status = live.deepCopy();
        ManagedFields.recordUpdate(live, status, "other", "apps/v1", "status", DEPLOYMENT, T3);
        assertThat(status).isEqualTo(live);
    }

    @Test
    void clientsCanResetManagedFieldsWithOneEmptyEntry() {
        ObjectNode live = created();
        ObjectNode next = live.deepCopy();
        ((ObjectNode) next.get("metadata")).set("managedFields", json("[{}]"));
        ManagedFields.recordUpdate(live, next, "other", "apps/v1", "", DEPLOYMENT, T3);
        assertThat(next.at("/metadata/managedFields").isMissingNode()).isTrue();
    }

    @Test
    void duplicateKeysDropManagedFieldsAsKubeApiserverDoes() {
        ObjectNode live = created();
        ObjectNode next = update(
                live, "{spec:{template:{spec:{containers:[{name:'a',image:'x'},{name:'a',image:'y'}]}}}}", "m", "", T2);
        assertThat(next.at("/metadata/managedFields").isMissingNode()).isTrue();
    }

    @Test
    void managerComesFromTheParameterOrTheUserAgent() {
        assertThat(ManagedFields.managerOf("me", "kubectl/v1.32.4 (linux/amd64) kubernetes/abc"))
                .isEqualTo("me");
        assertThat(ManagedFields.managerOf(null, "kubectl/v1.32.4 (linux/amd64) kubernetes/abc"))
                .isEqualTo("kubectl");
        assertThat(ManagedFields.managerOf("", "Java-http-client/21.0.5")).isEqualTo("Java-http-client");
        assertThat(ManagedFields.managerOf(null, "a\tb")).isEqualTo("ab");
        assertThat(ManagedFields.managerOf(null, null)).isEmpty();
        assertThat(ManagedFields.managerOf(null, "x".repeat(200))).hasSize(128);
        assertThat(ManagedFields.validateManager("x".repeat(128))).isNull();
        assertThat(ManagedFields.validateManager("x".repeat(129)))
                .isEqualTo("Too long: may not be more than 128 bytes");
        assertThat(ManagedFields.validateManager("a\u0007")).startsWith("Invalid value: ");
    }
}
