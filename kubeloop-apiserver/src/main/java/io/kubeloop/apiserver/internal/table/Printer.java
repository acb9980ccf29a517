package io.kubeloop.apiserver.internal.table;

import java.time.Instant;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/** The table form of one kind: its columns and, for each object, a row with one cell per column. */
interface Printer {

    List<Column> columns();

    /** The row of {@code object} as of {@code now} (for ages); never fails on missing fields. */
    Row row(ObjectNode object, Instant now);
}
