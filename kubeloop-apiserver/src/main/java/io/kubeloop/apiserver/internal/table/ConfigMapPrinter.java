package io.kubeloop.apiserver.internal.table;

import java.time.Instant;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/** ConfigMaps: DATA (the number of {@code data} plus {@code binaryData} keys), AGE. */
final class ConfigMapPrinter implements Printer {

    private static final List<Column> COLUMNS =
            List.of(Column.NAME, Column.string("Data", Descriptions.CONFIGMAP_DATA), Column.AGE);

    @Override
    public List<Column> columns() {
        return COLUMNS;
    }

    @Override
    public Row row(ObjectNode configMap, Instant now) {
        long keys = (long) configMap.path("data").size()
                + configMap.path("binaryData").size();
        return Row.of(Fields.text(configMap.path("metadata").get("name")), keys, Ages.of(configMap, now));
    }
}
