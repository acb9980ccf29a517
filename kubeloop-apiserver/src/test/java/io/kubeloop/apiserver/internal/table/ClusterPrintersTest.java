package io.kubeloop.apiserver.internal.table;

import static io.kubeloop.apiserver.internal.table.TestObjects.NOW;
import static io.kubeloop.apiserver.internal.table.TestObjects.object;
import static io.kubeloop.apiserver.internal.table.TestObjects.parse;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Services, nodes, endpoints, events and the small kinds. */
class ClusterPrintersTest {

    @Test
    void clusterIpService() {
        var svc = object(
                "web",
                "\"spec\":{\"clusterIP\":\"10.96.0.10\",\"clusterIPs\":[\"10.96.0.10\"],"
                        + "\"selector\":{\"app\":\"web\"},\"ports\":[{\"port\":80,\"protocol\":\"TCP\"},{\"port\":53,"
                        + "\"protocol\":\"UDP\"}]}");
        assertThat(new ServicePrinter().row(svc, NOW).cells())
                .containsExactly("web", "ClusterIP", "10.96.0.10", "<none>", "80/TCP,53/UDP", "5m", "app=web");
    }

    @Test
    void serviceDefaultsAndUnsetFields() {
        var svc = object("bare", "\"spec\":{\"ports\":[{\"port\":8080}]}");
        assertThat(new ServicePrinter().row(svc, NOW).cells())
                .containsExactly("bare", "ClusterIP", "<none>", "<none>", "8080/TCP", "5m", "<none>");
        var legacyClusterIp = object("legacy", "\"spec\":{\"clusterIP\":\"10.0.0.1\"}");
        assertThat(new ServicePrinter().row(legacyClusterIp, NOW).cells().subList(2, 5))
                .containsExactly("10.0.0.1", "<none>", "<none>");
    }

    @Test
    void nodePortAndLoadBalancerServices() {
        var nodePort = object(
                "np",
                "\"spec\":{\"type\":\"NodePort\",\"clusterIPs\":[\"10.0.0.2\"],"
                        + "\"externalIPs\":[\"1.2.3.4\"],\"ports\":[{\"port\":80,\"nodePort\":30080,\"protocol\":\"TCP\"}]}");
        assertThat(new ServicePrinter().row(nodePort, NOW).cells().subList(1, 5))
                .containsExactly("NodePort", "10.0.0.2", "1.2.3.4", "80:30080/TCP");
        var pending =
                object("lb", "\"spec\":{\"type\":\"LoadBalancer\",\"ports\":[{\"port\":443,\"nodePort\":31443}]}");
        assertThat(new ServicePrinter().row(pending, NOW).cells().get(3)).isEqualTo("<pending>");
        var ready = object(
                "lb",
                "\"spec\":{\"type\":\"LoadBalancer\",\"externalIPs\":[\"9.9.9.9\"]},"
                        + "\"status\":{\"loadBalancer\":{\"ingress\":[{\"ip\":\"5.6.7.8\"},{\"hostname\":\"lb.example\"},"
                        + "{\"ip\":\"1.1.1.1\"}]}}");
        assertThat(new ServicePrinter().row(ready, NOW).cells().get(3)).isEqualTo("1.1.1.1,5.6.7.8,lb.example,9.9.9.9");
        var external = object("ext", "\"spec\":{\"type\":\"ExternalName\",\"externalName\":\"db.example.com\"}");
        assertThat(new ServicePrinter().row(external, NOW).cells().subList(1, 5))
                .containsExactly("ExternalName", "<none>", "db.example.com", "<none>");
    }

