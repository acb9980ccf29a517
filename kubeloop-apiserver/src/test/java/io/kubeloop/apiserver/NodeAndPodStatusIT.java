package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;

/**
 * What a kubelet writes to Nodes and Pods is let through, what kube-apiserver's ValidateNode, ValidateNodeUpdate
 * and ValidatePodStatusUpdate refuse is refused with their 422s. One server for the class; each test its objects.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NodeAndPodStatusIT {

    private static final String NODES = "/api/v1/nodes";
    private static final String PODS = "/api/v1/namespaces/default/pods";
    private static final String MERGE = "application/merge-patch+json";

    private EmbeddedApiServer server;
    private ApiClient api;

    @BeforeAll
    void start() {
        server = EmbeddedApiServer.builder().start();
        api = new ApiClient(server.url());
    }

    @AfterAll
    void stop() {
        server.close();
    }

    /** A Node as a kubelet registers it. */
    private static String node(String name, String spec) {
        return """
                {"metadata":{"name":"%s","labels":{"kubernetes.io/hostname":"%s"}},"spec":%s,
                 "status":{"capacity":{"cpu":"8","memory":"32Gi","pods":"110"},
                  "allocatable":{"cpu":"8","memory":"32668Mi","pods":"110"},
                  "conditions":[{"type":"Ready","status":"True","reason":"KubeletReady",
                    "message":"kubelet is posting ready status","lastHeartbeatTime":"2026-03-01T10:00:00Z",
                    "lastTransitionTime":"2026-03-01T10:00:00Z"}],
                  "addresses":[{"type":"InternalIP","address":"10.0.0.1"},{"type":"Hostname","address":"%s"}],
                  "daemonEndpoints":{"kubeletEndpoint":{"Port":10250}},
                  "nodeInfo":{"machineID":"m","systemUUID":"s","bootID":"b","kernelVersion":"6.1.0",
                    "osImage":"kubeloop","containerRuntimeVersion":"kubeloop-sim://1.0","kubeletVersion":"v1.32.4",
                    "kubeProxyVersion":"v1.32.4","operatingSystem":"linux","architecture":"amd64"}}}""".formatted(name, name, spec, name);
    }

    private static void assertInvalid(ApiClient.Reply r, String cause) {
        assertThat(r.code()).as(r.raw()).isEqualTo(422);
        assertThat(r.body().get("message").asString()).contains(cause);
    }

    @Test
    void aKubeletsNodeIsStoredWithItsStatusAndItsCidrsStayPut() {
        JsonNode created = api.create(NODES, node("n-1", "{\"podCIDR\":\"10.244.1.0/24\"}"));
        assertThat(created.at("/status/nodeInfo/kubeletVersion").asString()).isEqualTo("v1.32.4");
        assertThat(created.at("/spec/podCIDRs/0").asString())
                .as("podCIDRs follows podCIDR, as kube's conversion")
                .isEqualTo("10.244.1.0/24");

        ApiClient.Reply status = api.request(
                "PATCH",
                NODES + "/n-1/status",
                MERGE,
                "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"False\",\"reason\":\"KubeletNotReady\"}]}}");
        assertThat(status.code()).as(status.raw()).isEqualTo(200);
        ApiClient.Reply cordon = api.request("PATCH", NODES + "/n-1", MERGE, "{\"spec\":{\"unschedulable\":true}}");
        assertThat(cordon.code()).as(cordon.raw()).isEqualTo(200);

        assertInvalid(
                api.request(
                        "PATCH", NODES + "/n-1", MERGE, "{\"spec\":{\"podCIDR\":\"10.244.9.0/24\",\"podCIDRs\":null}}"),
                "spec.podCIDRs: Forbidden: node updates may not change podCIDR except from \"\" to valid");
        assertInvalid(
                api.request("PATCH", NODES + "/n-1/status", MERGE, "{\"status\":{\"capacity\":{\"cpu\":\"-1\"}}}"),
                "status.capacity[cpu]: Invalid value: \"-1\": must be greater than or equal to 0");
        assertThat(api.create(NODES, node("n-2", "{\"podCIDRs\":[\"10.244.2.0/24\",\"fd00:2::/64\"]}"))
                        .at("/spec/podCIDR")
                        .asString())
                .as("a dual-stack pair")
                .isEqualTo("10.244.2.0/24");
        assertInvalid(
                api.post(NODES, node("n-3", "{\"podCIDRs\":[\"10.0.0.0/8\",\"10.1.0.0/16\"]}")),
                "spec.podCIDRs: Invalid value: []string{\"10.0.0.0/8\", \"10.1.0.0/16\"}: may specify no more than one CIDR "
                        + "for each IP family");
    }

    @Test
    void taintsAreValidatedAsKubeDoes() {
        api.create(NODES, node("t-1", "{}"));
        ApiClient.Reply tainted = api.request(
                "PATCH",
                NODES + "/t-1",
                MERGE,
                "{\"spec\":{\"taints\":[{\"key\":\"node.kubernetes.io/unreachable\",\"effect\":\"NoExecute\","
                        + "\"timeAdded\":\"2026-03-01T10:00:00Z\"}]}}");
        assertThat(tainted.code()).as(tainted.raw()).isEqualTo(200);
        assertInvalid(
                api.request(
                        "PATCH", NODES + "/t-1", MERGE, "{\"spec\":{\"taints\":[{\"key\":\"k\",\"effect\":\"Bad\"}]}}"),
                "metadata.taints[0].effect: Unsupported value: \"Bad\": supported values: \"NoSchedule\", "
                        + "\"PreferNoSchedule\", \"NoExecute\"");
        assertInvalid(
                api.request("PATCH", NODES + "/t-1", MERGE, "{\"spec\":{\"taints\":[{\"key\":\"k\"}]}}"),
                "metadata.taints[0].effect: Required value");
        assertInvalid(
                api.request(
                        "PATCH",
                        NODES + "/t-1",
                        MERGE,
                        "{\"spec\":{\"taints\":[{\"key\":\"k\",\"effect\":\"NoSchedule\"},"
                                + "{\"key\":\"k\",\"value\":\"v\",\"effect\":\"NoSchedule\"}]}}"),
                "metadata.taints[1]: Duplicate value: core.Taint{Key:\"k\", Value:\"v\", Effect:\"NoSchedule\", "
                        + "TimeAdded:(*v1.Time)(nil)}: taints must be unique by key and effect pair");
        assertInvalid(
                api.post(NODES, node("t-2", "{\"taints\":[{\"key\":\"bad key\",\"effect\":\"NoSchedule\"}]}")),
                "metadata.taints[0].key: Invalid value: \"bad key\"");
    }

    @Test
    void aKubeletsPodStatusIsLetThroughAndBadIpsAreNot() {
        api.create(
                PODS,
                "{\"metadata\":{\"name\":\"run\"},\"spec\":{\"nodeName\":\"n-1\",\"restartPolicy\":\"Never\","
                        + "\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}");
        ApiClient.Reply running = api.request("PATCH", PODS + "/run/status", MERGE, """
                {"spec":{"nodeName":"elsewhere"},
                 "status":{"phase":"Running","podIP":"10.244.1.5","hostIP":"10.0.0.1",
                  "hostIPs":[{"ip":"10.0.0.1"}],"startTime":"2026-03-01T10:00:00Z",
                  "conditions":[{"type":"PodReadyToStartContainers","status":"True"},
                    {"type":"Initialized","status":"True"},{"type":"ContainersReady","status":"True"},
                    {"type":"Ready","status":"True"},{"type":"PodScheduled","status":"True"}],
                  "containerStatuses":[{"name":"c","image":"nginx","imageID":"docker.io/library/nginx@sha256:1",
                    "containerID":"kubeloop://1","ready":true,"started":true,"restartCount":0,
                    "state":{"running":{"startedAt":"2026-03-01T10:00:01Z"}}}]}}""");
        assertThat(running.code()).as(running.raw()).isEqualTo(200);
        assertThat(running.body().at("/status/podIPs/0/ip").asString()).isEqualTo("10.244.1.5");
        assertThat(running.body().at("/spec/nodeName").asString())
                .as("a status write never changes the spec")
                .isEqualTo("n-1");

        assertInvalid(
                api.request(
                        "PATCH",
                        PODS + "/run/status",
                        MERGE,
                        "{\"status\":{\"podIP\":\"10.244.1.300\",\"podIPs\":null}}"),
                "status.podIPs[0]: Invalid value: \"10.244.1.300\": must be a valid IP address, (e.g. 10.9.8.7 or "
                        + "2001:db8::ffff)");
        assertInvalid(
                api.request(
                        "PATCH",
                        PODS + "/run/status",
                        MERGE,
                        "{\"status\":{\"podIPs\":[{\"ip\":\"10.244.1.5\"},{\"ip\":\"10.244.1.6\"}]}}"),
                "status.podIPs: Invalid value: []core.PodIP{core.PodIP{IP:\"10.244.1.5\"}, core.PodIP{IP:\"10.244.1.6\"}}: "
                        + "may specify no more than one IP for each IP family");
        ApiClient.Reply dualStack = api.request(
                "PATCH",
                PODS + "/run/status",
                MERGE,
                "{\"status\":{\"podIPs\":[{\"ip\":\"10.244.1.5\"},{\"ip\":\"fd00::5\"}]}}");
        assertThat(dualStack.code()).as(dualStack.raw()).isEqualTo(200);

        ApiClient.Reply exited = api.request(
                "PATCH",
                PODS + "/run/status",
                MERGE,
                "{\"status\":{\"phase\":\"Succeeded\",\"containerStatuses\":[{\"name\":\"c\",\"image\":\"nginx\","
                        + "\"imageID\":\"\",\"ready\":false,\"restartCount\":0,\"state\":{\"terminated\":{\"exitCode\":0,"
                        + "\"reason\":\"Completed\"}}}]}}");
        assertThat(exited.code()).as(exited.raw()).isEqualTo(200);
        assertInvalid(
                api.request(
                        "PATCH",
                        PODS + "/run/status",
                        MERGE,
                        "{\"status\":{\"containerStatuses\":[{\"name\":\"c\",\"image\":\"nginx\",\"imageID\":\"\","
                                + "\"ready\":true,\"restartCount\":1,\"state\":{\"running\":{}}}]}}"),
                "status.containerStatuses[0].state: Forbidden: may not be transitioned to non-terminated state");
    }
}
