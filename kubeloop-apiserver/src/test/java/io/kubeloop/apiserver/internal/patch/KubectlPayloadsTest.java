package io.kubeloop.apiserver.internal.patch;

import static io.kubeloop.apiserver.internal.patch.Trees.assertTree;
import static io.kubeloop.apiserver.internal.patch.Trees.json;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The patch bodies kubectl 1.32 sends (client-side {@code apply}, {@code patch}, {@code edit}, {@code label},
 * {@code annotate}, {@code scale}), applied to live objects as the embedded server stores them.
 */
class KubectlPayloadsTest {

    static final PatchSchema DEPLOYMENT = PatchSchema.forKind("apps", "v1", "Deployment");
    static final PatchSchema POD = PatchSchema.forKind("", "v1", "Pod");

    /** A Deployment as kube-apiserver stores it after a first `kubectl apply`, defaults filled in. */
    static final String LIVE_DEPLOYMENT = """
            {"apiVersion":"apps/v1","kind":"Deployment",
             "metadata":{"name":"web","namespace":"default","uid":"5c1d","resourceVersion":"120","generation":1,
               "labels":{"app":"web"},
               "annotations":{"deployment.kubernetes.io/revision":"1",
                 "kubectl.kubernetes.io/last-applied-configuration":"{...old...}\\n"}},
             "spec":{"replicas":2,"revisionHistoryLimit":10,"progressDeadlineSeconds":600,
               "selector":{"matchLabels":{"app":"web"}},
               "strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%","maxUnavailable":"25%"}},
               "template":{"metadata":{"labels":{"app":"web"}},
                 "spec":{"restartPolicy":"Always","dnsPolicy":"ClusterFirst","terminationGracePeriodSeconds":30,
                   "containers":[
                     {"name":"web","image":"nginx:1.27","imagePullPolicy":"IfNotPresent",
                      "ports":[{"containerPort":80,"protocol":"TCP"}],
                      "terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File",
                      "volumeMounts":[{"name":"data","mountPath":"/data"}]},
                     {"name":"sidecar","image":"busybox:1.36","command":["sleep","infinity"]}],
                   "volumes":[{"name":"data","emptyDir":{}}]}}},
             "status":{"replicas":2,"observedGeneration":1,
               "conditions":[{"type":"Available","status":"True"},{"type":"Progressing","status":"True"}]}}""";

    @Test
    void clientSideApplyOfAChangedDeployment() {
        // The manifest changed: new label, 3 replicas, new image, an env var, the sidecar removed.
        // This is CreateThreeWayMergePatch(last-applied, manifest, live) as kubectl 1.32 sends it.
        JsonNode patch = json("""
                {"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{...new...}\\n"},
                             "labels":{"tier":"frontend"}},
                 "spec":{"replicas":3,
                   "template":{"spec":{"$setElementOrder/containers":[{"name":"web"}],
                     "containers":[{"env":[{"name":"MODE","value":"prod"}],"image":"nginx:1.28","name":"web"},
                                   {"$patch":"delete","name":"sidecar"}]}}}}""");
        JsonNode live = json(LIVE_DEPLOYMENT);
        JsonNode result = StrategicMergePatch.apply(live, patch, DEPLOYMENT);

        assertTree(result.at("/metadata/labels"), "{app:'web',tier:'frontend'}");
        assertThat(result.at("/metadata/annotations/kubectl.kubernetes.io~1last-applied-configuration")
                        .stringValue())
                .isEqualTo("{...new...}\n");
        assertThat(result.at("/metadata/annotations/deployment.kubernetes.io~1revision")
                        .stringValue())
                .isEqualTo("1");
        assertThat(result.at("/spec/replicas").intValue()).isEqualTo(3);
        assertTree(result.at("/spec/template/spec/containers"), """
                [{"name":"web","image":"nginx:1.28","imagePullPolicy":"IfNotPresent",
                  "ports":[{"containerPort":80,"protocol":"TCP"}],
                  "terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File",
                  "volumeMounts":[{"name":"data","mountPath":"/data"}],
                  "env":[{"name":"MODE","value":"prod"}]}]""");
        assertTree(result.at("/spec/strategy"), live.at("/spec/strategy"));
        assertTree(result.at("/status"), live.at("/status"));
        assertThat(result.toString()).doesNotContain("$setElementOrder").doesNotContain("$patch");
        assertTree(live, LIVE_DEPLOYMENT);
    }