    @Test
    void readyControlPlaneNode() {
        var node = object(
                "cp-1",
                "\"spec\":{\"unschedulable\":true},\"status\":{\"conditions\":["
                        + "{\"type\":\"MemoryPressure\",\"status\":\"False\"},{\"type\":\"Ready\",\"status\":\"True\"}],"
                        + "\"addresses\":[{\"type\":\"Hostname\",\"address\":\"cp-1\"},{\"type\":\"InternalIP\","
                        + "\"address\":\"172.18.0.2\"}],\"nodeInfo\":{\"kubeletVersion\":\"v1.32.0\",\"osImage\":"
                        + "\"Debian GNU/Linux 12 (bookworm)\",\"kernelVersion\":\"6.8.0\",\"containerRuntimeVersion\":"
                        + "\"containerd://1.7.24\"}}");
        ((tools.jackson.databind.node.ObjectNode) node.get("metadata"))
                .putObject("labels")
                .put("node-role.kubernetes.io/control-plane", "")
                .put("kubernetes.io/role", "master")
                .put("kubernetes.io/hostname", "cp-1");
        assertThat(new NodePrinter().row(node, NOW).cells())
                .containsExactly(
                        "cp-1",
                        "Ready,SchedulingDisabled",
                        "control-plane,master",
                        "5m",
                        "v1.32.0",
                        "172.18.0.2",
                        "<none>",
                        "Debian GNU/Linux 12 (bookworm)",
                        "6.8.0",
                        "containerd://1.7.24");
    }

    @Test
    void nodeWithoutStatus() {
        assertThat(new NodePrinter().row(object("n", ""), NOW).cells())
                .containsExactly(
                        "n", "Unknown", "<none>", "5m", "", "<none>", "<none>", "<unknown>", "<unknown>", "<unknown>");
        var notReady = object("n", "\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"Unknown\"}]}");
        assertThat(new NodePrinter().row(notReady, NOW).cells().get(1)).isEqualTo("NotReady");
    }

    @Test
    void endpoints() {
        var none = object("a", "");
        assertThat(new EndpointsPrinter().row(none, NOW).cells()).containsExactly("a", "<none>", "5m");
        var some = object(
                "b",
                "\"subsets\":[{\"addresses\":[{\"ip\":\"10.0.0.1\"},{\"ip\":\"fd00::1\"}],"
                        + "\"ports\":[{\"port\":80},{\"port\":443}]}]");
        assertThat(new EndpointsPrinter().row(some, NOW).cells().get(1))
                .isEqualTo("10.0.0.1:80,[fd00::1]:80,10.0.0.1:443 + 1 more...");
        var headless = object("c", "\"subsets\":[{\"addresses\":[{\"ip\":\"10.0.0.7\"}]}]");
        assertThat(new EndpointsPrinter().row(headless, NOW).cells().get(1)).isEqualTo("10.0.0.7");
    }

    @Test
    void coreEvent() {
        var event = parse("""
                {"metadata":{"name":"web.17d","creationTimestamp":"2026-01-01T00:40:00Z"},
                 "involvedObject":{"kind":"Pod","name":"web","fieldPath":"spec.containers{app}"},
                 "reason":"BackOff","message":"Back-off restarting failed container\\n","type":"Warning",
                 "source":{"component":"kubelet","host":"node-1"},
                 "firstTimestamp":"2026-01-01T00:40:00Z","lastTimestamp":"2026-01-01T00:58:00Z","count":7}
                """);
        assertThat(new EventPrinter(false).row(event, NOW).cells())
                .containsExactly(
                        "2m",
                        "Warning",
                        "BackOff",
                        "pod/web",
                        "spec.containers{app}",
                        "kubelet, node-1",
                        "Back-off restarting failed container",
                        "20m",
                        7L,
                        "web.17d");
        assertThat(new EventPrinter(false).columns())
                .filteredOn(c -> c.priority() == 0)
                .extracting(Column::name)
                .containsExactly("Last Seen", "Type", "Reason", "Object", "Message");
    }

