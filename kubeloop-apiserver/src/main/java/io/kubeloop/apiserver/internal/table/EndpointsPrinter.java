package io.kubeloop.apiserver.internal.table;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** Endpoints: the first three {@code ip:port} pairs ({@code + N more...}), or {@code <none>}; AGE. */
final class EndpointsPrinter implements Printer {

    private static final int MAX = 3;

    private static final List<Column> COLUMNS =
            List.of(Column.NAME, Column.string("Endpoints", Descriptions.ENDPOINT_SUBSETS), Column.AGE);

    @Override
    public List<Column> columns() {
        return COLUMNS;
    }

    @Override
    public Row row(ObjectNode endpoints, Instant now) {
        return Row.of(
                Fields.text(endpoints.path("metadata").get("name")),
                format(endpoints.path("subsets")),
                Ages.of(endpoints, now));
    }

    /** The printers' {@code formatEndpoints} with all ports. */
    static String format(JsonNode subsets) {
        if (subsets.isEmpty()) {
            return "<none>";
        }
        List<String> list = new ArrayList<>();
        boolean more = false;
        int count = 0;
        for (JsonNode subset : subsets) {
            JsonNode addresses = subset.path("addresses");
            JsonNode ports = subset.path("ports");
            if (ports.isEmpty()) {
                // headless services may have no ports
                count += addresses.size();
                for (JsonNode address : addresses) {
                    if (list.size() == MAX) {
                        more = true;
                        break;
                    }
                    list.add(Fields.text(address.get("ip")));
                }
                continue;
            }
            for (JsonNode port : ports) {
                count += addresses.size();
                for (JsonNode address : addresses) {
                    if (list.size() == MAX) {
                        more = true;
                        break;
                    }
                    list.add(joinHostPort(Fields.text(address.get("ip")), Fields.integer(port.get("port"))));
                }
            }
        }
        String joined = String.join(",", list);
        return more ? joined + " + " + (count - MAX) + " more..." : joined;
    }

    /** Go's {@code net.JoinHostPort}: IPv6 hosts in brackets. */
    private static String joinHostPort(String host, long port) {
        return host.contains(":") ? "[" + host + "]:" + port : host + ":" + port;
    }
}
