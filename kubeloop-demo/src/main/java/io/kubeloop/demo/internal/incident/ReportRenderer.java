package io.kubeloop.demo.internal.incident;

import io.kubeloop.demo.DemoReport;
import io.kubeloop.demo.PodGuardian;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@link DemoReport#toText()} and {@link DemoReport#toJson()}.
 *
 * <p>The text is for a person at a terminal: the verdict first, then the faults, the incidents (all of them up to
 * {@value #ALL_INCIDENTS_UP_TO}; beyond, the first {@value #SHOWN} and the {@value #SHOWN} slowest, with how many
 * are left out), the stages' percentiles, errors and retries, the cache drift, the seed's metrics (pod-guardian's
 * series; the informers' series summed over the informers) and how to read it. Milliseconds have two decimals; an
 * instant or percentile never reached is {@code —}.
 *
 * <p>The JSON is one object with every component of the report under its own name: durations ({@code wallTime},
 * each fault's and incident's {@code at}) in seconds as numbers, stage times in milliseconds as the names say, an
 * unreached instant and a stage's percentiles without samples as {@code null} (JSON has no NaN), {@code metrics} an
 * object of series → value, sorted by series.
 */
public final class ReportRenderer {

    /** Up to this many incidents the text lists them all. */
    static final int ALL_INCIDENTS_UP_TO = 25;
    /** Beyond, it lists this many first ones and this many slowest ones. */
    static final int SHOWN = 10;

    /** The families the text lists (the JSON has every series of the snapshot). */
    private static final List<String> TEXT_FAMILIES = List.of(
            "workqueue_depth",
            "reconcile_duration_seconds_count",
            "reconcile_duration_seconds_sum",
            "controller_runtime_reconcile_total",
            "controller_runtime_reconcile_errors_total",
            "workqueue_retries_total",
            "cache_resync_count",
            "api_request_failures",
            "reflector_lists_total",
            "reflector_relists_total",
            "reflector_watch_restarts_total");

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private ReportRenderer() {}

    public static String text(DemoReport r) {
        StringBuilder out = new StringBuilder();
        out.append("kubeloop demo · scenario ")
                .append(r.scenario())
                .append(" · seed ")
                .append(r.seed())
                .append(" · speed ")
                .append(number(r.speed()))
                .append("× · ")
                .append(r.nodes())
                .append(r.nodes() == 1 ? " node · " : " nodes · ")
                .append(r.replicas())
                .append(" replicas · ")
                .append(seconds(r.wallTime()))
                .append(" wall time\n");
        if (r.passed()) {
            Set<String> gonePods = new HashSet<>();
            r.incidents().forEach(i -> gonePods.add(i.pod()));
            long running = r.incidents().stream()
                    .filter(i -> i.replacementRunningMs() != null)
                    .count();
            long replacedAgain = r.incidents().stream()
                    .filter(i -> i.replacementRunningMs() == null && gonePods.contains(i.replacement()))
                    .count();
            out.append("PASSED: the PodSet converged with nothing lost (")
                    .append(r.incidents().size())
                    .append(r.incidents().size() == 1 ? " incident: " : " incidents: ")
                    .append(running)
                    .append(running == 1 ? " replacement Running" : " replacements Running");
            if (replacedAgain > 0) {
                out.append(", ").append(replacedAgain).append(" replaced again before it ran");
            }
            out.append("; no cache drift)\n");
        } else {
            out.append("FAILED: ")
                    .append(r.reason() == null || r.reason().isEmpty() ? "(no reason given)" : r.reason())
                    .append('\n');
        }

        out.append("\nFaults injected (cluster time since the scenario began)\n");
        if (r.faults().isEmpty()) {
            out.append("  none\n");
        } else {
            TextTable faults = new TextTable("rll");
            for (DemoReport.Fault f : r.faults()) {
                faults.row("+" + seconds(f.at()), orDash(f.fault()), orDash(f.detail()));
            }
            faults.appendTo(out);
        }

        incidents(r.incidents(), out);
        stages(r.stages(), out);

        out.append("\nReconcile errors ")
                .append(r.reconcileErrors())
                .append(", retries ")
                .append(r.retries())
                .append(" (pod-guardian, every instance)\n");
        out.append("Cache drift: ")
                .append(r.cacheDrift())
                .append(
                        r.cacheDrift() == 0
                                ? " objects differ: cache and server agree\n"
                                : (r.cacheDrift() == 1 ? " object differs" : " objects differ")
                                        + " between the leader's caches and the server\n");

        metrics(r.metrics(), out);

        out.append("\nHow to read it: t0 the pod gone (deleted, or evicted by the node's failure); t1 the operator's"
                + " informer saw it;\n  t2 the reconcile that replaced it began; t3 the replacement created; t4 the"
                + " replacement Running and Ready.\n  Stage times are real milliseconds after t0; `at` and the faults"
                + " are cluster time (× speed). — : not reached.\n");
        return out.toString();
    }

    private static void incidents(List<DemoReport.Incident> incidents, StringBuilder out) {
        out.append("\nIncidents: ")
                .append(incidents.size())
                .append(incidents.isEmpty() ? "\n" : " (t1…t4: ms after t0)\n");
        if (incidents.isEmpty()) {
            return;
        }
        Set<String> gonePods = new HashSet<>();
        incidents.forEach(i -> gonePods.add(i.pod()));
        List<Integer> shown = shownIncidents(incidents);
        TextTable table = new TextTable("rlllrrrrl");
        table.row("at", "pod", "node", "cause", "t1 seen", "t2 reconcile", "t3 created", "t4 running", "replacement");
        int previous = -1;
        for (int index : shown) {
            if (index != previous + 1) {
                table.row("…", "", "", "", "", "", "", "", "");
            }
            previous = index;
            DemoReport.Incident i = incidents.get(index);
            // a replacement gone before it ran has an incident of its own (a later row)
            String running =
                    i.replacementRunningMs() == null && i.replacement() != null && gonePods.contains(i.replacement())
                            ? "gone"
                            : ms(i.replacementRunningMs());
            table.row(
                    "+" + seconds(i.at()),
                    orDash(i.pod()),
                    orDash(i.node()),
                    orDash(i.cause()),
                    ms(i.informerSawMs()),
                    ms(i.reconcileStartedMs()),
                    ms(i.replacementCreatedMs()),
                    running,
                    orDash(i.replacement()));
        }
        if (previous != incidents.size() - 1) {
            table.row("…", "", "", "", "", "", "", "", "");
        }
        table.appendTo(out);
        int omitted = incidents.size() - shown.size();
        if (omitted > 0) {
            out.append("  (")
                    .append(omitted)
                    .append(omitted == 1 ? " incident" : " incidents")
                    .append(" not shown, at …: the first ")
                    .append(SHOWN)
                    .append(" and the ")
                    .append(SHOWN)
                    .append(" slowest are; the JSON report has all)\n");
        }
    }

    /**
     * Indices of the incidents the text shows, ascending: all up to {@link #ALL_INCIDENTS_UP_TO}; beyond, the first
     * {@link #SHOWN} and the {@link #SHOWN} slowest to Running (not Running counts as slowest).
     */
    static List<Integer> shownIncidents(List<DemoReport.Incident> incidents) {
        List<Integer> all = new ArrayList<>();
        for (int i = 0; i < incidents.size(); i++) {
            all.add(i);
        }
        if (incidents.size() <= ALL_INCIDENTS_UP_TO) {
            return all;
        }
        TreeSet<Integer> shown = new TreeSet<>(all.subList(0, SHOWN));
        all.stream()
                .sorted(Comparator.comparingDouble((Integer i) -> {
                            Double running = incidents.get(i).replacementRunningMs();
                            return running == null ? Double.POSITIVE_INFINITY : running;
                        })
                        .reversed()
                        .thenComparing(i -> i))
                .limit(SHOWN)
                .forEach(shown::add);
        return List.copyOf(shown);
    }

    private static void stages(List<DemoReport.Stage> stages, StringBuilder out) {
        out.append("\nRecovery stages (ms; nearest-rank percentiles over the incidents that reached both ends)\n");
        TextTable table = new TextTable("lrrrrr");
        table.row("stage", "count", "p50", "p95", "p99", "max");
        DemoReport.Stage goneToCreated = null;
        for (DemoReport.Stage s : stages) {
            table.row(
                    s.stage(),
                    Integer.toString(s.count()),
                    ms(s.count(), s.p50Ms()),
                    ms(s.count(), s.p95Ms()),
                    ms(s.count(), s.p99Ms()),
                    ms(s.count(), s.maxMs()));
            if (s.stage().equals("gone→created")) {
                goneToCreated = s;
            }
        }
        table.appendTo(out);
        if (goneToCreated != null && goneToCreated.count() > 0) {
            out.append("  pod gone → replacement created: p99 ")
                    .append(ms(goneToCreated.count(), goneToCreated.p99Ms()))
                    .append(" ms (the target at rest, on loopback: < 50 ms)\n");
        }
    }

    private static void metrics(Map<String, Double> metrics, StringBuilder out) {
        out.append("\nThe seed's metrics at the end (the leader's /metrics; ");
        if (metrics.isEmpty()) {
            out.append("not read)\n  none\n");
            return;
        }
        // pod-guardian's own series as they are; the informers' summed over the informers (the `name` label)
        Map<String, Double> lines = new LinkedHashMap<>();
        Set<String> informers = new TreeSet<>();
        List<String> series = new ArrayList<>(metrics.keySet());
        series.sort(Comparator.comparingInt((String s) -> TEXT_FAMILIES.indexOf(SeedMetrics.family(s)))
                .thenComparing(s -> s));
        for (String s : series) {
            String family = SeedMetrics.family(s);
            if (!TEXT_FAMILIES.contains(family)) {
                continue;
            }
            Map<String, String> labels = SeedMetrics.labels(s);
            if (informerFamily(family)) {
                String informer = labels.remove("name");
                if (informer != null) {
                    informers.add(informer);
                }
                lines.merge(series(family, labels), metrics.get(s), Double::sum);
            } else if (PodGuardian.CONTROLLER.equals(labels.get("controller"))
                    || PodGuardian.CONTROLLER.equals(labels.get("name"))) {
                lines.put(s, metrics.get(s));
            }
        }
        out.append(PodGuardian.CONTROLLER)
                .append("'s series,\n  the informers' summed over its ")
                .append(informers.size())
                .append(informers.size() == 1 ? " informer" : " informers")
                .append("; the JSON report has every series)\n");
        TextTable table = new TextTable("lr");
        lines.forEach((name, value) -> table.row(name, number(value)));
        table.appendTo(out);
        if (lines.keySet().stream().noneMatch(k -> SeedMetrics.family(k).equals("api_request_failures"))) {
            // a reflector registers the series at its first failed list or watch: absent means none failed
            out.append(
                    "  api_request_failures: none recorded (the series appears with the first failed list or watch)\n");
        }
    }

    private static boolean informerFamily(String family) {
        return family.equals("cache_resync_count")
                || family.equals("api_request_failures")
                || family.startsWith("reflector_");
    }

    private static String series(String family, Map<String, String> labels) {
        if (labels.isEmpty()) {
            return family;
        }
        StringBuilder s = new StringBuilder(family).append('{');
        labels.forEach((k, v) -> s.append(k)
                .append("=\"")
                .append(v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n"))
                .append("\","));
        s.setCharAt(s.length() - 1, '}');
        return s.toString();
    }

    public static String json(DemoReport r) {
        ObjectNode root = JSON.createObjectNode();
        root.put("scenario", r.scenario());
        root.put("seed", r.seed());
        putNumber(root, "speed", r.speed());
        root.put("nodes", r.nodes());
        root.put("replicas", r.replicas());
        putNumber(root, "wallTime", secondsValue(r.wallTime()));
        root.put("passed", r.passed());
        root.put("reason", r.reason());
        ArrayNode faults = root.putArray("faults");
        for (DemoReport.Fault f : r.faults()) {
            ObjectNode n = faults.addObject();
            putNumber(n, "at", secondsValue(f.at()));
            n.put("fault", f.fault());
            n.put("detail", f.detail());
        }
        ArrayNode incidents = root.putArray("incidents");
        for (DemoReport.Incident i : r.incidents()) {
            ObjectNode n = incidents.addObject();
            n.put("pod", i.pod());
            n.put("node", i.node());
            n.put("cause", i.cause());
            putNumber(n, "at", secondsValue(i.at()));
            n.put("replacement", i.replacement());
            putNumber(n, "informerSawMs", i.informerSawMs());
            putNumber(n, "reconcileStartedMs", i.reconcileStartedMs());
            putNumber(n, "replacementCreatedMs", i.replacementCreatedMs());
            putNumber(n, "replacementRunningMs", i.replacementRunningMs());
        }
        ArrayNode stages = root.putArray("stages");
        for (DemoReport.Stage s : r.stages()) {
            ObjectNode n = stages.addObject();
            n.put("stage", s.stage());
            n.put("count", s.count());
            putNumber(n, "p50Ms", s.p50Ms());
            putNumber(n, "p95Ms", s.p95Ms());
            putNumber(n, "p99Ms", s.p99Ms());
            putNumber(n, "maxMs", s.maxMs());
        }
        root.put("reconcileErrors", r.reconcileErrors());
        root.put("retries", r.retries());
        root.put("cacheDrift", r.cacheDrift());
        ObjectNode metrics = root.putObject("metrics");
        new TreeSet<>(r.metrics().keySet())
                .forEach(k -> putNumber(metrics, k, r.metrics().get(k)));
        return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root);
    }

    /** {@code value}, or null when it is null, NaN or infinite (JSON has no such numbers). */
    private static void putNumber(ObjectNode node, String name, Double value) {
        if (value == null || value.isNaN() || value.isInfinite()) {
            node.putNull(name);
        } else {
            node.put(name, value.doubleValue());
        }
    }

    /** Seconds; null for null. */
    private static Double secondsValue(Duration d) {
        return d == null ? null : d.toNanos() / 1e9;
    }

    /** Seconds with one decimal and a unit: {@code 12.0s}; {@code —} for null. */
    private static String seconds(Duration d) {
        return d == null ? "—" : String.format(Locale.ROOT, "%.1fs", d.toNanos() / 1e9);
    }

    private static String ms(Double value) {
        return value == null ? "—" : String.format(Locale.ROOT, "%.2f", value);
    }

    private static String ms(int count, double value) {
        return count == 0 || Double.isNaN(value) ? "—" : String.format(Locale.ROOT, "%.2f", value);
    }

    private static String orDash(String s) {
        return s == null || s.isEmpty() ? "—" : s;
    }

    /** An integral value without decimals, others with up to three. */
    private static String number(double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return Double.toString(value);
        }
        if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            return Long.toString((long) value);
        }
        return String.format(Locale.ROOT, "%.3f", value).replaceAll("0+$", "");
    }
}
