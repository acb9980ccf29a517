package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Services get their addresses as from kube-apiserver: a cluster IP from 10.96.0.0/12 (or the one asked for, or none
 * for headless and ExternalName Services), node ports from 30000-32767 for NodePort and LoadBalancer Services, kept
 * by updates that leave them out, never given twice, and never changed.
 */
class ServiceAddressesIT extends EmbeddedServerTest {

    private static final String SERVICES = "/api/v1/namespaces/default/services";

    private static String service(String name, String extraSpec) {
        return "{\"metadata\":{\"name\":\"" + name + "\"},\"spec\":{\"selector\":{\"app\":\"" + name + "\"},"
                + "\"ports\":[{\"port\":80,\"protocol\":\"TCP\",\"targetPort\":8080}]" + extraSpec + "}}";
    }

    private static boolean inServiceRange(String ip) {
        String[] o = ip.split("\\.");
        return o.length == 4 && o[0].equals("10") && Integer.parseInt(o[1]) >= 96 && Integer.parseInt(o[1]) <= 111;
    }

    @Test
    void clusterIpsAreAllocatedInTheRangeAndNeverTwice() {
        Set<String> ips = new HashSet<>();
        for (int i = 0; i < 20; i++) {
            JsonNode spec = api.create(SERVICES, service("s" + i, "")).get("spec");
            String ip = spec.path("clusterIP").asString();
            assertThat(inServiceRange(ip)).as(ip).isTrue();
            assertThat(ips.add(ip)).as("given twice: " + ip).isTrue();
            assertThat(spec.path("clusterIPs").toString()).isEqualTo("[\"" + ip + "\"]");
            assertThat(spec.path("ipFamilies").toString()).isEqualTo("[\"IPv4\"]");
            assertThat(spec.path("ipFamilyPolicy").asString()).isEqualTo("SingleStack");
            assertThat(spec.path("type").asString()).isEqualTo("ClusterIP");
            assertThat(ip).as("dynamic addresses stay out of the static band").doesNotStartWith("10.96.0.");
        }
    }

    @Test
    void aRequestedIpIsCheckedAndHeadlessAndExternalNameServicesGetNone() {
        JsonNode dns = api.create(SERVICES, service("dns", ",\"clusterIP\":\"10.96.0.10\""));
        assertThat(dns.at("/spec/clusterIP").asString()).isEqualTo("10.96.0.10");

        ApiClient.Reply taken = api.post(SERVICES, service("other", ",\"clusterIP\":\"10.96.0.10\""));
        assertThat(taken.code()).isEqualTo(422);
        assertThat(taken.body().path("message").asString())
                .isEqualTo("Service \"other\" is invalid: spec.clusterIPs: "
                        + "Invalid value: []string{\"10.96.0.10\"}: failed to allocate IP 10.96.0.10: provided IP is already "
                        + "allocated");
        ApiClient.Reply outside = api.post(SERVICES, service("outside", ",\"clusterIP\":\"192.168.1.1\""));
        assertThat(outside.code()).isEqualTo(422);
        assertThat(outside.body().path("message").asString())
                .contains("the provided IP (192.168.1.1) is not in the "
                        + "valid range. The range of valid IPs is 10.96.0.0/12");
        ApiClient.Reply garbage = api.post(SERVICES, service("garbage", ",\"clusterIP\":\"ten\""));
        assertThat(garbage.code()).isEqualTo(422);
        assertThat(garbage.body().path("message").asString())
                .contains("spec.clusterIPs[0]: Invalid value: \"ten\": " + "must be a valid IP address");

        JsonNode headless = api.create(SERVICES, service("headless", ",\"clusterIP\":\"None\""));
        assertThat(headless.at("/spec/clusterIPs").toString()).isEqualTo("[\"None\"]");
        JsonNode external = api.create(
                SERVICES,
                "{\"metadata\":{\"name\":\"ext\"},\"spec\":{\"type\":"
                        + "\"ExternalName\",\"externalName\":\"db.example.com\"}}");
        assertThat(external.at("/spec").has("clusterIP")).isFalse();

        // a Service created by server-side apply gets its address too
        ApiClient.Reply applied = api.request(
                "PATCH",
                SERVICES + "/applied?fieldManager=test",
                "application/apply-patch+yaml",
                "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":"
                        + "{\"name\":\"applied\"},\"spec\":{\"ports\":[{\"port\":80}]}}");
        assertThat(applied.code()).as(applied.raw()).isEqualTo(201);
        assertThat(inServiceRange(applied.body().at("/spec/clusterIP").asString()))
                .isTrue();

        // a deleted Service's address can be asked for again
        assertThat(api.delete(SERVICES + "/dns").code()).isEqualTo(200);
        assertThat(api.post(SERVICES, service("dns2", ",\"clusterIP\":\"10.96.0.10\""))
                        .code())
                .isEqualTo(201);
    }

