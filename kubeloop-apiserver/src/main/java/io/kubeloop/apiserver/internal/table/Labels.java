package io.kubeloop.apiserver.internal.table;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;

/**
 * Label maps and label selectors as kube prints them: {@code labels.FormatLabels} ({@code a=1,b=2}, sorted, or
 * {@code <none>}) and {@code metav1.LabelSelectorAsSelector(...).String()} ({@code app=web,tier in (a,b)}).
 */
final class Labels {

    private Labels() {}

    /** {@code labels.FormatLabels}: {@code k=v} pairs sorted by key, or {@code <none>}. */
    static String format(JsonNode map) {
        TreeMap<String, String> sorted = new TreeMap<>();
        if (map != null && map.isObject()) {
            for (Map.Entry<String, JsonNode> e : map.properties()) {
                sorted.put(e.getKey(), Fields.text(e.getValue()));
            }
        }
        if (sorted.isEmpty()) {
            return "<none>";
        }
        List<String> pairs = new ArrayList<>(sorted.size());
        sorted.forEach((k, v) -> pairs.add(k + "=" + v));
        return String.join(",", pairs);
    }

    /**
     * {@code LabelSelectorAsSelector(selector).String()}: requirements sorted by key, {@code k=v},
     * {@code k in (a,b)}, {@code k notin (a,b)}, {@code k}, {@code !k}; "" for an absent or empty selector;
     * null for an invalid operator.
     */
    static String selector(JsonNode selector) {
        if (selector == null || !selector.isObject()) {
            return "";
        }
        List<String[]> requirements = new ArrayList<>(); // {key, text}
        JsonNode matchLabels = selector.path("matchLabels");
        if (matchLabels.isObject()) {
            for (Map.Entry<String, JsonNode> e : matchLabels.properties()) {
                requirements.add(new String[] {e.getKey(), e.getKey() + "=" + Fields.text(e.getValue())});
            }
        }
        for (JsonNode expr : selector.path("matchExpressions")) {
            String key = Fields.text(expr.get("key"));
            List<String> values = new ArrayList<>();
            for (JsonNode v : expr.path("values")) {
                values.add(Fields.text(v));
            }
            values.sort(null);
            String text =
                    switch (Fields.text(expr.get("operator"))) {
                        case "In" -> key + " in (" + String.join(",", values) + ")";
                        case "NotIn" -> key + " notin (" + String.join(",", values) + ")";
                        case "Exists" -> key;
                        case "DoesNotExist" -> "!" + key;
                        default -> null;
                    };
            if (text == null) {
                return null;
            }
            requirements.add(new String[] {key, text});
        }
        requirements.sort((a, b) -> a[0].compareTo(b[0]));
        List<String> texts = new ArrayList<>(requirements.size());
        for (String[] r : requirements) {
            texts.add(r[1]);
        }
        return String.join(",", texts);
    }

    /** {@code metav1.FormatLabelSelector}: the selector string, {@code <none>} when empty, {@code <error>}. */
    static String formatSelector(JsonNode selector) {
        String s = selector(selector);
        if (s == null) {
            return "<error>";
        }
        return s.isEmpty() ? "<none>" : s;
    }
}
