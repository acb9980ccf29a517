package io.kubeloop.demo.deploy;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The metric names a PromQL expression (or a Grafana {@code label_values(...)} query) reads: a small tokenizer, enough
 * for the rules and dashboard in {@code deploy/monitoring}. Skipped: label matchers in {@code {...}}, range and
 * subquery durations in {@code [...]}, string literals, numbers, Grafana variables ({@code $x}, {@code ${x}}), the
 * label lists of {@code by}, {@code without}, {@code on}, {@code ignoring}, {@code group_left} and
 * {@code group_right}, and keywords. An identifier followed by {@code (} must be a known function or aggregation,
 * so that a misspelt function is an error rather than a metric name that happens not to exist.
 */
final class PromQl {

    private static final Set<String> FUNCTIONS = Set.of(
            // aggregations
            "sum",
            "min",
            "max",
            "avg",
            "group",
            "stddev",
            "stdvar",
            "count",
            "count_values",
            "bottomk",
            "topk",
            "quantile",
            "limitk",
            "limit_ratio",
            // functions
            "abs",
            "absent",
            "absent_over_time",
            "ceil",
            "changes",
            "clamp",
            "clamp_max",
            "clamp_min",
            "day_of_month",
            "day_of_week",
            "day_of_year",
            "days_in_month",
            "delta",
            "deriv",
            "exp",
            "floor",
            "histogram_avg",
            "histogram_count",
            "histogram_fraction",
            "histogram_quantile",
            "histogram_sum",
            "histogram_stddev",
            "histogram_stdvar",
            "holt_winters",
            "hour",
            "idelta",
            "increase",
            "irate",
            "label_join",
            "label_replace",
            "ln",
            "log2",
            "log10",
            "minute",
            "month",
            "predict_linear",
            "rate",
            "resets",
            "round",
            "scalar",
            "sgn",
            "sort",
            "sort_desc",
            "sort_by_label",
            "sort_by_label_desc",
            "sqrt",
            "time",
            "timestamp",
            "vector",
            "year",
            "avg_over_time",
            "min_over_time",
            "max_over_time",
            "sum_over_time",
            "count_over_time",
            "quantile_over_time",
            "stddev_over_time",
            "stdvar_over_time",
            "last_over_time",
            "present_over_time",
            // Grafana's Prometheus template queries
            "label_values",
            "label_names",
            "metrics",
            "query_result");

    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "offset", "bool", "atan2");

    private static final Set<String> LABEL_LISTS =
            Set.of("by", "without", "on", "ignoring", "group_left", "group_right");

    private PromQl() {}

    /** The metric names {@code expr} reads, in order of appearance, each once. */
    static Set<String> metricNames(String expr) {
        Set<String> names = new LinkedHashSet<>();
        List<String> unknownFunctions = new ArrayList<>();
        int i = 0;
        int n = expr.length();
        while (i < n) {
            char c = expr.charAt(i);
            if (c == '"' || c == '\'' || c == '`') {
                i = skipString(expr, i);
            } else if (c == '{') {
                i = skipTo(expr, i, '}');
            } else if (c == '[') {
                i = skipTo(expr, i, ']');
            } else if (c == '$') {
                i++;
                if (i < n && expr.charAt(i) == '{') {
                    i = skipTo(expr, i, '}');
                } else {
                    while (i < n && isIdentPart(expr.charAt(i))) {
                        i++;
                    }
                }
            } else if (Character.isDigit(c) || (c == '.' && i + 1 < n && Character.isDigit(expr.charAt(i + 1)))) {
                // numbers, durations (5m), exponents (1e3)
                while (i < n && (isIdentPart(expr.charAt(i)) || expr.charAt(i) == '.')) {
                    i++;
                }
            } else if (isIdentStart(c)) {
                int start = i;
                while (i < n && isIdentPart(expr.charAt(i))) {
                    i++;
                }
                String word = expr.substring(start, i);
                int next = skipSpace(expr, i);
                // an aggregation may put its label list first: sum by (x) (...)
                boolean call = next < n
                        && (expr.charAt(next) == '('
                                || (FUNCTIONS.contains(word)
                                        && (expr.startsWith("by", next) || expr.startsWith("without", next))));
                if (word.equals("label_values") && call) {
                    // Grafana: label_values(label) reads no metric; label_values(selector, label) reads the selector's
                    int end = skipParens(expr, next);
                    String inner = expr.substring(next + 1, end - 1);
                    int comma = inner.lastIndexOf(',');
                    if (comma >= 0) {
                        names.addAll(metricNames(inner.substring(0, comma)));
                    }
                    i = end;
                } else if (LABEL_LISTS.contains(word)) {
                    if (call) {
                        i = skipTo(expr, next, ')');
                    }
                } else if (KEYWORDS.contains(word)) {
                    // nothing
                } else if (call) {
                    if (!FUNCTIONS.contains(word)) {
                        unknownFunctions.add(word);
                    }
                } else {
                    names.add(word);
                }
            } else {
                i++;
            }
        }
        if (!unknownFunctions.isEmpty()) {
            throw new IllegalArgumentException(
                    "unknown PromQL function(s) " + unknownFunctions + " in expression: " + expr);
        }
        return names;
    }

    private static boolean isIdentStart(char c) {
        return Character.isLetter(c) || c == '_' || c == ':';
    }

    private static boolean isIdentPart(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == ':';
    }

    private static int skipSpace(String s, int i) {
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
        return i;
    }

    /** From the opening character at {@code i} to just after the matching {@code close}, skipping strings. */
    private static int skipTo(String s, int i, char close) {
        i++;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c == '"' || c == '\'' || c == '`') {
                i = skipString(s, i);
            } else if (c == close) {
                return i + 1;
            } else {
                i++;
            }
        }
        throw new IllegalArgumentException("unbalanced '" + close + "' in expression: " + s);
    }

    /** From the {@code (} at {@code i} to just after its matching {@code )}. */
    private static int skipParens(String s, int i) {
        int depth = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c == '"' || c == '\'' || c == '`') {
                i = skipString(s, i);
                continue;
            }
            if (c == '(') {
                depth++;
            } else if (c == ')' && --depth == 0) {
                return i + 1;
            }
            i++;
        }
        throw new IllegalArgumentException("unbalanced '(' in expression: " + s);
    }

    private static int skipString(String s, int i) {
        char quote = s.charAt(i);
        i++;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c == '\\' && quote != '`') {
                i += 2;
            } else if (c == quote) {
                return i + 1;
            } else {
                i++;
            }
        }
        throw new IllegalArgumentException("unterminated string in expression: " + s);
    }
}
