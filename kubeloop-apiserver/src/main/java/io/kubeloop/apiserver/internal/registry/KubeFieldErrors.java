package io.kubeloop.apiserver.internal.registry;

import io.kubeloop.model.Statuses.FieldError;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;

/**
 * kube's {@code field.Error} constructors ({@code field.Required}, {@code field.Invalid}, {@code
 * field.NotSupported}...) with the bad value printed as kube-apiserver prints it: strings Go-quoted ({@code
 * "x"}), numbers bare, label maps and selectors as Go's {@code %#v} ({@code map[string]string{"app":"x"}}).
 */
final class KubeFieldErrors {

    private KubeFieldErrors() {}

    static FieldError required(String path) {
        return new FieldError("Required value", path, "");
    }

    static FieldError required(String path, String detail) {
        return new FieldError("Required value", path, detail);
    }

    static FieldError forbidden(String path, String detail) {
        return new FieldError("Forbidden", path, detail);
    }

    /** {@code Invalid value: "x": detail}; {@code value} is a string, a number or an already rendered Go value. */
    static FieldError invalid(String path, Object value, String detail) {
        return new FieldError("Invalid value", path, render(value) + (detail.isEmpty() ? "" : ": " + detail));
    }

    static FieldError duplicate(String path, Object value) {
        return new FieldError("Duplicate value", path, render(value));
    }

    static FieldError notFound(String path, Object value) {
        return new FieldError("Not found", path, render(value));
    }

    /** {@code Unsupported value: "x": supported values: "a", "b"}, the values in kube's order. */
    static FieldError notSupported(String path, Object value, List<String> supported) {
        StringBuilder sb = new StringBuilder(render(value)).append(": supported values: ");
        for (int i = 0; i < supported.size(); i++) {
            sb.append(i == 0 ? "" : ", ").append(quote(supported.get(i)));
        }
        return new FieldError("Unsupported value", path, sb.toString());
    }

    /** A value printed as Go's {@code field.Error} prints it. */
    private static String render(Object value) {
        if (value instanceof GoValue go) {
            return go.text();
        }
        if (value instanceof JsonNode node) {
            if (node.isString()) {
                return quote(node.asString());
            }
            if (node.isNull() || node.isMissingNode()) {
                return "null";
            }
            return node.toString();
        }
        if (value instanceof String s) {
            return quote(s);
        }
        return value == null ? "null" : value.toString();
    }

    /** Go's {@code strconv.Quote} for the characters objects hold. */
    static String quote(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\t' -> sb.append("\\t");
                case '\r' -> sb.append("\\r");
                default -> {
                    if (c < 0x20 || c == 0x7f) {
                        sb.append(String.format("\\x%02x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }

    /** A value already rendered as Go's {@code %#v} prints it. */
    record GoValue(String text) {}

    /** {@code map[string]string{"a":"1", "b":"2"}} (keys sorted, as Go prints maps), or {@code (nil)} when absent. */
    static GoValue stringMap(JsonNode map) {
        if (!map.isObject()) {
            return new GoValue("map[string]string(nil)");
        }
        Map<String, String> sorted = new TreeMap<>();
        for (var e : map.properties()) {
            sorted.put(e.getKey(), e.getValue().asString(""));
        }
        StringBuilder sb = new StringBuilder("map[string]string{");
        boolean first = true;
        for (var e : sorted.entrySet()) {
            sb.append(first ? "" : ", ").append(quote(e.getKey())).append(':').append(quote(e.getValue()));
            first = false;
        }
        return new GoValue(sb.append('}').toString());
    }

    /** A {@code metav1.LabelSelector} as {@code %#v} prints it (the pointer is dereferenced by field.Error). */
    static GoValue labelSelector(JsonNode selector) {
        if (!selector.isObject()) {
            return new GoValue("null");
        }
        StringBuilder sb = new StringBuilder("v1.LabelSelector{MatchLabels:")
                .append(stringMap(selector.path("matchLabels")).text())
                .append(", MatchExpressions:");
        JsonNode expressions = selector.path("matchExpressions");
        if (!expressions.isArray()) {
            sb.append("[]v1.LabelSelectorRequirement(nil)");
        } else {
            sb.append("[]v1.LabelSelectorRequirement{");
            boolean first = true;
            for (JsonNode e : expressions) {
                sb.append(first ? "" : ", ")
                        .append("v1.LabelSelectorRequirement{Key:")
                        .append(quote(e.path("key").asString("")))
                        .append(", Operator:")
                        .append(quote(e.path("operator").asString("")))
                        .append(", Values:");
                JsonNode values = e.path("values");
                if (!values.isArray()) {
                    sb.append("[]string(nil)");
                } else {
                    sb.append("[]string{");
                    boolean firstValue = true;
                    for (JsonNode v : values) {
                        sb.append(firstValue ? "" : ", ").append(quote(v.asString("")));
                        firstValue = false;
                    }
                    sb.append('}');
                }
                sb.append('}');
                first = false;
            }
            sb.append('}');
        }
        return new GoValue(sb.append('}').toString());
    }
}
