package io.kubeloop.apiserver.internal.table;

import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Secrets: TYPE ({@code Opaque} when unset, the API default), DATA (the number of keys; {@code stringData}
 * keys count too, as kube-apiserver merges them into {@code data}), AGE.
 */
final class SecretPrinter implements Printer {

    private static final List<Column> COLUMNS = List.of(
            Column.NAME,
            Column.string("Type", Descriptions.SECRET_TYPE),
            Column.string("Data", Descriptions.SECRET_DATA),
            Column.AGE);

    @Override
    public List<Column> columns() {
        return COLUMNS;
    }

    @Override
    public Row row(ObjectNode secret, Instant now) {
        String type = Fields.text(secret.get("type"));
        Set<String> keys = new HashSet<>();
        for (String field : List.of("data", "stringData")) {
            JsonNode map = secret.path(field);
            if (map.isObject()) {
                map.properties().forEach(e -> keys.add(e.getKey()));
            }
        }
        return Row.of(
                Fields.text(secret.path("metadata").get("name")),
                type.isEmpty() ? "Opaque" : type,
                (long) keys.size(),
                Ages.of(secret, now));
    }
}