    @Test
    void clientSideApplyOfAPodFromTheReferenceTrace() {
        JsonNode live = json("""
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"x","namespace":"default","labels":{"app":"demo"},
                  "annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{...}\\n"}},
                 "spec":{"containers":[{"name":"main","image":"nginx:1.25","imagePullPolicy":"IfNotPresent"}],
                   "restartPolicy":"Always"}}""");
        JsonNode patch = json("""
                {"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{...new...}\\n"},"labels":{"tier":"web"}},
                 "spec":{"$setElementOrder/containers":[{"name":"main"}],"containers":[{"image":"nginx:1.27","name":"main"}]}}""");
        JsonNode result = StrategicMergePatch.apply(live, patch, POD);
        assertTree(result.at("/metadata/labels"), "{app:'demo',tier:'web'}");
        assertTree(result.at("/spec/containers"), "[{name:'main',image:'nginx:1.27',imagePullPolicy:'IfNotPresent'}]");
    }

    @Test
    void applyReplacingAContainerNextToAnInjectedSidecar() {
        // The live pod template has a sidecar nobody applied (e.g. injected by a webhook). The manifest renames
        // "old" to "new". Upstream orders the result by the live list as merging left it in place ("old"
        // deleted, "new" written into the freed slot), so the sidecar stays first.
        JsonNode live = json("""
                {spec:{template:{spec:{containers:[{name:'old',image:'a'},{name:'istio-proxy',image:'proxy'}]}}}}""");
        JsonNode patch = json("""
                {"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"new"}],
                  "containers":[{"image":"b","name":"new"},{"$patch":"delete","name":"old"}]}}}}""");
        assertTree(
                StrategicMergePatch.apply(live, patch, DEPLOYMENT).at("/spec/template/spec/containers"),
                "[{name:'istio-proxy',image:'proxy'},{name:'new',image:'b'}]");
    }

    @Test
    void kubectlEditChangesTheImage() {
        JsonNode patch = json("""
                {"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"web"},{"name":"sidecar"}],
                  "containers":[{"image":"nginx:1.29","name":"web"}]}}}}""");
        JsonNode result = StrategicMergePatch.apply(json(LIVE_DEPLOYMENT), patch, DEPLOYMENT);
        assertThat(result.at("/spec/template/spec/containers/0/image").stringValue())
                .isEqualTo("nginx:1.29");
        assertThat(result.at("/spec/template/spec/containers/0/ports/0/containerPort")
                        .intValue())
                .isEqualTo(80);
        assertThat(result.at("/spec/template/spec/containers/1/name").stringValue())
                .isEqualTo("sidecar");
    }

    @Test
    void setElementOrderReordersContainers() {
        JsonNode patch =
                json("{spec:{template:{spec:{'$setElementOrder/containers':[{name:'sidecar'},{name:'web'}]}}}}");
        JsonNode result = StrategicMergePatch.apply(json(LIVE_DEPLOYMENT), patch, DEPLOYMENT);
        assertThat(result.at("/spec/template/spec/containers/0/name").stringValue())
                .isEqualTo("sidecar");
        assertThat(result.at("/spec/template/spec/containers/1/name").stringValue())
                .isEqualTo("web");
    }

    @Test
    void kubectlPatchAddsAContainerPortEnvAndMountByTheirKeys() {
        JsonNode patch = json("""
                {"spec":{"template":{"spec":{"containers":[{"name":"web",
                  "ports":[{"containerPort":443}],
                  "env":[{"name":"A","value":"1"}],
                  "volumeMounts":[{"name":"data","mountPath":"/data","readOnly":true},{"name":"cache","mountPath":"/cache"}]}]}}}}""");
        JsonNode web = StrategicMergePatch.apply(json(LIVE_DEPLOYMENT), patch, DEPLOYMENT)
                .at("/spec/template/spec/containers/0");
        assertTree(web.get("ports"), "[{containerPort:443},{containerPort:80,protocol:'TCP'}]");
        assertTree(web.get("env"), "[{name:'A',value:'1'}]");
        assertTree(
                web.get("volumeMounts"),
                "[{name:'data',mountPath:'/data',readOnly:true},{name:'cache',mountPath:'/cache'}]");
        assertThat(web.get("image").stringValue()).isEqualTo("nginx:1.27");
    }