    @Test
    void newStyleEventsUseEventTimeAndSeries() {
        var single = parse("""
                {"metadata":{"name":"e1"},"involvedObject":{"kind":"Node"},"reason":"Starting","type":"Normal",
                 "eventTime":"2026-01-01T00:59:50.123456Z","reportingComponent":"kube-proxy","reportingInstance":"n1"}
                """);
        assertThat(new EventPrinter(false).row(single, NOW).cells())
                .containsExactly(
                        "9s",
                        "Normal",
                        "Starting",
                        "node",
                        "",
                        "kube-proxy, n1",
                        "",
                        "9s",
                        1L,
                        "e1"); // 9.9 s truncates to 9s
        var eventsApi = parse("""
                {"metadata":{"name":"e2"},"regarding":{"kind":"Deployment","name":"web"},"reason":"ScalingReplicaSet",
                 "note":"Scaled up","type":"Normal","eventTime":"2026-01-01T00:00:00.000000Z",
                 "series":{"count":4,"lastObservedTime":"2026-01-01T00:57:00.000000Z"},
                 "reportingController":"deployment-controller"}
                """);
        assertThat(new EventPrinter(true).row(eventsApi, NOW).cells())
                .containsExactly(
                        "3m",
                        "Normal",
                        "ScalingReplicaSet",
                        "deployment/web",
                        "",
                        "deployment-controller",
                        "Scaled up",
                        "60m",
                        4L,
                        "e2");
    }

    @Test
    void smallKinds() {
        assertThat(new NamespacePrinter()
                        .row(object("ns", "\"status\":{\"phase\":\"Terminating\"}"), NOW)
                        .cells())
                .containsExactly("ns", "Terminating", "5m");
        assertThat(new NamespacePrinter().row(object("ns", ""), NOW).cells()).containsExactly("ns", "Active", "5m");
        assertThat(new LeasePrinter()
                        .row(object("l", "\"spec\":{\"holderIdentity\":\"pod-1_abc\"}"), NOW)
                        .cells())
                .containsExactly("l", "pod-1_abc", "5m");
        assertThat(new LeasePrinter().row(object("l", "\"spec\":{}"), NOW).cells())
                .containsExactly("l", "", "5m");
        assertThat(new ConfigMapPrinter()
                        .row(
                                object("cm", "\"data\":{\"a\":\"1\",\"b\":\"2\"},\"binaryData\":" + "{\"c\":\"AA==\"}"),
                                NOW)
                        .cells())
                .containsExactly("cm", 3L, "5m");
        assertThat(new SecretPrinter()
                        .row(
                                object("s", "\"data\":{\"a\":\"MQ==\"},\"stringData\":{\"a\":\"1\"," + "\"b\":\"2\"}"),
                                NOW)
                        .cells())
                .containsExactly("s", "Opaque", 2L, "5m");
        assertThat(new SecretPrinter()
                        .row(object("t", "\"type\":\"kubernetes.io/tls\""), NOW)
                        .cells())
                .containsExactly("t", "kubernetes.io/tls", 0L, "5m");
        assertThat(new ServiceAccountPrinter()
                        .row(object("sa", "\"secrets\":[{\"name\":\"x\"}]"), NOW)
                        .cells())
                .containsExactly("sa", 1L, "5m");
    }

    @Test
    void defaultTableShowsTheCreationTime() {
        assertThat(new DefaultPrinter().row(object("x", ""), NOW).cells()).containsExactly("x", "2026-01-01T00:55:00Z");
        assertThat(new DefaultPrinter()
                        .row(parse("{\"metadata\":{\"name\":\"y\"}}"), NOW)
                        .cells())
                .containsExactly("y", "0001-01-01T00:00:00Z");
        assertThat(new DefaultPrinter().columns()).extracting(Column::type).containsExactly("string", "date");
    }

    @Test
    void ageIsUnknownWithoutACreationTimestamp() {
        assertThat(new LeasePrinter()
                        .row(parse("{\"metadata\":{\"name\":\"l\"}}"), NOW)
                        .cells()
                        .get(2))
                .isEqualTo("<unknown>");
    }
}
