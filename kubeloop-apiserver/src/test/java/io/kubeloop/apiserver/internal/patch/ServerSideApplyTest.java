package io.kubeloop.apiserver.internal.patch;

import static io.kubeloop.apiserver.internal.patch.Trees.assertTree;
import static io.kubeloop.apiserver.internal.patch.Trees.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class ServerSideApplyTest {

    static final PatchSchema DEPLOYMENT = PatchSchema.forKind("apps", "v1", "Deployment");
    static final Instant T1 = Instant.parse("2026-01-02T03:04:05.678Z");
    static final Instant T2 = Instant.parse("2026-01-02T04:00:00Z");

    static final String MANIFEST = """
            {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"nginx","namespace":"default","labels":{"app":"nginx"}},
             "spec":{"replicas":2,"selector":{"matchLabels":{"app":"nginx"}},
               "template":{"metadata":{"labels":{"app":"nginx"}},
                 "spec":{"containers":[{"name":"nginx","image":"nginx:1.27","ports":[{"containerPort":80}]}]}}}}""";

    @Test
    void createRecordsTheAppliedFieldsInFieldsV1() {
        JsonNode result = ServerSideApply.apply(null, json(MANIFEST), "kubectl", DEPLOYMENT, T1);
        JsonNode managed = result.at("/metadata/managedFields");
        assertThat(managed.size()).isEqualTo(1);
        JsonNode entry = managed.get(0);
        assertThat(entry.get("manager").stringValue()).isEqualTo("kubectl");
        assertThat(entry.get("operation").stringValue()).isEqualTo("Apply");
        assertThat(entry.get("apiVersion").stringValue()).isEqualTo("apps/v1");
        assertThat(entry.get("time").stringValue()).isEqualTo("2026-01-02T03:04:05Z");
        assertThat(entry.get("fieldsType").stringValue()).isEqualTo("FieldsV1");
        // What kube-apiserver records for this manifest, keys in its order.
        assertThat(entry.get("fieldsV1").toString())
                .isEqualTo(
                        "{\"f:metadata\":{\"f:labels\":{\"f:app\":{}}},"
                                + "\"f:spec\":{\"f:replicas\":{},\"f:selector\":{},"
                                + "\"f:template\":{\"f:metadata\":{\"f:labels\":{\"f:app\":{}}},"
                                + "\"f:spec\":{\"f:containers\":{\"k:{\\\"name\\\":\\\"nginx\\\"}\":{\".\":{},\"f:image\":{},\"f:name\":{},"
                                + "\"f:ports\":{\"k:{\\\"containerPort\\\":80,\\\"protocol\\\":\\\"TCP\\\"}\":{\".\":{},\"f:containerPort\":{}}}}}}}}}");
        ((tools.jackson.databind.node.ObjectNode) result.get("metadata")).remove("managedFields");
        assertTree(result, MANIFEST);
    }

    @Test
    void applyMergesIntoTheLiveObjectAndKeepsOtherManagers() {
        JsonNode live = json("""
                {"apiVersion":"apps/v1","kind":"Deployment",
                 "metadata":{"name":"nginx","namespace":"default","uid":"u","resourceVersion":"7","labels":{"app":"nginx","team":"a"},
                   "managedFields":[{"manager":"kubectl-label","operation":"Update","apiVersion":"v1","time":"2026-01-01T00:00:00Z",
                     "fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{"f:team":{}}}}}]},
                 "spec":{"replicas":2,"selector":{"matchLabels":{"app":"nginx"}},"strategy":{"type":"RollingUpdate"},
                   "template":{"metadata":{"labels":{"app":"nginx"}},
                     "spec":{"containers":[{"name":"nginx","image":"nginx:1.27","imagePullPolicy":"IfNotPresent",
                       "ports":[{"containerPort":80,"protocol":"TCP"}]}]}}},
                 "status":{"replicas":2}}""");
        JsonNode applied = json("""
                {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"nginx","namespace":"default"},
                 "spec":{"replicas":3,"template":{"spec":{"containers":[
                   {"name":"nginx","image":"nginx:1.28","env":[{"name":"MODE","value":"prod"}],"ports":[{"containerPort":80}]},
                   {"name":"log","image":"busybox"}]}}}}""");
        JsonNode result = ServerSideApply.apply(live, applied, "deployer", DEPLOYMENT, T2);
        assertThat(result.at("/spec/replicas").intValue()).isEqualTo(3);
        assertTree(result.at("/metadata/labels"), "{app:'nginx',team:'a'}");
        assertTree(result.at("/spec/template/spec/containers"), """
                [{"name":"nginx","image":"nginx:1.28","imagePullPolicy":"IfNotPresent","ports":[{"containerPort":80,"protocol":"TCP"}],
                  "env":[{"name":"MODE","value":"prod"}]},
                 {"name":"log","image":"busybox"}]""");
        assertTree(result.at("/status"), "{replicas:2}");
        JsonNode managed = result.at("/metadata/managedFields");
        assertThat(managed.size()).isEqualTo(2);
        assertThat(managed.get(0).get("manager").stringValue()).isEqualTo("deployer");
        assertThat(managed.get(0).get("operation").stringValue()).isEqualTo("Apply");
        assertThat(managed.get(1).get("manager").stringValue()).isEqualTo("kubectl-label");
        assertThat(live.at("/spec/replicas").intValue()).as("input unchanged").isEqualTo(2);
    }

    @Test
    void fieldsDroppedFromTheConfigurationAreRemovedUnlessSomeoneElseOwnsThem() {
        JsonNode first = json("""
                {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"nginx","labels":{"app":"nginx","tier":"web"}},
                 "spec":{"replicas":2,"template":{"spec":{"containers":[{"name":"nginx","image":"nginx"},{"name":"log","image":"busybox"}]}}}}""");
        JsonNode created = ServerSideApply.apply(null, first, "kubectl", DEPLOYMENT, T1);
        // Another manager also sets the "team" label and the replica count.
        JsonNode shared = JsonMergePatch.apply(created, json("""
                {"metadata":{"labels":{"team":"a"},"managedFields":[%s,
                  {"manager":"hpa","operation":"Update","apiVersion":"apps/v1","time":"2026-01-02T03:30:00Z","fieldsType":"FieldsV1",
                   "fieldsV1":{"f:metadata":{"f:labels":{"f:team":{}}},"f:spec":{"f:replicas":{}}}}]}}""".formatted(
                        created.at("/metadata/managedFields/0").toString())));
        JsonNode second = json("""
                {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"nginx","labels":{"app":"nginx"}},
                 "spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx"}]}}}}""");
        JsonNode result = ServerSideApply.apply(shared, second, "kubectl", DEPLOYMENT, T2);
        assertTree(result.at("/metadata/labels"), "{app:'nginx',team:'a'}");
        assertThat(result.at("/spec/replicas").intValue())
                .as("still owned by hpa")
                .isEqualTo(2);
        assertTree(result.at("/spec/template/spec/containers"), "[{name:'nginx',image:'nginx'}]");
        JsonNode managed = result.at("/metadata/managedFields");
        assertThat(managed.size()).isEqualTo(2);
        assertThat(managed.get(0).get("fieldsV1").toString())
                .doesNotContain("tier")
                .doesNotContain("log")
                .doesNotContain("replicas");
        assertThat(managed.get(0).get("time").stringValue()).isEqualTo("2026-01-02T04:00:00Z");
    }

    @Test
    void setsAndKeyDefaults() {
        PatchSchema pod = PatchSchema.forKind("", "v1", "Pod");
        JsonNode live = json("""
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","finalizers":["b"]},
                 "spec":{"containers":[{"name":"c","ports":[{"containerPort":80,"protocol":"TCP","name":"http"}]}]}}""");
        JsonNode applied = json("""
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","finalizers":["a"]},
                 "spec":{"containers":[{"name":"c","ports":[{"containerPort":80,"hostPort":8080}]}],"tolerations":[{"key":"k"}]}}""");
        JsonNode result = ServerSideApply.apply(live, applied, "m", pod, T1);
        assertTree(result.at("/metadata/finalizers"), "['b','a']");
        assertTree(
                result.at("/spec/containers/0/ports"), "[{containerPort:80,protocol:'TCP',name:'http',hostPort:8080}]");
        assertTree(result.at("/metadata/managedFields/0/fieldsV1"), """
                {"f:metadata":{"f:finalizers":{"v:\\"a\\"":{}}},
                 "f:spec":{"f:containers":{"k:{\\"name\\":\\"c\\"}":{".":{},"f:name":{},
                   "f:ports":{"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{},"f:hostPort":{}}}}},
                   "f:tolerations":{}}}""");
    }

    @Test
    void customResourcesUseADeducedSchema() {
        JsonNode applied = json("""
                {"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","labels":{"a":"b"}},
                 "spec":{"size":3,"tags":["x"],"nested":{"k":1}}}""");
        JsonNode result = ServerSideApply.apply(null, applied, "op", PatchSchema.none(), T1);
        assertTree(result.at("/metadata/managedFields/0/fieldsV1"), """
                {"f:metadata":{"f:labels":{".":{},"f:a":{}}},
                 "f:spec":{".":{},"f:nested":{".":{},"f:k":{}},"f:size":{},"f:tags":{}}}""");
        JsonNode again = ServerSideApply.apply(result, json("""
                {"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"tags":["y"]}}"""), "op", PatchSchema.none(), T2);
        assertTree(again.get("spec"), "{tags:['y']}");
        assertThat(again.at("/metadata/labels").isMissingNode()).isTrue();
    }

    @Test
    void requestErrors() {
        assertThatThrownBy(() -> ServerSideApply.apply(null, json(MANIFEST), "", DEPLOYMENT, T1))
                .isInstanceOfSatisfying(PatchException.class, e -> {
                    assertThat(e.code()).isEqualTo(422);
                    assertThat(e.getMessage())
                            .isEqualTo(
                                    "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch");
                });
        assertThatThrownBy(() -> ServerSideApply.apply(
                        null, json("{metadata:{name:'x',managedFields:[]}}"), "m", DEPLOYMENT, T1))
                .isInstanceOfSatisfying(
                        PatchException.class, e -> assertThat(e.code()).isEqualTo(400));
        assertThatThrownBy(() -> ServerSideApply.apply(
                        null, json("{spec:{template:{spec:{containers:[{image:'x'}]}}}}"), "m", DEPLOYMENT, T1))
                .isInstanceOfSatisfying(PatchException.class, e -> {
                    assertThat(e.code()).isEqualTo(422);
                    assertThat(e.detail()).contains("omits key field \"name\"");
                });
        assertThatThrownBy(() -> ServerSideApply.apply(
                        null,
                        json("{spec:{template:{spec:{containers:[{name:'x'},{name:'x'}]}}}}"),
                        "m",
                        DEPLOYMENT,
                        T1))
                .isInstanceOfSatisfying(
                        PatchException.class, e -> assertThat(e.detail()).contains("duplicate entries"));
    }

    @Test
    void reapplyingTheSameConfigurationIsStable() {
        JsonNode once = ServerSideApply.apply(null, json(MANIFEST), "kubectl", DEPLOYMENT, T1);
        JsonNode twice = ServerSideApply.apply(once, json(MANIFEST), "kubectl", DEPLOYMENT, T1);
        assertTree(twice, once);
    }
}