    @Test
    void volumesMergeByNameAndHonourRetainKeys() {
        // kubectl apply switching the "data" volume from emptyDir to a configMap sends $retainKeys (Volume is
        // patchStrategy "merge,retainKeys").
        JsonNode patch = json("""
                {"spec":{"template":{"spec":{"$setElementOrder/volumes":[{"name":"data"}],
                  "volumes":[{"$retainKeys":["configMap","name"],"configMap":{"name":"cfg"},"name":"data"}]}}}}""");
        JsonNode result = StrategicMergePatch.apply(json(LIVE_DEPLOYMENT), patch, DEPLOYMENT);
        assertTree(result.at("/spec/template/spec/volumes"), "[{name:'data',configMap:{name:'cfg'}}]");
    }

    @Test
    void deploymentStrategyHonoursRetainKeys() {
        JsonNode patch = json("{\"spec\":{\"strategy\":{\"$retainKeys\":[\"type\"],\"type\":\"Recreate\"}}}");
        JsonNode result = StrategicMergePatch.apply(json(LIVE_DEPLOYMENT), patch, DEPLOYMENT);
        assertTree(result.at("/spec/strategy"), "{type:'Recreate'}");
    }

    @Test
    void ownerReferencesMergeByUid() {
        JsonNode live = json(
                "{metadata:{name:'p',ownerReferences:[{apiVersion:'apps/v1',kind:'ReplicaSet',name:'rs1',uid:'u1',controller:true}]}}");
        JsonNode added = StrategicMergePatch.apply(
                live,
                json("{metadata:{ownerReferences:[{apiVersion:'v1',kind:'ConfigMap',name:'cm',uid:'u2'}]}}"),
                POD);
        assertThat(added.at("/metadata/ownerReferences").size()).isEqualTo(2);
        JsonNode changed = StrategicMergePatch.apply(
                added, json("{metadata:{ownerReferences:[{uid:'u1',blockOwnerDeletion:true}]}}"), POD);
        assertTree(changed.at("/metadata/ownerReferences"), """
                [{apiVersion:'v1',kind:'ConfigMap',name:'cm',uid:'u2'},
                 {apiVersion:'apps/v1',kind:'ReplicaSet',name:'rs1',uid:'u1',controller:true,blockOwnerDeletion:true}]""");
        JsonNode removed = StrategicMergePatch.apply(
                changed, json("{metadata:{ownerReferences:[{uid:'u2','$patch':'delete'}]}}"), POD);
        assertThat(removed.at("/metadata/ownerReferences").size()).isEqualTo(1);
        assertThat(removed.at("/metadata/ownerReferences/0/uid").stringValue()).isEqualTo("u1");
    }

    @Test
    void finalizersAreASet() {
        JsonNode live = json("{metadata:{name:'p',finalizers:['a','b']}}");
        assertTree(
                StrategicMergePatch.apply(live, json("{metadata:{finalizers:['b','c']}}"), POD)
                        .at("/metadata/finalizers"),
                "['a','b','c']");
        assertTree(
                StrategicMergePatch.apply(live, json("{metadata:{'$deleteFromPrimitiveList/finalizers':['a']}}"), POD)
                        .at("/metadata/finalizers"),
                "['b']");
        assertTree(
                StrategicMergePatch.apply(live, json("{metadata:{'$setElementOrder/finalizers':['b','a']}}"), POD)
                        .at("/metadata/finalizers"),
                "['b','a']");
        assertTree(StrategicMergePatch.apply(live, json("{metadata:{finalizers:null}}"), POD), "{metadata:{name:'p'}}");
    }

    @Test
    void atomicListsAreReplaced() {
        JsonNode pod = json("""
                {spec:{tolerations:[{key:'a',operator:'Exists'}],
                  containers:[{name:'c',envFrom:[{configMapRef:{name:'x'}}],command:['a','b']}]},
                 status:{containerStatuses:[{name:'c',ready:true}],conditions:[{type:'Ready',status:'False'}]}}""");
        JsonNode result = StrategicMergePatch.apply(pod, json("""
                {spec:{tolerations:[{key:'b',operator:'Exists'}],containers:[{name:'c',envFrom:[{secretRef:{name:'y'}}],command:['z']}]},
                 status:{containerStatuses:[{name:'c',ready:false}],conditions:[{type:'Ready',status:'True'},{type:'PodScheduled',status:'True'}]}}"""), POD);
        assertTree(result.at("/spec/tolerations"), "[{key:'b',operator:'Exists'}]");
        assertTree(result.at("/spec/containers/0/envFrom"), "[{secretRef:{name:'y'}}]");
        assertTree(result.at("/spec/containers/0/command"), "['z']");
        assertTree(result.at("/status/containerStatuses"), "[{name:'c',ready:false}]");
        assertTree(
                result.at("/status/conditions"), "[{type:'Ready',status:'True'},{type:'PodScheduled',status:'True'}]");
    }

