package io.kubeloop.apiserver.internal.table;

import java.time.Instant;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * DaemonSets: DESIRED, CURRENT, READY, UP-TO-DATE, AVAILABLE, NODE SELECTOR, AGE; wide: containers, images,
 * selector.
 */
final class DaemonSetPrinter implements Printer {

    private static final List<Column> COLUMNS = List.of(
            Column.NAME,
            Column.integer("Desired", Descriptions.DS_DESIRED),
            Column.integer("Current", Descriptions.DS_CURRENT),
            Column.integer("Ready", Descriptions.DS_READY),
            Column.integer("Up-to-date", Descriptions.DS_UPDATED),
            Column.integer("Available", Descriptions.DS_AVAILABLE),
            Column.string("Node Selector", Descriptions.NODE_SELECTOR),
            Column.AGE,
            Column.containers(),
            Column.images(),
            Column.wide("Selector", Descriptions.DS_SELECTOR));

    @Override
    public List<Column> columns() {
        return COLUMNS;
    }

    @Override
    public Row row(ObjectNode daemonSet, Instant now) {
        JsonNode status = daemonSet.path("status");
        ContainerCells containers = ContainerCells.ofTemplate(daemonSet);
        return Row.of(
                Fields.text(daemonSet.path("metadata").get("name")),
                Fields.integer(status.get("desiredNumberScheduled")),
                Fields.integer(status.get("currentNumberScheduled")),
                Fields.integer(status.get("numberReady")),
                Fields.integer(status.get("updatedNumberScheduled")),
                Fields.integer(status.get("numberAvailable")),
                Labels.format(
                        daemonSet.path("spec").path("template").path("spec").get("nodeSelector")),
                Ages.of(daemonSet, now),
                containers.names(),
                containers.images(),
                Labels.formatSelector(daemonSet.path("spec").get("selector")));
    }
}
