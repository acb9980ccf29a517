package io.kubeloop.apiserver.internal.table;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The printer of a custom resource version, as kube-apiserver's CRD table convertor: Name first, then the
 * version's {@code additionalPrinterColumns}, or an Age column when it declares none. A cell is the first
 * value its JSONPath finds, converted to the column's type; a missing or mistyped value is a null cell
 * (kubectl shows an empty cell).
 */
final class ColumnPrinter implements Printer {

    /** The column a CRD version without printer columns gets. */
    static final PrinterColumn AGE =
            new PrinterColumn("Age", "date", "", Descriptions.CREATION_TIMESTAMP, 0, ".metadata.creationTimestamp");

    private final List<Column> columns;
    private final List<PrinterColumn> custom;
    private final List<JsonPath> paths;

    ColumnPrinter(List<PrinterColumn> declared) {
        this.custom = declared.isEmpty() ? List.of(AGE) : List.copyOf(declared);
        List<Column> cols = new ArrayList<>();
        cols.add(Column.NAME);
        List<JsonPath> ps = new ArrayList<>();
        for (PrinterColumn c : custom) {
            cols.add(new Column(c.name(), c.type(), c.format(), c.description(), c.priority()));
            ps.add(JsonPath.parse(c.jsonPath()));
        }
        this.columns = List.copyOf(cols);
        this.paths = List.copyOf(ps);
    }

    @Override
    public List<Column> columns() {
        return columns;
    }

    @Override
    public Row row(ObjectNode object, Instant now) {
        List<Object> cells = new ArrayList<>(columns.size());
        cells.add(Fields.text(object.path("metadata").get("name")));
        for (int i = 0; i < custom.size(); i++) {
            List<JsonNode> found = paths.get(i).find(object);
            cells.add(found.isEmpty() ? null : cell(custom.get(i).type(), found.get(0), now));
        }
        return new Row(java.util.Collections.unmodifiableList(cells), List.of());
    }

    private static Object cell(String type, JsonNode value, Instant now) {
        if (value == null || value.isNull()) {
            return null;
        }
        return switch (type) {
            case "integer" -> value.isNumber() ? (Object) value.asLong() : null;
            case "number" -> value.isNumber() ? (Object) value.asDouble() : null;
            case "boolean" -> value.isBoolean() ? (Object) value.asBoolean() : null;
            case "date" -> {
                if (!value.isString()) {
                    yield null;
                }
                Instant t = Fields.time(value);
                yield t == null && !value.asString().isEmpty() ? "<invalid>" : Ages.since(t, now);
            }
            default -> value.isValueNode() ? value.asString() : value.toString();
        };
    }
}
