package io.kubeloop.apiserver.internal.table;

import io.kubeloop.clock.Clock;
import io.kubeloop.model.ResourceType;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Turns list and get responses and watch event objects into {@code meta.k8s.io} Tables, as kube-apiserver does
 * for {@code Accept: application/json;as=Table;v=v1;g=meta.k8s.io}:
 *
 * <pre>{@code
 * {"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"107"},
 *  "columnDefinitions":[{"name":"Name","type":"string","format":"name","description":"...","priority":0}, ...],
 *  "rows":[{"cells":["web-1","1/1","Running","0","5m", ...],
 *           "object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{...}}}]}
 * }</pre>
 *
 * <p>Every column is always sent (the server renders "wide"); kubectl hides priority 1 columns unless
 * {@code -o wide}. Ages are computed from the server's {@link Clock}. Input objects are only read, never changed;
 * the returned Table may share subtrees with them, so it must be written out before they could change.
 */
public final class Tables {

    private final JsonMapper json;
    private final Clock clock;
    private final Function<ResourceType, List<PrinterColumn>> customColumns;

    public Tables(JsonMapper json, Clock clock) {
        this(json, clock, type -> null);
    }

    /**
     * Tables whose custom resources get {@code customColumns(type)}: the printer columns of a custom resource
     * version (empty for none declared: an Age column), or null for a type that is not a custom resource.
     */
    public Tables(JsonMapper json, Clock clock, Function<ResourceType, List<PrinterColumn>> customColumns) {
        this.json = Objects.requireNonNull(json, "json");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.customColumns = Objects.requireNonNull(customColumns, "customColumns");
    }

    private Printer printer(ResourceType type, ObjectNode object) {
        if (object != null && Printers.forObject(type, object) != Printers.forType(type)) {
            return Printers.forObject(type, object); // a /scale
        }
        List<PrinterColumn> custom = customColumns.apply(type);
        return custom == null ? Printers.forType(type) : new ColumnPrinter(custom);
    }

    /**
     * The Table of a list response: {@code list} is the list body ({@code metadata} with resourceVersion,
     * continue and remainingItemCount, and {@code items}, which may omit apiVersion and kind).
     */
    public ObjectNode ofList(ResourceType type, ObjectNode list, TableOptions options) {
        Printer printer = printer(type, null);
        ObjectNode table = start(options);
        ObjectNode meta = table.putObject("metadata");
        JsonNode listMeta = list.path("metadata");
        for (String field : new String[] {"resourceVersion", "continue", "remainingItemCount"}) {
            if (listMeta.has(field)) {
                meta.set(field, listMeta.get(field));
            }
        }
        columns(table, printer);
        ArrayNode rows = table.putArray("rows");
        Instant now = clock.now();
        for (JsonNode item : list.path("items")) {
            rows.add(row(type, printer, (ObjectNode) item, options, now));
        }
        return table;
    }

    /**
     * The one-row Table of a single object; {@code headers} false leaves {@code columnDefinitions} null, as
     * kube-apiserver does on every watch event after the first.
     */
    public ObjectNode ofObject(ResourceType type, ObjectNode object, TableOptions options, boolean headers) {
        Printer printer = printer(type, object);
        ObjectNode table = start(options);
        ObjectNode meta = table.putObject("metadata");
        JsonNode rv = object.path("metadata").get("resourceVersion");
        if (rv != null && !Fields.text(rv).isEmpty()) {
            meta.put("resourceVersion", Fields.text(rv));
        }
        if (headers) {
            columns(table, printer);
        } else {
            table.putNull("columnDefinitions");
        }
        table.putArray("rows").add(row(type, printer, object, options, clock.now()));
        return table;
    }

    /**
     * The event object transformer of one watch: each object becomes a one-row Table, with
     * {@code columnDefinitions} on the first event only. Status objects (ERROR events) pass through unchanged,
     * though they still count as the first event. Use one per watch stream, from one thread.
     */
    public UnaryOperator<ObjectNode> forWatch(ResourceType type, TableOptions options) {
        AtomicBoolean first = new AtomicBoolean(true);
        return object -> {
            boolean headers = first.getAndSet(false);
            if (Fields.text(object.get("kind")).equals("Status")
                    && Fields.text(object.get("apiVersion")).equals("v1")) {
                return object;
            }
            return ofObject(type, object, options, headers);
        };
    }

    private ObjectNode start(TableOptions options) {
        ObjectNode table = json.createObjectNode();
        table.put("kind", "Table");
        table.put("apiVersion", options.apiVersion());
        return table;
    }

    private static void columns(ObjectNode table, Printer printer) {
        ArrayNode columns = table.putArray("columnDefinitions");
        for (Column c : printer.columns()) {
            ObjectNode column = columns.addObject();
            column.put("name", c.name());
            column.put("type", c.type());
            column.put("format", c.format());
            column.put("description", c.description());
            column.put("priority", c.priority());
        }
    }

    private ObjectNode row(ResourceType type, Printer printer, ObjectNode object, TableOptions options, Instant now) {
        Row row = printer.row(object, now);
        ObjectNode node = json.createObjectNode();
        ArrayNode cells = node.putArray("cells");
        for (Object cell : row.cells()) {
            switch (cell) {
                case null -> cells.addNull();
                case String s -> cells.add(s);
                case Double d -> cells.add(d);
                case Long l -> cells.add(l);
                case Integer i -> cells.add(i);
                case Boolean b -> cells.add(b);
                default -> cells.add(String.valueOf(cell));
            }
        }
        if (!row.conditions().isEmpty()) {
            ArrayNode conditions = node.putArray("conditions");
            for (Row.Condition c : row.conditions()) {
                conditions
                        .addObject()
                        .put("type", c.type())
                        .put("status", c.status())
                        .put("reason", c.reason())
                        .put("message", c.message());
            }
        }
        switch (options.includeObject()) {
            case None -> node.putNull("object");
            case Metadata -> {
                ObjectNode partial = node.putObject("object");
                partial.put("kind", "PartialObjectMetadata");
                partial.put("apiVersion", options.apiVersion());
                JsonNode meta = object.get("metadata");
                partial.set("metadata", meta != null && meta.isObject() ? meta : json.createObjectNode());
            }
            case Object -> node.set("object", withTypeMeta(type, object));
        }
        return node;
    }

    /** The whole object with apiVersion and kind first (list items are stored without them). */
    private ObjectNode withTypeMeta(ResourceType type, ObjectNode object) {
        if (object.has("apiVersion") && object.has("kind")) {
            return object;
        }
        ObjectNode full = json.createObjectNode();
        full.put("kind", type.kind());
        full.put("apiVersion", type.gvk().apiVersion());
        for (Map.Entry<String, JsonNode> e : object.properties()) {
            if (!e.getKey().equals("kind") && !e.getKey().equals("apiVersion")) {
                full.set(e.getKey(), e.getValue());
            }
        }
        return full;
    }
}
