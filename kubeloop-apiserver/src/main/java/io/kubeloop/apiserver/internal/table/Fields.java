package io.kubeloop.apiserver.internal.table;

import io.kubeloop.model.Timestamps;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import tools.jackson.databind.JsonNode;

/**
 * Lenient reads of object fields, with Go's zero values for what is absent: printers work on stored JSON, not on
 * typed structs, and must never fail on a missing or oddly typed field.
 */
final class Fields {

    private Fields() {}

    /** A string field, or "" when absent, null or not a scalar. */
    static String text(JsonNode node) {
        return node == null || !node.isValueNode() || node.isNull() ? "" : node.asString();
    }

    /** An integer field, or 0. */
    static long integer(JsonNode node) {
        return node != null && node.isNumber() ? node.asLong() : 0;
    }

    static boolean bool(JsonNode node) {
        return node != null && node.isBoolean() && node.asBoolean();
    }

    /** A field that Go would decode into a non-nil pointer to a struct: present as a JSON object. */
    static boolean isSet(JsonNode node) {
        return node != null && node.isObject();
    }

    /** A metav1.Time / MicroTime, or null for the zero time (absent, null, empty or unparseable). */
    static Instant time(JsonNode node) {
        String value = text(node);
        if (value.isEmpty()) {
            return null;
        }
        try {
            return Timestamps.parse(value);
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
