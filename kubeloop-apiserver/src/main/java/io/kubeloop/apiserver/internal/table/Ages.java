package io.kubeloop.apiserver.internal.table;

import java.time.Duration;
import java.time.Instant;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** The printers' {@code translateTimestampSince}: how long ago a timestamp was, or {@code <unknown>}. */
final class Ages {

    private Ages() {}

    static String since(Instant time, Instant now) {
        return time == null ? "<unknown>" : HumanDuration.format(Duration.between(time, now));
    }

    static String since(JsonNode timestamp, Instant now) {
        return since(Fields.time(timestamp), now);
    }

    /** The AGE cell: time since {@code metadata.creationTimestamp}. */
    static String of(ObjectNode object, Instant now) {
        return since(object.path("metadata").path("creationTimestamp"), now);
    }
}
