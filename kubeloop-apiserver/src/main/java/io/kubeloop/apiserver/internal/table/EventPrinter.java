package io.kubeloop.apiserver.internal.table;

import java.time.Instant;
import java.util.List;
import java.util.Locale;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Events, as {@code printEvent}: LAST SEEN, TYPE, REASON, OBJECT ({@code kind/name}, lower-cased kind),
 * MESSAGE; wide: SUBOBJECT, SOURCE, FIRST SEEN, COUNT, NAME. Serves both {@code v1} events and
 * {@code events.k8s.io/v1} events, whose fields kube-apiserver converts to the same internal event
 * ({@code regarding} is the involved object, {@code note} the message, {@code deprecated*} the old timestamps,
 * count and source).
 */
final class EventPrinter implements Printer {

    private static final List<Column> COLUMNS = List.of(
            Column.string("Last Seen", Descriptions.EVENT_LAST),
            Column.string("Type", Descriptions.EVENT_TYPE),
            Column.string("Reason", Descriptions.EVENT_REASON),
            Column.string("Object", Descriptions.EVENT_OBJECT),
            Column.wide("Subobject", Descriptions.EVENT_FIELD_PATH),
            Column.wide("Source", Descriptions.EVENT_SOURCE),
            Column.string("Message", Descriptions.EVENT_MESSAGE),
            Column.wide("First Seen", Descriptions.EVENT_FIRST),
            Column.wide("Count", Descriptions.EVENT_COUNT),
            new Column("Name", "string", "name", Descriptions.NAME, 1));

    private final boolean eventsApi;

    /** @param eventsApi true for {@code events.k8s.io/v1} field names, false for {@code v1} */
    EventPrinter(boolean eventsApi) {
        this.eventsApi = eventsApi;
    }

    @Override
    public List<Column> columns() {
        return COLUMNS;
    }

    @Override
    public Row row(ObjectNode event, Instant now) {
        JsonNode involved = event.path(eventsApi ? "regarding" : "involvedObject");
        JsonNode source = event.path(eventsApi ? "deprecatedSource" : "source");
        String message = Fields.text(event.get(eventsApi ? "note" : "message"));
        Instant first = Fields.time(event.get(eventsApi ? "deprecatedFirstTimestamp" : "firstTimestamp"));
        Instant last = Fields.time(event.get(eventsApi ? "deprecatedLastTimestamp" : "lastTimestamp"));
        long count = Fields.integer(event.get(eventsApi ? "deprecatedCount" : "count"));
        String reportingController = Fields.text(event.get(eventsApi ? "reportingController" : "reportingComponent"));
        String reportingInstance = Fields.text(event.get("reportingInstance"));

        String firstSeen = first != null ? Ages.since(first, now) : Ages.since(event.get("eventTime"), now);
        String lastSeen = last != null ? Ages.since(last, now) : firstSeen;
        JsonNode series = event.get("series");
        if (Fields.isSet(series)) {
            lastSeen = Ages.since(series.get("lastObservedTime"), now);
            count = Fields.integer(series.get("count"));
        } else if (count == 0) {
            count = 1; // singleton events have no count in the new API
        }

        String kind = Fields.text(involved.get("kind")).toLowerCase(Locale.ROOT);
        String name = Fields.text(involved.get("name"));
        String target = name.isEmpty() ? kind : kind + "/" + name;

        String component = firstNonEmpty(Fields.text(source.get("component")), reportingController);
        String host = firstNonEmpty(Fields.text(source.get("host")), reportingInstance);
        return Row.of(
                lastSeen,
                Fields.text(event.get("type")),
                Fields.text(event.get("reason")),
                target,
                Fields.text(involved.get("fieldPath")),
                host.isEmpty() ? component : component + ", " + host,
                message.strip(),
                firstSeen,
                count,
                Fields.text(event.path("metadata").get("name")));
    }

    private static String firstNonEmpty(String a, String b) {
        return a.isEmpty() ? b : a;
    }
}