    @Test
    void updatesKeepTheAddressesTheyLeaveOutAndCannotChangeThem() {
        JsonNode created = api.create(SERVICES, service("web", ",\"type\":\"NodePort\""));
        String ip = created.at("/spec/clusterIP").asString();
        int nodePort = created.at("/spec/ports/0/nodePort").asInt();
        assertThat(nodePort).isBetween(30000, 32767);

        // a PUT of the object as first written (no addresses): they are kept
        ObjectNode put = (ObjectNode) ApiClient.JSON.readTree(service("web", ",\"type\":\"NodePort\""));
        ((ObjectNode) put.get("metadata"))
                .put("resourceVersion", created.at("/metadata/resourceVersion").asString());
        ((ObjectNode) put.get("metadata")).putObject("labels").put("tier", "front");
        ApiClient.Reply updated = api.put(SERVICES + "/web", put.toString());
        assertThat(updated.code()).as(updated.raw()).isEqualTo(200);
        assertThat(updated.body().at("/spec/clusterIP").asString()).isEqualTo(ip);
        assertThat(updated.body().at("/spec/ports/0/nodePort").asInt()).isEqualTo(nodePort);

        ApiClient.Reply changed = api.request(
                "PATCH",
                SERVICES + "/web",
                "application/merge-patch+json",
                "{\"spec\":{\"clusterIP\":\"10.96.0.99\",\"clusterIPs\":[\"10.96.0.99\"]}}");
        assertThat(changed.code()).isEqualTo(422);
        assertThat(changed.body().path("message").asString())
                .contains("spec.clusterIPs[0]: Invalid value: \"10.96.0.99\": may not change once set");

        ApiClient.Reply samePort = api.post(
                SERVICES,
                service("clash", ",\"type\":\"NodePort\"")
                        .replace("\"targetPort\":8080", "\"targetPort\":8080,\"nodePort\":" + nodePort));
        assertThat(samePort.code()).isEqualTo(422);
        assertThat(samePort.body().path("message").asString())
                .contains(
                        "spec.ports[0].nodePort: Invalid value: " + nodePort + ": provided port is already allocated");
        ApiClient.Reply lowPort = api.post(
                SERVICES,
                service("low", ",\"type\":\"NodePort\"")
                        .replace("\"targetPort\":8080", "\"targetPort\":8080,\"nodePort\":80"));
        assertThat(lowPort.code()).isEqualTo(422);
        assertThat(lowPort.body().path("message").asString()).contains("The range of valid ports is 30000-32767");

        JsonNode local = api.create(
                SERVICES, service("local", ",\"type\":\"LoadBalancer\"," + "\"externalTrafficPolicy\":\"Local\""));
        int health = local.at("/spec/healthCheckNodePort").asInt();
        assertThat(health)
                .isBetween(30000, 32767)
                .isNotEqualTo(local.at("/spec/ports/0/nodePort").asInt())
                .isNotEqualTo(nodePort);
        ApiClient.Reply healthClash = api.post(
                SERVICES,
                service("clash2", ",\"type\":\"NodePort\"")
                        .replace("\"targetPort\":8080", "\"targetPort\":8080,\"nodePort\":" + health));
        assertThat(healthClash.code())
                .as("a health-check port is taken like a node port")
                .isEqualTo(422);
        ApiClient.Reply toCluster = api.request(
                "PATCH",
                SERVICES + "/local",
                "application/merge-patch+json",
                "{\"spec\":{\"externalTrafficPolicy\":\"Cluster\"}}");
        assertThat(toCluster.code()).as(toCluster.raw()).isEqualTo(200);
        assertThat(toCluster.body().at("/spec").has("healthCheckNodePort")).isFalse();

        // back to ClusterIP: the node port goes, the cluster IP stays
        ApiClient.Reply toClusterIp = api.request(
                "PATCH", SERVICES + "/web", "application/merge-patch+json", "{\"spec\":{\"type\":\"ClusterIP\"}}");
        assertThat(toClusterIp.code()).as(toClusterIp.raw()).isEqualTo(200);
        assertThat(toClusterIp.body().at("/spec/ports/0").has("nodePort")).isFalse();
        assertThat(toClusterIp.body().at("/spec/clusterIP").asString()).isEqualTo(ip);
    }
}
