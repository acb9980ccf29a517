package io.kubeloop.apiserver.internal.registry;

import io.kubeloop.model.Statuses.FieldError;
import java.math.BigDecimal;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * The {@code field.Error} constructors and small value checks the batch, networking, policy, autoscaling,
 * storage and discovery strategies share, with kube's wording ({@code Required value}, {@code Invalid value:
 * "x": must be ...}, {@code Unsupported value: "x": supported values: "a", "b"}). Values are printed as Go
 * prints them for strings and numbers; structs are printed as their JSON (kube prints a Go struct literal).
 */
final class FieldChecks {

    private FieldChecks() {}

    static FieldError required(String path, String detail) {
        return new FieldError("Required value", path, detail);
    }

    static FieldError forbidden(String path, String detail) {
        return new FieldError("Forbidden", path, detail);
    }

    static FieldError invalid(String path, Object value, String detail) {
        return new FieldError("Invalid value", path, render(value) + ": " + detail);
    }

    /** An Invalid value already printed as Go prints it ({@code []networking.IngressRule(nil)}). */
    static FieldError invalidGo(String path, String goValue, String detail) {
        return new FieldError("Invalid value", path, goValue + ": " + detail);
    }

    static FieldError notSupported(String path, Object value, List<String> supported) {
        StringBuilder sb = new StringBuilder(render(value)).append(": supported values: ");
        for (int i = 0; i < supported.size(); i++) {
            sb.append(i == 0 ? "" : ", ").append('"').append(supported.get(i)).append('"');
        }
        return new FieldError("Unsupported value", path, sb.toString());
    }

    /** {@code ValidateImmutableField}: {@code Invalid value: <new>: field is immutable}. */
    static void immutable(List<FieldError> errors, String path, JsonNode next, JsonNode current) {
        if (!same(next, current)) {
            errors.add(invalid(path, next == null ? "null" : next, "field is immutable"));
        }
    }

    /** Equal as Go's semantic DeepEqual sees it: absent and null are the same. */
    static boolean same(JsonNode a, JsonNode b) {
        boolean aMissing = a == null || a.isNull() || a.isMissingNode();
        boolean bMissing = b == null || b.isNull() || b.isMissingNode();
        if (aMissing || bMissing) {
            return aMissing == bMissing;
        }
        return a.equals(b);
    }

    /** {@code ValidateNonnegativeField} for an integer field that is present. */
    static void nonNegative(List<FieldError> errors, JsonNode parent, String field, String path) {
        JsonNode v = parent.get(field);
        if (v != null && v.isNumber() && v.asLong() < 0) {
            errors.add(invalid(path, v.asLong(), "must be greater than or equal to 0"));
        }
    }

    /** A present integer field that must be greater than zero ({@code ValidatePositiveField}'s wording). */
    static void positive(List<FieldError> errors, JsonNode parent, String field, String path) {
        JsonNode v = parent.get(field);
        if (v != null && v.isNumber() && v.asLong() <= 0) {
            errors.add(invalid(path, v.asLong(), "must be greater than 0"));
        }
    }

    /** A string field's value, or "" when absent, null or not a string. */
    static String text(JsonNode node) {
        return node != null && node.isString() ? node.asString() : "";
    }

    private static String render(Object value) {
        if (value instanceof JsonNode node) {
            if (node.isString()) {
                return quote(node.asString());
            }
            return node.toString();
        }
        if (value instanceof String s) {
            return quote(s);
        }
        return String.valueOf(value);
    }

    private static String quote(String s) {
        return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }

    private static final Pattern QUANTITY =
            Pattern.compile("^([+-]?[0-9]*\\.?[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$");

    /**
     * A resource.Quantity's value ({@code 1Gi}, {@code 500m}, {@code 1e3}), or null when it does not parse. Enough
     * to compare sizes and to test for zero; the type checker rejects quantities that do not parse.
     */
    static BigDecimal quantity(String text) {
        Matcher m = QUANTITY.matcher(text.trim());
        if (!m.matches()) {
            return null;
        }
        BigDecimal number = new BigDecimal(m.group(1));
        String suffix = m.group(2) == null ? "" : m.group(2);
        BigDecimal factor =
                switch (suffix) {
                    case "" -> BigDecimal.ONE;
                    case "Ki" -> BigDecimal.valueOf(1L << 10);
                    case "Mi" -> BigDecimal.valueOf(1L << 20);
                    case "Gi" -> BigDecimal.valueOf(1L << 30);
                    case "Ti" -> BigDecimal.valueOf(1L << 40);
                    case "Pi" -> BigDecimal.valueOf(1L << 50);
                    case "Ei" -> BigDecimal.valueOf(1L << 60);
                    case "m" -> new BigDecimal("0.001");
                    case "k" -> BigDecimal.TEN.pow(3);
                    case "M" -> BigDecimal.TEN.pow(6);
                    case "G" -> BigDecimal.TEN.pow(9);
                    case "T" -> BigDecimal.TEN.pow(12);
                    case "P" -> BigDecimal.TEN.pow(15);
                    case "E" -> BigDecimal.TEN.pow(18);
                    default -> {
                        int exponent = Integer.parseInt(suffix.substring(1).replace("+", ""));
                        if (Math.abs(exponent) > 64) {
                            yield null; // far outside what a quantity may hold (kube caps at 2^63-1)
                        }
                        yield BigDecimal.TEN.pow(exponent, java.math.MathContext.DECIMAL64);
                    }
                };
        if (factor == null) {
            return null;
        }
        return number.multiply(factor);
    }
}
