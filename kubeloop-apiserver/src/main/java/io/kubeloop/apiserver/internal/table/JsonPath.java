package io.kubeloop.apiserver.internal.table;

import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * The subset of kubectl's JSONPath that CRD printer columns use: field steps ({@code .spec.replicas}, with
 * {@code \.} escaping a dot in a key), quoted keys ({@code ['app.kubernetes.io/name']}), indexes
 * ({@code [0]}, {@code [-1]}), wildcards ({@code [*]}) and equality filters
 * ({@code [?(@.type=="Ready")]}, on a field path below {@code @}). Optional surrounding braces
 * ({@code {.spec.replicas}}) are accepted, as kube-apiserver accepts them.
 *
 * <p>Immutable; {@link #find} never fails on a missing field, it just finds nothing.
 */
final class JsonPath {

    private sealed interface Step permits Field, Index, All, Filter {}

    private record Field(String name) implements Step {}

    private record Index(int index) implements Step {}

    private record All() implements Step {}

    private record Filter(List<String> path, String value) implements Step {}

    private final List<Step> steps;

    private JsonPath(List<Step> steps) {
        this.steps = List.copyOf(steps);
    }

    /** Parses {@code expression}; throws IllegalArgumentException naming what is wrong. */
    static JsonPath parse(String expression) {
        String s = expression.strip();
        if (s.startsWith("{") && s.endsWith("}")) {
            s = s.substring(1, s.length() - 1).strip();
        }
        if (!s.startsWith(".") && !s.startsWith("[")) {
            throw new IllegalArgumentException("must be a simple json path starting with . or [, was " + expression);
        }
        List<Step> steps = new ArrayList<>();
        int i = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c == '.') {
                StringBuilder name = new StringBuilder();
                i++;
                while (i < s.length() && s.charAt(i) != '.' && s.charAt(i) != '[') {
                    if (s.charAt(i) == '\\' && i + 1 < s.length()) {
                        i++;
                    }
                    name.append(s.charAt(i++));
                }
                if (name.isEmpty()) {
                    throw new IllegalArgumentException("empty field name at offset " + i + " in " + expression);
                }
                steps.add(new Field(name.toString()));
            } else if (c == '[') {
                int end = s.indexOf(']', i);
                if (end < 0) {
                    throw new IllegalArgumentException("unclosed [ at offset " + i + " in " + expression);
                }
                String inner = s.substring(i + 1, end).strip();
                if (inner.startsWith("?(")) {
                    // the filter may itself contain ']' inside a quoted value: find the closing ')]'
                    end = s.indexOf(")]", i);
                    if (end < 0) {
                        throw new IllegalArgumentException("unclosed filter at offset " + i + " in " + expression);
                    }
                    steps.add(filter(s.substring(i + 3, end).strip(), expression));
                    i = end + 2;
                    continue;
                }
                steps.add(bracket(inner, expression));
                i = end + 1;
            } else {
                throw new IllegalArgumentException("unexpected '" + c + "' at offset " + i + " in " + expression);
            }
        }
        return new JsonPath(steps);
    }

    private static Step bracket(String inner, String expression) {
        if (inner.equals("*")) {
            return new All();
        }
        if ((inner.startsWith("'") && inner.endsWith("'") || inner.startsWith("\"") && inner.endsWith("\""))
                && inner.length() >= 2) {
            return new Field(inner.substring(1, inner.length() - 1));
        }
        try {
            return new Index(Integer.parseInt(inner));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("unsupported subscript [" + inner + "] in " + expression);
        }
    }

    /** {@code @.type=="Ready"} (or {@code =='Ready'}). */
    private static Step filter(String condition, String expression) {
        int eq = condition.indexOf("==");
        if (!condition.startsWith("@.") || eq < 0) {
            throw new IllegalArgumentException("unsupported filter " + condition + " in " + expression
                    + ": only [?(@.field==\"value\")] is supported");
        }
        List<String> path = List.of(condition.substring(2, eq).strip().split("\\."));
        String value = condition.substring(eq + 2).strip();
        if (value.length() >= 2
                && (value.startsWith("\"") && value.endsWith("\"") || value.startsWith("'") && value.endsWith("'"))) {
            value = value.substring(1, value.length() - 1);
        }
        return new Filter(path, value);
    }

    /** The values this path finds in {@code root}, in document order; empty when nothing matches. */
    List<JsonNode> find(JsonNode root) {
        List<JsonNode> current = List.of(root);
        for (Step step : steps) {
            List<JsonNode> next = new ArrayList<>();
            for (JsonNode node : current) {
                switch (step) {
                    case Field f -> {
                        JsonNode v = node.isObject() ? node.get(f.name()) : null;
                        if (v != null) {
                            next.add(v);
                        }
                    }
                    case Index ix -> {
                        if (node.isArray()) {
                            int i = ix.index() < 0 ? node.size() + ix.index() : ix.index();
                            if (i >= 0 && i < node.size()) {
                                next.add(node.get(i));
                            }
                        }
                    }
                    case All a -> {
                        if (node.isArray() || node.isObject()) {
                            node.values().forEach(next::add);
                        }
                    }
                    case Filter fl -> {
                        if (node.isArray()) {
                            for (JsonNode element : node) {
                                JsonNode v = element;
                                for (String p : fl.path()) {
                                    v = v.path(p);
                                }
                                if (v.isValueNode() && v.asString().equals(fl.value())) {
                                    next.add(element);
                                }
                            }
                        }
                    }
                }
            }
            current = next;
        }
        return current;
    }
}
