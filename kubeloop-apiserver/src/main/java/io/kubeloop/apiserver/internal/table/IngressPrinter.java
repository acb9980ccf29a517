package io.kubeloop.apiserver.internal.table;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Ingresses (kube's {@code printIngress}): CLASS ({@code <none>}), HOSTS (the first three rule hosts, {@code *}
 * when none, {@code + N more...}), ADDRESS (load-balancer IPs or host names, sorted, clipped to 16 characters
 * outside {@code -o wide}, which the server does not know about: kube clips too), PORTS ({@code 80} or
 * {@code 80, 443} with TLS), AGE.
 */
final class IngressPrinter implements Printer {

    private static final List<Column> COLUMNS = List.of(
            Column.NAME,
            Column.string(
                    "Class", "The name of the IngressClass resource that should be used for additional configuration"),
            Column.string("Hosts", "Hosts that incoming requests are matched against before the ingress rule"),
            Column.string("Address", "Address is a list containing ingress points for the load-balancer"),
            Column.string("Ports", "Ports of TLS configurations that open"),
            Column.AGE);

    @Override
    public List<Column> columns() {
        return COLUMNS;
    }

    @Override
    public Row row(ObjectNode ingress, Instant now) {
        JsonNode spec = ingress.path("spec");
        String className = spec.path("ingressClassName").isString()
                ? spec.get("ingressClassName").asString()
                : "<none>";
        return Row.of(
                Fields.text(ingress.path("metadata").get("name")),
                className,
                hosts(spec.path("rules")),
                address(ingress.path("status").path("loadBalancer").path("ingress")),
                spec.path("tls").isEmpty() ? "80" : "80, 443",
                Ages.of(ingress, now));
    }

    /** kube's {@code formatHosts}. */
    private static String hosts(JsonNode rules) {
        List<String> list = new ArrayList<>();
        int max = 3;
        boolean more = false;
        for (JsonNode rule : rules) {
            if (list.size() == max) {
                more = true;
            }
            String host = Fields.text(rule.get("host"));
            if (!more && !host.isEmpty()) {
                list.add(host);
            }
        }
        if (list.isEmpty()) {
            return "*";
        }
        String joined = String.join(",", list);
        return more ? joined + " + " + (rules.size() - max) + " more..." : joined;
    }

    /** kube's {@code ingressLoadBalancerStatusStringer} (wide). */
    private static String address(JsonNode ingress) {
        TreeSet<String> result = new TreeSet<>();
        for (JsonNode i : ingress) {
            String ip = Fields.text(i.get("ip"));
            String hostname = Fields.text(i.get("hostname"));
            if (!ip.isEmpty()) {
                result.add(ip);
            } else if (!hostname.isEmpty()) {
                result.add(hostname);
            }
        }
        return String.join(",", result);
    }
}
