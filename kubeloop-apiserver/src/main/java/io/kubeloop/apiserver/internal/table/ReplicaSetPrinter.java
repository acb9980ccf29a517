package io.kubeloop.apiserver.internal.table;

import java.time.Instant;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** ReplicaSets: DESIRED, CURRENT, READY, AGE; wide: containers, images, selector. */
final class ReplicaSetPrinter implements Printer {

    private static final List<Column> COLUMNS = List.of(
            Column.NAME,
            Column.integer("Desired", Descriptions.REPLICAS_DESIRED),
            Column.integer("Current", Descriptions.REPLICAS_CURRENT),
            Column.integer("Ready", Descriptions.REPLICAS_READY),
            Column.AGE,
            Column.containers(),
            Column.images(),
            Column.wide("Selector", Descriptions.SELECTOR));

    @Override
    public List<Column> columns() {
        return COLUMNS;
    }

    @Override
    public Row row(ObjectNode replicaSet, Instant now) {
        JsonNode status = replicaSet.path("status");
        ContainerCells containers = ContainerCells.ofTemplate(replicaSet);
        return Row.of(
                Fields.text(replicaSet.path("metadata").get("name")),
                Replicas.desired(replicaSet),
                Fields.integer(status.get("replicas")),
                Fields.integer(status.get("readyReplicas")),
                Ages.of(replicaSet, now),
                containers.names(),
                containers.images(),
                Labels.formatSelector(replicaSet.path("spec").get("selector")));
    }
}
