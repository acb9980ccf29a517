package io.kubeloop.apiserver.internal.table;

import java.time.Instant;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/** The {@code autoscaling/v1 Scale} of a {@code /scale} subresource: DESIRED, AVAILABLE, AGE. */
final class ScalePrinter implements Printer {

    private static final List<Column> COLUMNS = List.of(
            new Column("Name", "string", "", Descriptions.NAME, 0),
            Column.integer("Desired", Descriptions.SCALE_DESIRED),
            Column.integer("Available", Descriptions.SCALE_AVAILABLE),
            Column.AGE);

    @Override
    public List<Column> columns() {
        return COLUMNS;
    }

    @Override
    public Row row(ObjectNode scale, Instant now) {
        return Row.of(
                Fields.text(scale.path("metadata").get("name")),
                Fields.integer(scale.path("spec").get("replicas")),
                Fields.integer(scale.path("status").get("replicas")),
                Ages.of(scale, now));
    }
}
