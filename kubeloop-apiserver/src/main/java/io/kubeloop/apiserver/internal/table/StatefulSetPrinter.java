package io.kubeloop.apiserver.internal.table;

import java.time.Instant;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/** StatefulSets: READY {@code ready/desired}, AGE; wide: containers, images. */
final class StatefulSetPrinter implements Printer {

    private static final List<Column> COLUMNS = List.of(
            Column.NAME,
            Column.string("Ready", Descriptions.READY_PODS),
            Column.AGE,
            Column.containers(),
            Column.images());

    @Override
    public List<Column> columns() {
        return COLUMNS;
    }

    @Override
    public Row row(ObjectNode statefulSet, Instant now) {
        ContainerCells containers = ContainerCells.ofTemplate(statefulSet);
        return Row.of(
                Fields.text(statefulSet.path("metadata").get("name")),
                Fields.integer(statefulSet.path("status").get("readyReplicas")) + "/" + Replicas.desired(statefulSet),
                Ages.of(statefulSet, now),
                containers.names(),
                containers.images());
    }
}
