package io.kubeloop.apiserver.internal.table;

import java.time.Instant;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** Objects for printer tests, written as JSON; "now" is 2026-01-01T01:00:00Z. */
final class TestObjects {

    static final JsonMapper JSON = JsonMapper.builder().build();
    static final Instant NOW = Instant.parse("2026-01-01T01:00:00Z");
    /** A creationTimestamp five minutes before {@link #NOW}. */
    static final String FIVE_MINUTES_AGO = "2026-01-01T00:55:00Z";

    private TestObjects() {}

    static ObjectNode parse(String json) {
        return (ObjectNode) JSON.readTree(json);
    }

    /** An object with a name, created five minutes ago, and the given top-level fields (a JSON fragment). */
    static ObjectNode object(String name, String fields) {
        return parse("{\"metadata\":{\"name\":\"" + name + "\",\"namespace\":\"default\",\"creationTimestamp\":\""
                + FIVE_MINUTES_AGO + "\"}" + (fields.isBlank() ? "" : "," + fields) + "}");
    }
}
