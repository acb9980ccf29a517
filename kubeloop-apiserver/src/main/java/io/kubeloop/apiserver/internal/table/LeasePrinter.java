package io.kubeloop.apiserver.internal.table;

import java.time.Instant;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/** Leases: HOLDER ({@code spec.holderIdentity}, empty when free), AGE. */
final class LeasePrinter implements Printer {

    private static final List<Column> COLUMNS =
            List.of(Column.NAME, Column.string("Holder", Descriptions.LEASE_HOLDER), Column.AGE);

    @Override
    public List<Column> columns() {
        return COLUMNS;
    }

    @Override
    public Row row(ObjectNode lease, Instant now) {
        return Row.of(
                Fields.text(lease.path("metadata").get("name")),
                Fields.text(lease.path("spec").get("holderIdentity")),
                Ages.of(lease, now));
    }
}
