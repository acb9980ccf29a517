package io.kubeloop.apiserver.internal.table;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * EndpointSlices (kube's {@code printEndpointSlice}): ADDRESSTYPE, PORTS and ENDPOINTS (the first three,
 * {@code + N more...}, {@code <unset>} when none), AGE.
 */
final class EndpointSlicePrinter implements Printer {

    private static final int MAX = 3;

    private static final List<Column> COLUMNS = List.of(
            Column.NAME,
            Column.string(
                    "AddressType",
                    "addressType specifies the type of address carried by this EndpointSlice. All addresses in "
                            + "this slice must be the same type. This field is immutable after creation. The "
                            + "following address types are currently supported: * IPv4: Represents an IPv4 "
                            + "Address. * IPv6: Represents an IPv6 Address. * FQDN: Represents a Fully Qualified "
                            + "Domain Name."),
            Column.string(
                    "Ports",
                    "ports specifies the list of network ports exposed by each endpoint in this slice. Each port "
                            + "must have a unique name. When ports is empty, it indicates that there are no defined "
                            + "ports. When a port is defined with a nil port value, it indicates \"all ports\". Each "
                            + "slice may include a maximum of 100 ports."),
            Column.string(
                    "Endpoints",
                    "endpoints is a list of unique endpoints in this slice. Each slice may include a maximum of "
                            + "1000 endpoints."),
            Column.AGE);

    @Override
    public List<Column> columns() {
        return COLUMNS;
    }

    @Override
    public Row row(ObjectNode slice, Instant now) {
        List<String> ports = new ArrayList<>();
        int portCount = 0;
        for (JsonNode port : slice.path("ports")) {
            if (ports.size() < MAX) {
                if (port.path("port").isNumber()) {
                    ports.add(Long.toString(port.get("port").asLong()));
                } else if (port.path("name").isString()) {
                    ports.add(port.get("name").asString());
                } else {
                    ports.add("*");
                }
            }
            portCount++;
        }
        List<String> addresses = new ArrayList<>();
        int addressCount = 0;
        for (JsonNode endpoint : slice.path("endpoints")) {
            for (JsonNode address : endpoint.path("addresses")) {
                if (addresses.size() < MAX) {
                    addresses.add(Fields.text(address));
                }
                addressCount++;
            }
        }
        return Row.of(
                Fields.text(slice.path("metadata").get("name")),
                Fields.text(slice.get("addressType")),
                withMore(ports, portCount),
                withMore(addresses, addressCount),
                Ages.of(slice, now));
    }

    /** kube's {@code listWithMoreString}. */
    private static String withMore(List<String> list, int count) {
        String joined = String.join(",", list);
        if (count > MAX) {
            return joined + " + " + (count - MAX) + " more...";
        }
        return joined.isEmpty() ? "<unset>" : joined;
    }
}
