package io.kubeloop.apiserver.internal.table;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Nodes: STATUS from the Ready condition ({@code Ready}, {@code NotReady}, {@code Unknown}, plus
 * {@code SchedulingDisabled} when cordoned), ROLES from {@code node-role.kubernetes.io/<role>} and
 * {@code kubernetes.io/role} labels, AGE, VERSION; wide: addresses, OS image, kernel and container runtime.
 */
final class NodePrinter implements Printer {

    private static final String ROLE_PREFIX = "node-role.kubernetes.io/";
    private static final String ROLE_LABEL = "kubernetes.io/role";

    private static final List<Column> COLUMNS = List.of(
            Column.NAME,
            Column.string("Status", "The status of the node"),
            Column.string("Roles", "The roles of the node"),
            Column.AGE,
            Column.string("Version", Descriptions.KUBELET_VERSION),
            Column.wide("Internal-IP", Descriptions.NODE_ADDRESSES),
            Column.wide("External-IP", Descriptions.NODE_ADDRESSES),
            Column.wide("OS-Image", Descriptions.OS_IMAGE),
            Column.wide("Kernel-Version", Descriptions.KERNEL_VERSION),
            Column.wide("Container-Runtime", Descriptions.CONTAINER_RUNTIME));

    @Override
    public List<Column> columns() {
        return COLUMNS;
    }

    @Override
    public Row row(ObjectNode node, Instant now) {
        JsonNode status = node.path("status");
        JsonNode ready = null;
        for (JsonNode condition : status.path("conditions")) {
            if (Fields.text(condition.get("type")).equals("Ready")) {
                ready = condition; // the last one wins, as in the printer's map
            }
        }
        List<String> states = new ArrayList<>();
        if (ready == null) {
            states.add("Unknown");
        } else {
            states.add(Fields.text(ready.get("status")).equals("True") ? "Ready" : "NotReady");
        }
        if (Fields.bool(node.path("spec").get("unschedulable"))) {
            states.add("SchedulingDisabled");
        }
        String roles = String.join(",", roles(node.path("metadata").path("labels")));
        JsonNode info = status.path("nodeInfo");
        return Row.of(
                Fields.text(node.path("metadata").get("name")),
                String.join(",", states),
                roles.isEmpty() ? "<none>" : roles,
                Ages.of(node, now),
                Fields.text(info.get("kubeletVersion")),
                address(status, "InternalIP"),
                address(status, "ExternalIP"),
                orUnknown(Fields.text(info.get("osImage"))),
                orUnknown(Fields.text(info.get("kernelVersion"))),
                orUnknown(Fields.text(info.get("containerRuntimeVersion"))));
    }

    private static TreeSet<String> roles(JsonNode labels) {
        TreeSet<String> roles = new TreeSet<>();
        if (labels.isObject()) {
            for (Map.Entry<String, JsonNode> e : labels.properties()) {
                String key = e.getKey();
                String value = Fields.text(e.getValue());
                if (key.startsWith(ROLE_PREFIX)) {
                    String role = key.substring(ROLE_PREFIX.length());
                    if (!role.isEmpty()) {
                        roles.add(role);
                    }
                } else if (key.equals(ROLE_LABEL) && !value.isEmpty()) {
                    roles.add(value);
                }
            }
        }
        return roles;
    }

    private static String address(JsonNode status, String type) {
        for (JsonNode address : status.path("addresses")) {
            if (Fields.text(address.get("type")).equals(type)) {
                return Fields.text(address.get("address"));
            }
        }
        return "<none>";
    }

    private static String orUnknown(String value) {
        return value.isEmpty() ? "<unknown>" : value;
    }
}
