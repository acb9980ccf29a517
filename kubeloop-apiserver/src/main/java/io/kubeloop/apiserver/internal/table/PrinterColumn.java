package io.kubeloop.apiserver.internal.table;

import java.util.Objects;
import java.util.Set;

/**
 * One {@code additionalPrinterColumns} entry of a CustomResourceDefinition version: a column whose cells are
 * what {@code jsonPath} finds in each object, rendered as {@code type} (string, integer, number, boolean or
 * date; a date cell shows the age, as kube-apiserver renders it).
 */
public record PrinterColumn(
        String name, String type, String format, String description, int priority, String jsonPath) {

    /** The column types kube-apiserver accepts. */
    public static final Set<String> TYPES = Set.of("string", "integer", "number", "boolean", "date");

    public PrinterColumn {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(jsonPath, "jsonPath");
        format = format == null ? "" : format;
        description = description == null ? "" : description;
    }

    /** Why {@code jsonPath} cannot be used for a column, or null when it can. */
    public static String jsonPathError(String jsonPath) {
        try {
            JsonPath.parse(jsonPath);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }
}
