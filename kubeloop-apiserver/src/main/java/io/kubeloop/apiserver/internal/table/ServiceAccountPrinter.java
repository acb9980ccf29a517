package io.kubeloop.apiserver.internal.table;

import java.time.Instant;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/** ServiceAccounts: SECRETS (the number of {@code secrets} references), AGE. */
final class ServiceAccountPrinter implements Printer {

    private static final List<Column> COLUMNS =
            List.of(Column.NAME, Column.string("Secrets", Descriptions.SA_SECRETS), Column.AGE);

    @Override
    public List<Column> columns() {
        return COLUMNS;
    }

    @Override
    public Row row(ObjectNode account, Instant now) {
        return Row.of(
                Fields.text(account.path("metadata").get("name")),
                (long) account.path("secrets").size(),
                Ages.of(account, now));
    }
}
