package io.kubeloop.apiserver.internal.table;

import java.time.Instant;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/** Namespaces: STATUS (the phase; {@code Active}, the value kube-apiserver sets on create, when unset), AGE. */
final class NamespacePrinter implements Printer {

    private static final List<Column> COLUMNS =
            List.of(Column.NAME, Column.string("Status", "The status of the namespace"), Column.AGE);

    @Override
    public List<Column> columns() {
        return COLUMNS;
    }

    @Override
    public Row row(ObjectNode namespace, Instant now) {
        String phase = Fields.text(namespace.path("status").get("phase"));
        return Row.of(
                Fields.text(namespace.path("metadata").get("name")),
                phase.isEmpty() ? "Active" : phase,
                Ages.of(namespace, now));
    }
}
