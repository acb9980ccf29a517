package io.kubeloop.apiserver.internal.table;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Services: TYPE, CLUSTER-IP, EXTERNAL-IP (by type: external IPs, load-balancer ingress or
 * {@code <pending>}, the external name), PORT(S) ({@code 80/TCP}, {@code 80:30080/TCP}), AGE; wide: selector.
 * An unset type prints {@code ClusterIP} and an unset protocol {@code TCP}, the API defaults.
 */
final class ServicePrinter implements Printer {

    private static final List<Column> COLUMNS = List.of(
            Column.NAME,
            Column.string("Type", Descriptions.SERVICE_TYPE),
            Column.string("Cluster-IP", Descriptions.CLUSTER_IP),
            Column.string("External-IP", Descriptions.EXTERNAL_IPS),
            Column.string("Port(s)", Descriptions.SERVICE_PORTS),
            Column.AGE,
            Column.wide("Selector", Descriptions.SERVICE_SELECTOR));

    @Override
    public List<Column> columns() {
        return COLUMNS;
    }

    @Override
    public Row row(ObjectNode service, Instant now) {
        JsonNode spec = service.path("spec");
        String type = Fields.text(spec.get("type"));
        if (type.isEmpty()) {
            type = "ClusterIP";
        }
        String clusterIp = "<none>";
        if (!spec.path("clusterIPs").isEmpty()) {
            clusterIp = Fields.text(spec.path("clusterIPs").get(0));
        } else if (!Fields.text(spec.get("clusterIP")).isEmpty()) {
            clusterIp = Fields.text(spec.get("clusterIP")); // v1 -> internal conversion fills clusterIPs
        }
        String ports = ports(spec.path("ports"));
        return Row.of(
                Fields.text(service.path("metadata").get("name")),
                type,
                clusterIp,
                externalIp(type, spec, service.path("status")),
                ports.isEmpty() ? "<none>" : ports,
                Ages.of(service, now),
                Labels.format(spec.get("selector")));
    }

    private static String externalIp(String type, JsonNode spec, JsonNode status) {
        List<String> externalIps = texts(spec.path("externalIPs"));
        return switch (type) {
            case "ClusterIP", "NodePort" -> externalIps.isEmpty() ? "<none>" : String.join(",", externalIps);
            case "LoadBalancer" -> {
                TreeSet<String> ingress = new TreeSet<>();
                for (JsonNode i : status.path("loadBalancer").path("ingress")) {
                    String ip = Fields.text(i.get("ip"));
                    String hostname = Fields.text(i.get("hostname"));
                    if (!ip.isEmpty()) {
                        ingress.add(ip);
                    } else if (!hostname.isEmpty()) {
                        ingress.add(hostname);
                    }
                }
                if (!externalIps.isEmpty()) {
                    List<String> all = new ArrayList<>(ingress);
                    all.addAll(externalIps);
                    yield String.join(",", all);
                }
                yield ingress.isEmpty() ? "<pending>" : String.join(",", ingress);
            }
            case "ExternalName" -> Fields.text(spec.get("externalName"));
            default -> "<unknown>";
        };
    }

    private static String ports(JsonNode ports) {
        List<String> pieces = new ArrayList<>();
        for (JsonNode port : ports) {
            String protocol = Fields.text(port.get("protocol"));
            if (protocol.isEmpty()) {
                protocol = "TCP";
            }
            long nodePort = Fields.integer(port.get("nodePort"));
            long number = Fields.integer(port.get("port"));
            pieces.add(nodePort > 0 ? number + ":" + nodePort + "/" + protocol : number + "/" + protocol);
        }
        return String.join(",", pieces);
    }

    private static List<String> texts(JsonNode array) {
        List<String> values = new ArrayList<>();
        for (JsonNode v : array) {
            values.add(Fields.text(v));
        }
        return values;
    }
}