    @Test
    void podSpecListsMergeByTheirUpstreamKeys() {
        JsonNode pod = json("""
                {spec:{imagePullSecrets:[{name:'a'}],hostAliases:[{ip:'10.0.0.1',hostnames:['x']}],
                  topologySpreadConstraints:[{topologyKey:'zone',whenUnsatisfiable:'DoNotSchedule',maxSkew:1}],
                  initContainers:[{name:'init',image:'busybox'}],
                  containers:[{name:'c',image:'nginx',volumeDevices:[{name:'d',devicePath:'/dev/xvda'}]}]}}""");
        JsonNode result = StrategicMergePatch.apply(pod, json("""
                {spec:{imagePullSecrets:[{name:'b'}],hostAliases:[{ip:'10.0.0.1',hostnames:['y']}],
                  topologySpreadConstraints:[{topologyKey:'zone',maxSkew:2}],
                  initContainers:[{name:'init',image:'alpine'}],
                  containers:[{name:'c',volumeDevices:[{name:'e',devicePath:'/dev/xvdb'}]}]}}"""), POD);
        assertTree(result.at("/spec/imagePullSecrets"), "[{name:'b'},{name:'a'}]");
        assertTree(result.at("/spec/hostAliases"), "[{ip:'10.0.0.1',hostnames:['y']}]");
        assertTree(
                result.at("/spec/topologySpreadConstraints"),
                "[{topologyKey:'zone',whenUnsatisfiable:'DoNotSchedule',maxSkew:2}]");
        assertTree(result.at("/spec/initContainers"), "[{name:'init',image:'alpine'}]");
        assertTree(
                result.at("/spec/containers/0/volumeDevices"),
                "[{name:'e',devicePath:'/dev/xvdb'},{name:'d',devicePath:'/dev/xvda'}]");
    }

    @Test
    void otherBuiltInKinds() {
        PatchSchema node = PatchSchema.forKind("", "v1", "Node");
        JsonNode n = json("""
                {spec:{taints:[{key:'a',effect:'NoSchedule'}],podCIDRs:['10.0.0.0/24']},
                 status:{conditions:[{type:'Ready',status:'False'},{type:'MemoryPressure',status:'False'}],
                   addresses:[{type:'InternalIP',address:'10.0.0.5'}]}}""");
        JsonNode nr = StrategicMergePatch.apply(n, json("""
                {spec:{taints:[{key:'b',effect:'NoExecute'}]},
                 status:{conditions:[{type:'Ready',status:'True'}],addresses:[{type:'Hostname',address:'n1'}]}}"""), node);
        assertTree(nr.at("/spec/taints"), "[{key:'b',effect:'NoExecute'}]");
        assertTree(
                nr.at("/status/conditions"), "[{type:'Ready',status:'True'},{type:'MemoryPressure',status:'False'}]");
        assertTree(
                nr.at("/status/addresses"), "[{type:'Hostname',address:'n1'},{type:'InternalIP',address:'10.0.0.5'}]");

        PatchSchema service = PatchSchema.forKind("", "v1", "Service");
        JsonNode s = json("{spec:{selector:{app:'a'},ports:[{port:80,targetPort:8080,protocol:'TCP'}]}}");
        JsonNode sr =
                StrategicMergePatch.apply(s, json("{spec:{ports:[{port:80,targetPort:9090},{port:443}]}}"), service);
        assertTree(sr.at("/spec/ports"), "[{port:80,targetPort:9090,protocol:'TCP'},{port:443}]");

        PatchSchema sts = PatchSchema.forKind("apps", "v1", "StatefulSet");
        JsonNode st = json(
                "{spec:{volumeClaimTemplates:[{metadata:{name:'a'}},{metadata:{name:'b'}}],template:{spec:{containers:[{name:'c',image:'x'}]}}}}");
        JsonNode str = StrategicMergePatch.apply(
                st,
                json(
                        "{spec:{volumeClaimTemplates:[{metadata:{name:'c'}}],template:{spec:{containers:[{name:'c',image:'y'}]}}}}"),
                sts);
        assertTree(
                str,
                "{spec:{volumeClaimTemplates:[{metadata:{name:'c'}}],template:{spec:{containers:[{name:'c',image:'y'}]}}}}");

        PatchSchema sa = PatchSchema.forKind("", "v1", "ServiceAccount");
        assertTree(
                StrategicMergePatch.apply(
                        json("{secrets:[{name:'t1'}],imagePullSecrets:[{name:'p1'}]}"),
                        json("{secrets:[{name:'t2'}],imagePullSecrets:[{name:'p2'}]}"),
                        sa),
                "{secrets:[{name:'t2'},{name:'t1'}],imagePullSecrets:[{name:'p2'}]}");

        PatchSchema cm = PatchSchema.forKind("", "v1", "ConfigMap");
        assertTree(
                StrategicMergePatch.apply(json("{data:{a:'1',b:'2'}}"), json("{data:{b:null,c:'3'}}"), cm),
                "{data:{a:'1',c:'3'}}");

        PatchSchema ds = PatchSchema.forKind("apps", "v1", "DaemonSet");
        assertTree(
                StrategicMergePatch.apply(
                        json("{status:{conditions:[{type:'A',status:'x'}]}}"),
                        json("{status:{conditions:[{type:'B',status:'y'}]}}"),
                        ds),
                "{status:{conditions:[{type:'B',status:'y'},{type:'A',status:'x'}]}}");
    }

