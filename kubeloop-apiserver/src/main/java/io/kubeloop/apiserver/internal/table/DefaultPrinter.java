package io.kubeloop.apiserver.internal.table;

import io.kubeloop.model.Timestamps;
import java.time.Instant;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/**
 * Kinds without a printer: kube-apiserver's default table convertor, NAME and CREATED AT (a {@code date} column
 * whose cell is the creation time in RFC 3339, UTC; Go's zero time when unset).
 */
final class DefaultPrinter implements Printer {

    private static final String ZERO_TIME = "0001-01-01T00:00:00Z";

    private static final List<Column> COLUMNS =
            List.of(Column.NAME, new Column("Created At", "date", "", Descriptions.CREATION_TIMESTAMP, 0));

    @Override
    public List<Column> columns() {
        return COLUMNS;
    }

    @Override
    public Row row(ObjectNode object, Instant now) {
        Instant created = Fields.time(object.path("metadata").get("creationTimestamp"));
        return Row.of(
                Fields.text(object.path("metadata").get("name")),
                created == null ? ZERO_TIME : Timestamps.format(created));
    }
}
