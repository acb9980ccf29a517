package io.kubeloop.model.selector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Which fields kube-apiserver accepts per resource, and their values read from real-looking objects. */
class SelectableFieldsTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static JsonNode json(String text) {
        return JSON.readTree(text.replace('\'', '"'));
    }

    private static final JsonNode POD = json("""
            {'apiVersion':'v1','kind':'Pod',
             'metadata':{'name':'web-0','namespace':'shop','uid':'7c1b','labels':{'app':'web'}},
             'spec':{'nodeName':'node-1','restartPolicy':'Always','schedulerName':'default-scheduler',
                     'serviceAccountName':'web','serviceAccount':'web','hostNetwork':true,
                     'containers':[{'name':'app','image':'nginx'}]},
             'status':{'phase':'Running','podIP':'10.0.0.7','podIPs':[{'ip':'10.0.0.7'},{'ip':'fd00::7'}],
                       'nominatedNodeName':'node-2'}}""");

    private static final JsonNode PENDING_POD = json("""
            {'apiVersion':'v1','kind':'Pod','metadata':{'name':'web-1','namespace':'shop'},
             'spec':{'serviceAccount':'legacy','containers':[{'name':'app','image':'nginx'}]},
             'status':{'phase':'Pending'}}""");

    private static final JsonNode CORE_EVENT = json("""
            {'apiVersion':'v1','kind':'Event',
             'metadata':{'name':'web-0.17a','namespace':'shop'},
             'involvedObject':{'kind':'Pod','namespace':'shop','name':'web-0','uid':'7c1b','apiVersion':'v1',
                               'resourceVersion':'42','fieldPath':'spec.containers{app}'},
             'reason':'Pulled','message':'pulled','source':{'component':'kubelet','host':'node-1'},
             'type':'Normal','reportingComponent':'kubelet','reportingInstance':'node-1'}""");

    private static final JsonNode CORE_EVENT_WITHOUT_SOURCE = json("""
            {'apiVersion':'v1','kind':'Event','metadata':{'name':'e','namespace':'shop'},
             'involvedObject':{'kind':'Deployment','name':'web'},'reason':'ScalingReplicaSet',
             'type':'Normal','reportingComponent':'deployment-controller'}""");

    private static final JsonNode EVENTS_V1_EVENT = json("""
            {'apiVersion':'events.k8s.io/v1','kind':'Event',
             'metadata':{'name':'web-0.17a','namespace':'shop'},
             'regarding':{'kind':'Pod','namespace':'shop','name':'web-0','uid':'7c1b','apiVersion':'v1',
                          'resourceVersion':'42','fieldPath':'spec.containers{app}'},
             'reason':'Pulled','note':'pulled','type':'Normal','action':'Pull',
             'reportingController':'kubelet','reportingInstance':'node-1',
             'deprecatedSource':{'component':'kubelet-old'}}""");

    private static final JsonNode NODE = json("""
            {'apiVersion':'v1','kind':'Node','metadata':{'name':'node-1','labels':{'kubernetes.io/os':'linux'}},
             'spec':{'unschedulable':true,'podCIDR':'10.0.0.0/24'}}""");

    private static final JsonNode SCHEDULABLE_NODE = json("""
            {'apiVersion':'v1','kind':'Node','metadata':{'name':'node-2'},'spec':{}}""");

    private static final JsonNode SECRET = json("""
            {'apiVersion':'v1','kind':'Secret','metadata':{'name':'tls','namespace':'shop'},
             'type':'kubernetes.io/tls','data':{'tls.crt':'Zm9v','tls.key':'YmFy'}}""");

    private static final JsonNode SERVICE = json("""
            {'apiVersion':'v1','kind':'Service','metadata':{'name':'db','namespace':'shop'},
             'spec':{'type':'ClusterIP','clusterIP':'None','selector':{'app':'db'},'ports':[{'port':5432}]}}""");

    private static final JsonNode NAMESPACE = json("""
            {'apiVersion':'v1','kind':'Namespace','metadata':{'name':'shop'},'status':{'phase':'Active'}}""");

    private static final JsonNode RC = json("""
            {'apiVersion':'v1','kind':'ReplicationController','metadata':{'name':'rc','namespace':'shop'},
             'spec':{'replicas':3},'status':{'replicas':3}}""");

    private static final JsonNode NEW_RC = json("""
            {'apiVersion':'v1','kind':'ReplicationController','metadata':{'name':'rc2','namespace':'shop'},
             'spec':{'replicas':3},'status':{}}""");

    private static final JsonNode JOB = json("""
            {'apiVersion':'batch/v1','kind':'Job','metadata':{'name':'pi','namespace':'shop'},
             'status':{'succeeded':1,'active':0}}""");

    private static final JsonNode CUSTOM = json("""
            {'apiVersion':'example.com/v1','kind':'Widget','metadata':{'name':'w','namespace':'shop'},
             'spec':{'color':'red','size':3,'shiny':false,'parts':['a'],'owner':null}}""");

    // ------------------------------------------------------------------------------------------------
    // Accepted fields and messages

    static Stream<Arguments> rejected() {
        String notKnown = " is not a known field selector: only \"metadata.name\", \"metadata.namespace\"";
        return Stream.of(
                Arguments.of("pods", "", "spec.foo=bar", "field label not supported: spec.foo"),
                Arguments.of("pods", "", "spec.zzz=1,spec.aaa=2", "field label not supported: spec.aaa"),
                Arguments.of("pods", "", "metadata.labels=x", "field label not supported: metadata.labels"),
                Arguments.of("pods", "", "spec.nodeName =x", "field label not supported: spec.nodeName "),
                Arguments.of("events", "", "regarding.kind=Pod", "field label not supported: regarding.kind"),
                Arguments.of("events", "", "reportingController=x", "field label not supported: reportingController"),
                Arguments.of(
                        "events",
                        "events.k8s.io",
                        "involvedObject.kind=Pod",
                        "field label not supported: involvedObject.kind"),
                Arguments.of(
                        "events",
                        "events.k8s.io",
                        "reportingComponent=x",
                        "field label not supported: reportingComponent"),
                Arguments.of("secrets", "", "data=x", "field label not supported: data"),
                Arguments.of("namespaces", "", "metadata.namespace=x", "field label not supported: metadata.namespace"),
                Arguments.of("nodes", "", "metadata.namespace=x", "field label not supported: metadata.namespace"),
                Arguments.of("nodes", "", "status.phase=x", "field label not supported: status.phase"),
                Arguments.of(
                        "replicationcontrollers", "", "spec.replicas=1", "field label not supported: spec.replicas"),
                Arguments.of(
                        "certificatesigningrequests",
                        "certificates.k8s.io",
                        "metadata.namespace=x",
                        "field label not supported: metadata.namespace"),
                Arguments.of(
                        "jobs",
                        "batch",
                        "status.succeeded=1",
                        "field label \"status.succeeded\" not supported for batchv1.Job"),
                Arguments.of("replicasets", "apps", "status.replicas=1", "\"status.replicas\"" + notKnown),
                Arguments.of("configmaps", "", "foo.bar=baz", "\"foo.bar\"" + notKnown),
                Arguments.of("ingresses", "networking.k8s.io", "spec.x=1", "\"spec.x\"" + notKnown),
                Arguments.of("services", "", "spec.ports=80", "field label not supported: spec.ports"),
                Arguments.of("pods", "example.com", "spec.nodeName=x", "\"spec.nodeName\"" + notKnown));
    }

    @ParameterizedTest(name = "[{index}] {1}/{0} {2}")
    @MethodSource("rejected")
    void rejectsUnsupportedFieldsWithKubeApiserverMessages(
            String resource, String group, String selector, String message) {
        FieldSelector parsed = FieldSelector.parse(selector);
        assertThatThrownBy(() -> SelectableFields.validate(resource, group, parsed))
                .isInstanceOf(SelectorParseException.class)
                .hasMessage(message);
    }

    static Stream<Arguments> accepted() {
        return Stream.of(
                Arguments.of(
                        "pods",
                        "",
                        "metadata.name=a,metadata.namespace=b,spec.nodeName=,spec.restartPolicy=Always,"
                                + "spec.schedulerName=s,spec.serviceAccountName=sa,spec.hostNetwork=true,status.phase!=Running,"
                                + "status.podIP=1.2.3.4,status.podIPs=,status.nominatedNodeName=n"),
                Arguments.of(
                        "events",
                        "",
                        "involvedObject.kind=Pod,involvedObject.namespace=a,involvedObject.name=b,"
                                + "involvedObject.uid=u,involvedObject.apiVersion=v1,involvedObject.resourceVersion=1,"
                                + "involvedObject.fieldPath=f,reason=r,reportingComponent=c,source=s,type=Normal,"
                                + "metadata.name=n,metadata.namespace=ns"),
                Arguments.of(
                        "events",
                        "events.k8s.io",
                        "regarding.kind=Pod,regarding.namespace=a,regarding.name=b,"
                                + "regarding.uid=u,regarding.apiVersion=v1,regarding.resourceVersion=1,regarding.fieldPath=f,"
                                + "reason=r,reportingController=c,source=s,type=Normal,metadata.name=n,metadata.namespace=ns"),
                Arguments.of("secrets", "", "type=Opaque,metadata.name=n,metadata.namespace=ns"),
                Arguments.of(
                        "services",
                        "",
                        "spec.clusterIP=None,spec.type=ClusterIP,metadata.name=n,metadata.namespace=ns"),
                Arguments.of("namespaces", "", "status.phase=Active,metadata.name=n"),
                Arguments.of("nodes", "", "spec.unschedulable=true,metadata.name=n"),
                Arguments.of("replicationcontrollers", "", "status.replicas=0,metadata.name=n,metadata.namespace=ns"),
                Arguments.of("jobs", "batch", "status.successful=1,metadata.name=n,metadata.namespace=ns"),
                Arguments.of("certificatesigningrequests", "certificates.k8s.io", "spec.signerName=s,metadata.name=n"),
                Arguments.of("replicasets", "apps", "metadata.name=n,metadata.namespace=ns"),
                Arguments.of("clusterroles", "rbac.authorization.k8s.io", "metadata.name=n,metadata.namespace="),
                Arguments.of("configmaps", "", ""));
    }

    @ParameterizedTest(name = "[{index}] {1}/{0}")
    @MethodSource("accepted")
    void acceptsSupportedFields(String resource, String group, String selector) {
        FieldSelector parsed = FieldSelector.parse(selector);
        assertThatCode(() -> SelectableFields.validate(resource, group, parsed)).doesNotThrowAnyException();
    }

    @Test
    void convertsLegacyAndEventsV1NamesToTheFieldsTheyStandFor() {
        assertThat(SelectableFields.convert("pods", "", FieldSelector.parse("spec.host=node-1,status.phase=Running")))
                .hasToString("spec.nodeName=node-1,status.phase=Running");
        assertThat(SelectableFields.convert(
                        "events",
                        "events.k8s.io",
                        FieldSelector.parse("regarding.name=web-0,reportingController=kubelet,type=Normal")))
                .hasToString("involvedObject.name=web-0,reportingComponent=kubelet,type=Normal");
        FieldSelector unchanged = FieldSelector.parse("metadata.name=x");
        assertThat(SelectableFields.convert("pods", "", unchanged)).isSameAs(unchanged);
    }

    @Test
    void customResourcesAcceptTheirSelectableFields() {
        Set<String> fields = Set.of(".spec.color", "spec.size");
        FieldSelector selector =
                FieldSelector.parse("spec.color=red,spec.size!=4,metadata.namespace=shop,metadata.name=w");
        assertThat(SelectableFields.convert(true, fields, selector)).isEqualTo(selector);
        assertThatThrownBy(() -> SelectableFields.validate(true, fields, FieldSelector.parse("spec.shiny=true")))
                .isInstanceOf(SelectorParseException.class)
                .hasMessage("field label not supported: spec.shiny");
        assertThatThrownBy(() -> SelectableFields.validate(false, fields, FieldSelector.parse("metadata.namespace=x")))
                .isInstanceOf(SelectorParseException.class)
                .hasMessage("field label not supported: metadata.namespace");
        SelectableFields.validate(false, Set.of(), FieldSelector.parse("metadata.name=w"));
    }

    // ------------------------------------------------------------------------------------------------
    // Values

    static Stream<Arguments> values() {
        return Stream.of(
                Arguments.of("pods", "", POD, "metadata.name", "web-0"),
                Arguments.of("pods", "", POD, "metadata.namespace", "shop"),
                Arguments.of("pods", "", POD, "spec.nodeName", "node-1"),
                Arguments.of("pods", "", POD, "spec.host", "node-1"),
                Arguments.of("pods", "", POD, "spec.restartPolicy", "Always"),
                Arguments.of("pods", "", POD, "spec.schedulerName", "default-scheduler"),
                Arguments.of("pods", "", POD, "spec.serviceAccountName", "web"),
                Arguments.of("pods", "", POD, "spec.hostNetwork", "true"),
                Arguments.of("pods", "", POD, "status.phase", "Running"),
                Arguments.of("pods", "", POD, "status.podIP", "10.0.0.7"),
                Arguments.of("pods", "", POD, "status.nominatedNodeName", "node-2"),
                Arguments.of("pods", "", POD, "status.podIPs", null),
                Arguments.of("pods", "", POD, "metadata.labels", null),
                Arguments.of("pods", "", POD, "spec.containers", null),
                Arguments.of("pods", "", PENDING_POD, "spec.nodeName", ""),
                Arguments.of("pods", "", PENDING_POD, "spec.restartPolicy", ""),
                Arguments.of("pods", "", PENDING_POD, "spec.serviceAccountName", "legacy"),
                Arguments.of("pods", "", PENDING_POD, "spec.hostNetwork", "false"),
                Arguments.of("pods", "", PENDING_POD, "status.podIP", ""),
                Arguments.of("pods", "", PENDING_POD, "status.nominatedNodeName", ""),
                Arguments.of("pods", "", json("{'status':{'podIP':'10.1.1.1'}}"), "status.podIP", "10.1.1.1"),
                Arguments.of("events", "", CORE_EVENT, "involvedObject.kind", "Pod"),
                Arguments.of("events", "", CORE_EVENT, "involvedObject.namespace", "shop"),
                Arguments.of("events", "", CORE_EVENT, "involvedObject.name", "web-0"),
                Arguments.of("events", "", CORE_EVENT, "involvedObject.uid", "7c1b"),
                Arguments.of("events", "", CORE_EVENT, "involvedObject.apiVersion", "v1"),
                Arguments.of("events", "", CORE_EVENT, "involvedObject.resourceVersion", "42"),
                Arguments.of("events", "", CORE_EVENT, "involvedObject.fieldPath", "spec.containers{app}"),
                Arguments.of("events", "", CORE_EVENT, "reason", "Pulled"),
                Arguments.of("events", "", CORE_EVENT, "reportingComponent", "kubelet"),
                Arguments.of("events", "", CORE_EVENT, "source", "kubelet"),
                Arguments.of("events", "", CORE_EVENT, "type", "Normal"),
                Arguments.of("events", "", CORE_EVENT, "metadata.name", "web-0.17a"),
                Arguments.of("events", "", CORE_EVENT, "message", null),
                Arguments.of("events", "", CORE_EVENT_WITHOUT_SOURCE, "source", "deployment-controller"),
                Arguments.of("events", "", CORE_EVENT_WITHOUT_SOURCE, "involvedObject.namespace", ""),
                Arguments.of("events", "events.k8s.io", EVENTS_V1_EVENT, "involvedObject.kind", "Pod"),
                Arguments.of("events", "events.k8s.io", EVENTS_V1_EVENT, "regarding.kind", "Pod"),
                Arguments.of("events", "events.k8s.io", EVENTS_V1_EVENT, "regarding.fieldPath", "spec.containers{app}"),
                Arguments.of("events", "events.k8s.io", EVENTS_V1_EVENT, "involvedObject.resourceVersion", "42"),
                Arguments.of("events", "events.k8s.io", EVENTS_V1_EVENT, "reportingComponent", "kubelet"),
                Arguments.of("events", "events.k8s.io", EVENTS_V1_EVENT, "reportingController", "kubelet"),
                Arguments.of("events", "events.k8s.io", EVENTS_V1_EVENT, "source", "kubelet-old"),
                Arguments.of("events", "events.k8s.io", EVENTS_V1_EVENT, "reason", "Pulled"),
                Arguments.of("events", "events.k8s.io", EVENTS_V1_EVENT, "type", "Normal"),
                Arguments.of("nodes", "", NODE, "spec.unschedulable", "true"),
                Arguments.of("nodes", "", NODE, "metadata.name", "node-1"),
                Arguments.of("nodes", "", SCHEDULABLE_NODE, "spec.unschedulable", "false"),
                Arguments.of("nodes", "", NODE, "metadata.namespace", null),
                Arguments.of("secrets", "", SECRET, "type", "kubernetes.io/tls"),
                Arguments.of("services", "", SERVICE, "spec.clusterIP", "None"),
                Arguments.of("services", "", SERVICE, "spec.type", "ClusterIP"),
                Arguments.of("services", "", SERVICE, "spec.selector", null),
                Arguments.of("secrets", "", SECRET, "metadata.namespace", "shop"),
                Arguments.of("namespaces", "", NAMESPACE, "status.phase", "Active"),
                Arguments.of("namespaces", "", NAMESPACE, "metadata.name", "shop"),
                Arguments.of("replicationcontrollers", "", RC, "status.replicas", "3"),
                Arguments.of("replicationcontrollers", "", NEW_RC, "status.replicas", "0"),
                Arguments.of("replicasets", "apps", RC, "status.replicas", "3"),
                Arguments.of("jobs", "batch", JOB, "status.successful", "1"),
                Arguments.of("jobs", "batch", json("{'status':{}}"), "status.successful", "0"),
                Arguments.of("configmaps", "", SECRET, "metadata.name", "tls"),
                Arguments.of("configmaps", "", SECRET, "type", null));
    }

    @ParameterizedTest(name = "[{index}] {1}/{0} {3} = {4}")
    @MethodSource("values")
    void readsSelectableFieldValues(String resource, String group, JsonNode object, String field, String expected) {
        assertThat(SelectableFields.valueOf(resource, group, object, field)).isEqualTo(expected);
    }

    @Test
    void readsCustomResourceFieldsByDottedPath() {
        assertThat(SelectableFields.valueOf(CUSTOM, "spec.color")).isEqualTo("red");
        assertThat(SelectableFields.valueOf(CUSTOM, ".spec.color")).isEqualTo("red");
        assertThat(SelectableFields.valueOf(CUSTOM, "spec.size")).isEqualTo("3");
        assertThat(SelectableFields.valueOf(CUSTOM, "spec.shiny")).isEqualTo("false");
        assertThat(SelectableFields.valueOf(CUSTOM, "metadata.name")).isEqualTo("w");
        assertThat(SelectableFields.valueOf(CUSTOM, "spec.parts")).isNull();
        assertThat(SelectableFields.valueOf(CUSTOM, "spec.owner")).isNull();
        assertThat(SelectableFields.valueOf(CUSTOM, "spec.missing")).isNull();
        assertThat(SelectableFields.valueOf(CUSTOM, "spec.color.hue")).isNull();
    }

    // ------------------------------------------------------------------------------------------------
    // End to end: parse, convert, match

    @Test
    void filtersPodsLikeKubectlGetPodsFieldSelector() {
        List<JsonNode> pods = List.of(POD, PENDING_POD);
        assertThat(select("pods", "", "spec.nodeName=", pods)).containsExactly("web-1");
        assertThat(select("pods", "", "spec.host=node-1", pods)).containsExactly("web-0");
        assertThat(select("pods", "", "status.phase!=Running", pods)).containsExactly("web-1");
        assertThat(select("pods", "", "spec.hostNetwork=false", pods)).containsExactly("web-1");
        assertThat(select("pods", "", "status.podIPs=", pods)).containsExactly("web-0", "web-1");
        assertThat(select("pods", "", "metadata.namespace=shop,metadata.name!=web-0", pods))
                .containsExactly("web-1");
    }

    @Test
    void filtersEventsOfAnObjectLikeKubectlDescribe() {
        List<JsonNode> events = List.of(CORE_EVENT, CORE_EVENT_WITHOUT_SOURCE);
        String describe = "involvedObject.name=web-0,involvedObject.namespace=shop,involvedObject.kind=Pod,"
                + "involvedObject.uid=7c1b";
        assertThat(select("events", "", describe, events)).containsExactly("web-0.17a");
        assertThat(select("events", "", "source=deployment-controller", events)).containsExactly("e");
        assertThat(select(
                        "events",
                        "events.k8s.io",
                        "regarding.name=web-0,reportingController=kubelet",
                        List.of(EVENTS_V1_EVENT)))
                .containsExactly("web-0.17a");
    }

    private static List<String> select(String resource, String group, String selector, List<JsonNode> objects) {
        FieldSelector converted = SelectableFields.convert(resource, group, FieldSelector.parse(selector));
        return objects.stream()
                .filter(o -> converted.matches(f -> SelectableFields.valueOf(resource, group, o, f)))
                .map(o -> o.path("metadata").path("name").stringValue())
                .toList();
    }
}
