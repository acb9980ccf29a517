package io.kubeloop.apiserver.internal.registry;

import io.kubeloop.model.Statuses;

/**
 * The {@code fieldValidation} parameter of a write: what to do with unknown and duplicate fields. kube's
 * default, when the parameter is absent, is {@link #WARN}; kubectl sends {@code Strict}.
 */
public enum FieldValidation {
    /** Unknown fields are dropped silently, duplicate keys keep the last value. */
    IGNORE,
    /** As {@link #IGNORE}, with one {@code Warning} header per unknown or duplicate field. */
    WARN,
    /** An unknown or duplicate field is a 400 BadRequest naming every one. */
    STRICT;

    /** The value of the query parameter (null or empty: {@link #WARN}); any other value is a 400 as kube's. */
    public static FieldValidation parse(String value) {
        if (value == null || value.isEmpty()) {
            return WARN;
        }
        return switch (value) {
            case "Ignore" -> IGNORE;
            case "Warn" -> WARN;
            case "Strict" -> STRICT;
            default ->
                throw new AdmissionException(Statuses.badRequest("fieldValidation must be one of \"Ignore\", "
                        + "\"Warn\", or \"Strict\", got \"" + value + "\""));
        };
    }
}