    @Test
    void everyServedBuiltInKindHasASchema() {
        String[][] kinds = {
            {"", "v1", "Pod"},
            {"", "v1", "Node"},
            {"", "v1", "Service"},
            {"", "v1", "Endpoints"},
            {"", "v1", "ConfigMap"},
            {"", "v1", "Secret"},
            {"", "v1", "ServiceAccount"},
            {"", "v1", "Namespace"},
            {"", "v1", "Event"},
            {"apps", "v1", "Deployment"},
            {"apps", "v1", "ReplicaSet"},
            {"apps", "v1", "StatefulSet"},
            {"apps", "v1", "DaemonSet"},
            {"coordination.k8s.io", "v1", "Lease"},
            {"events.k8s.io", "v1", "Event"},
        };
        for (String[] k : kinds) {
            assertThat(PatchSchema.forKind(k[0], k[1], k[2]).supportsStrategicMergePatch())
                    .as(String.join("/", k))
                    .isTrue();
        }
        assertThat(PatchSchema.forKind(null, "v1", "Pod").supportsStrategicMergePatch())
                .isTrue();
        assertThat(PatchSchema.forKind("apps", "v1beta1", "Deployment").supportsStrategicMergePatch())
                .isFalse();
        assertThat(PatchSchema.none().supportsStrategicMergePatch()).isFalse();
    }

    @Test
    void workloadsCarryThePodTemplateSchema() {
        for (String kind : new String[] {"Deployment", "ReplicaSet", "StatefulSet", "DaemonSet"}) {
            FieldMeta containers = PatchSchema.forKind("apps", "v1", kind)
                    .root()
                    .field("spec")
                    .type()
                    .field("template")
                    .type()
                    .field("spec")
                    .type()
                    .field("containers");
            assertThat(containers.smpMerge()).as(kind).isTrue();
            assertThat(containers.mergeKey()).isEqualTo("name");
            FieldMeta ports = containers.type().field("ports");
            assertThat(ports.mergeKey()).isEqualTo("containerPort");
            assertThat(ports.listMapKeys()).containsExactly("containerPort", "protocol");
        }
    }

    // ---- merge patches kubectl sends -----------------------------------------------------------------------

    @Test
    void kubectlLabelAnnotateAndScale() {
        JsonNode pod = json("{apiVersion:'v1',kind:'Pod',metadata:{name:'x',labels:{app:'demo'}}}");
        JsonNode labelled = JsonMergePatch.apply(pod, json("{\"metadata\":{\"labels\":{\"a\":\"b\"}}}"));
        assertTree(labelled.at("/metadata/labels"), "{app:'demo',a:'b'}");
        assertTree(JsonMergePatch.apply(labelled, json("{\"metadata\":{\"labels\":{\"a\":null}}}")), pod);
        JsonNode annotated = JsonMergePatch.apply(pod, json("{\"metadata\":{\"annotations\":{\"note\":\"hi\"}}}"));
        assertTree(annotated.at("/metadata"), "{name:'x',labels:{app:'demo'},annotations:{note:'hi'}}");
        JsonNode scale = json("""
                {"kind":"Scale","apiVersion":"autoscaling/v1","metadata":{"name":"d","namespace":"default"},
                 "spec":{"replicas":1},"status":{"replicas":1,"selector":"app=d"}}""");
        assertThat(JsonMergePatch.apply(scale, json("{\"spec\":{\"replicas\":3}}"))
                        .at("/spec/replicas")
                        .intValue())
                .isEqualTo(3);
    }
}
