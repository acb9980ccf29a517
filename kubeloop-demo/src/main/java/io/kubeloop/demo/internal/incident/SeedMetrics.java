package io.kubeloop.demo.internal.incident;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The seed's metrics (seed 000's closing checklist: {@code workqueue_depth}, {@code reconcile_duration_seconds},
 * {@code cache_resync_count}, {@code api_request_failures}, {@code reflector_*}, and controller-runtime's reconcile
 * and error counters) as a manager's {@code /metrics} exports them.
 *
 * <p>{@link #snapshot} scrapes the registry's Prometheus text — the very text {@code /metrics} serves — and keeps the
 * series of the seed's families, so names and labels are exactly what an SRE's Prometheus would store. Histogram
 * buckets are left out (their {@code _count}, {@code _sum} and Micrometer's {@code _max} stay).
 */
public final class SeedMetrics {

    /** The seed's families, in the order a report lists them; then any other {@code reflector_*} family. */
    public static final List<String> FAMILIES = List.of(
            "workqueue_depth",
            "reconcile_duration_seconds_count",
            "reconcile_duration_seconds_sum",
            "reconcile_duration_seconds_max",
            "controller_runtime_reconcile_total",
            "controller_runtime_reconcile_errors_total",
            "workqueue_retries_total",
            "cache_resync_count",
            "api_request_failures",
            "reflector_lists_total",
            "reflector_relists_total",
            "reflector_watch_restarts_total",
            "reflector_watch_events_total",
            "reflector_items_total",
            "reflector_decode_errors_total",
            "reflector_list_duration_seconds_count",
            "reflector_list_duration_seconds_sum",
            "reflector_list_duration_seconds_max",
            "reflector_last_event_timestamp_seconds");

    private SeedMetrics() {}

    /**
     * The seed's series in {@code registry} now: Prometheus series ({@code family{label="value",...}}, labels as
     * {@code /metrics} writes them) → value, in {@link #FAMILIES} order (then by series). {@code registry} must be a
     * {@link PrometheusMeterRegistry} or a composite holding one (a manager's {@code meterRegistry()} is either).
     *
     * @throws IllegalArgumentException when there is no Prometheus registry to scrape
     */
    public static Map<String, Double> snapshot(MeterRegistry registry) {
        PrometheusMeterRegistry prometheus = prometheusOf(registry);
        if (prometheus == null) {
            throw new IllegalArgumentException("the seed's metrics are read from a Prometheus registry (what /metrics "
                    + "serves); got a " + registry.getClass().getName() + " without one");
        }
        return select(parse(prometheus.scrape()));
    }

    /** The seed's series of {@code series} (as {@link #parse} returns them), ordered as {@link #snapshot} does. */
    static Map<String, Double> select(Map<String, Double> series) {
        List<Map.Entry<String, Double>> kept = new ArrayList<>();
        for (Map.Entry<String, Double> e : series.entrySet()) {
            if (rank(family(e.getKey())) >= 0) {
                kept.add(e);
            }
        }
        kept.sort(Comparator.<Map.Entry<String, Double>>comparingInt(e -> rank(family(e.getKey())))
                .thenComparing(e -> family(e.getKey()))
                .thenComparing(Map.Entry::getKey));
        Map<String, Double> out = new LinkedHashMap<>();
        kept.forEach(e -> out.put(e.getKey(), e.getValue()));
        return out;
    }

    /**
     * The position of {@code family} in the report's order: its index in {@link #FAMILIES}, after them for another
     * {@code reflector_*} family, -1 for a family that is not the seed's (histogram buckets included).
     */
    public static int rank(String family) {
        int i = FAMILIES.indexOf(family);
        if (i >= 0) {
            return i;
        }
        return family.startsWith("reflector_") && !family.endsWith("_bucket") ? FAMILIES.size() : -1;
    }

    /** The family (metric name) of a series {@code name{labels}}. */
    public static String family(String series) {
        int brace = series.indexOf('{');
        return brace < 0 ? series : series.substring(0, brace);
    }

    /**
     * The labels of a series {@code name{a="x",b="y"}}, in order, with Prometheus' escapes ({@code \\}, {@code \"},
     * {@code \n}) undone.
     */
    public static Map<String, String> labels(String series) {
        Map<String, String> labels = new LinkedHashMap<>();
        int i = series.indexOf('{');
        if (i < 0) {
            return labels;
        }
        i++;
        while (i < series.length() && series.charAt(i) != '}') {
            int eq = series.indexOf('=', i);
            if (eq < 0 || eq + 1 >= series.length() || series.charAt(eq + 1) != '"') {
                throw new IllegalArgumentException("malformed labels in series " + series);
            }
            String key = series.substring(i, eq);
            StringBuilder value = new StringBuilder();
            int j = eq + 2;
            for (; j < series.length() && series.charAt(j) != '"'; j++) {
                char c = series.charAt(j);
                if (c == '\\' && j + 1 < series.length()) {
                    char n = series.charAt(++j);
                    value.append(n == 'n' ? '\n' : n);
                } else {
                    value.append(c);
                }
            }
            if (j >= series.length()) {
                throw new IllegalArgumentException("unterminated label value in series " + series);
            }
            labels.put(key, value.toString());
            i = j + 1;
            if (i < series.length() && series.charAt(i) == ',') {
                i++;
            }
        }
        return labels;
    }

    /**
     * Every sample line of Prometheus text exposition: series (name and labels exactly as written) → value. Comment
     * lines ({@code # HELP}, {@code # TYPE}) and blank lines are skipped; a trailing timestamp is ignored.
     *
     * @throws IllegalArgumentException naming the line when a sample line cannot be read
     */
    static Map<String, Double> parse(String text) {
        Map<String, Double> out = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int end = seriesEnd(line);
            if (end < 0 || end >= line.length() || line.charAt(end) != ' ') {
                throw new IllegalArgumentException("not a Prometheus sample line: " + line);
            }
            String rest = line.substring(end + 1).strip();
            int space = rest.indexOf(' ');
            String value = space < 0 ? rest : rest.substring(0, space);
            out.put(line.substring(0, end), value(value, line));
        }
        return out;
    }

    /** The index just past a sample line's series (its name, and its labels' closing brace if any); -1 if none. */
    private static int seriesEnd(String line) {
        int i = 0;
        while (i < line.length() && line.charAt(i) != '{' && line.charAt(i) != ' ') {
            i++;
        }
        if (i == 0) {
            return -1;
        }
        if (i == line.length() || line.charAt(i) == ' ') {
            return i;
        }
        boolean quoted = false;
        for (i++; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted && c == '\\') {
                i++;
            } else if (c == '"') {
                quoted = !quoted;
            } else if (!quoted && c == '}') {
                return i + 1;
            }
        }
        return -1;
    }

    private static double value(String text, String line) {
        return switch (text) {
            case "+Inf", "Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            case "NaN" -> Double.NaN;
            default -> {
                try {
                    yield Double.parseDouble(text);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("not a Prometheus sample value in line: " + line, e);
                }
            }
        };
    }

    /** {@code registry} if it is a Prometheus registry, else the first one inside it when it is a composite. */
    private static PrometheusMeterRegistry prometheusOf(MeterRegistry registry) {
        if (registry instanceof PrometheusMeterRegistry p) {
            return p;
        }
        if (registry instanceof CompositeMeterRegistry composite) {
            for (MeterRegistry member : composite.getRegistries()) {
                PrometheusMeterRegistry p = prometheusOf(member);
                if (p != null) {
                    return p;
                }
            }
        }
        return null;
    }

    /**
     * The sum over the meters named {@code micrometerName} (Micrometer's dotted name, e.g.
     * {@code controller.runtime.reconcile.errors}) with tag {@code tagKey}={@code tagValue}: counts of counters and
     * timers, values of gauges. 0 when there is none.
     */
    public static double sum(MeterRegistry registry, String micrometerName, String tagKey, String tagValue) {
        double sum = 0;
        for (Meter meter : registry.find(micrometerName).tag(tagKey, tagValue).meters()) {
            double value =
                    switch (meter) {
                        case Counter c -> c.count();
                        case FunctionCounter c -> c.count();
                        case Gauge g -> g.value();
                        case Timer t -> t.count();
                        default -> 0;
                    };
            if (!Double.isNaN(value)) { // a gauge whose object is gone
                sum += value;
            }
        }
        return sum;
    }
}
