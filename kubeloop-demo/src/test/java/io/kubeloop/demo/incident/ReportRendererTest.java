package io.kubeloop.demo.incident;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.clock.FakeClock;
import io.kubeloop.demo.DemoReport;
import io.kubeloop.demo.PodGuardian;
import io.kubeloop.demo.internal.incident.IncidentTracker;
import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class ReportRendererTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final FakeClock clock = new FakeClock();
    private final IncidentTracker tracker = new IncidentTracker(clock, clock.nanoTime(), 10);
    private final PodGuardian.Listener guardian = tracker.listenerFor("guardian-a");

    /** An incident: gone now, seen, reconciled, created and Running after the given real milliseconds. */
    private void incident(String pod, String node, String cause, String replacement, double... ms) {
        long t0 = clock.nanoTime();
        tracker.podGone("demo", pod, "uid-" + pod, "web", node, cause, t0);
        long[] at = new long[ms.length];
        for (int i = 0; i < ms.length; i++) {
            at[i] = t0 + Math.round(ms[i] * 1_000_000);
        }
        if (ms.length > 0) {
            guardian.podDeletionSeen("demo", "web", pod, "uid-" + pod, at[0]);
        }
        if (ms.length > 2) {
            guardian.podCreated("demo", "web", replacement, at[1], at[2]);
        }
        if (ms.length > 3) {
            tracker.podRunning("demo", replacement, at[3]);
        }
    }

    private static Map<String, Double> metrics() {
        Map<String, Double> m = new LinkedHashMap<>();
        m.put("workqueue_depth{name=\"pod-guardian\",priority=\"0\"}", 0.0);
        m.put("workqueue_depth{name=\"replica-audit\",priority=\"0\"}", 1.0);
        m.put("reconcile_duration_seconds_count{controller=\"pod-guardian\"}", 312.0);
        m.put("reconcile_duration_seconds_sum{controller=\"pod-guardian\"}", 0.4125);
        m.put("controller_runtime_reconcile_errors_total{controller=\"pod-guardian\"}", 2.0);
        m.put("cache_resync_count{name=\"pods\"}", 0.0);
        m.put("cache_resync_count{name=\"podsets\"}", 0.0);
        m.put("reflector_relists_total{name=\"pods\",reason=\"expired\"}", 1.0);
        m.put("reflector_relists_total{name=\"podsets\",reason=\"expired\"}", 2.0);
        m.put("reflector_watch_events_total{name=\"pods\",type=\"ADDED\"}", 44.0);
        return m;
    }

    private DemoReport report(boolean passed, String reason) {
        return new DemoReport(
                "incident",
                42,
                10,
                3,
                20,
                Duration.ofMillis(64_230),
                List.of(
                        new DemoReport.Fault(
                                Duration.ofSeconds(5), "kill-pods", "deleted web-a (node-1), web-b (node-2)"),
                        new DemoReport.Fault(Duration.ofSeconds(20), "node-failure", "node-3 stopped")),
                tracker.incidents(),
                tracker.stages(),
                2,
                3,
                0,
                metrics(),
                passed,
                reason);
    }

    @Test
    void textHasTheVerdictFaultsIncidentsStagesDriftAndMetrics() {
        incident("web-a", "node-1", "killed", "web-r1", 1.25, 1.5, 3.75, 40);
        clock.step(Duration.ofMillis(100));
        incident("web-b", "node-2", "evicted", "web-r2", 2, 2.5, 5, 60);
        clock.step(Duration.ofMillis(100));
        incident("web-c", "node-3", "evicted", null); // never seen by the operator

        String text = report(true, "").toText();
        List<String> lines = text.lines().toList();

        assertThat(lines.getFirst())
                .contains("scenario incident", "seed 42", "speed 10×", "3 nodes", "20 replicas", "64.2s wall time");
        assertThat(lines.get(1))
                .isEqualTo("PASSED: the PodSet converged with nothing lost (3 incidents: 2 replacements Running;"
                        + " no cache drift)");
        assertThat(text).containsPattern("\\+5\\.0s  kill-pods     deleted web-a \\(node-1\\), web-b \\(node-2\\)");
        assertThat(text).contains("Incidents: 3");
        assertThat(lines)
                .anySatisfy(
                        l -> assertThat(l)
                                .matches(
                                        "\\s+\\+0\\.0s\\s+web-a\\s+node-1\\s+killed\\s+1\\.25\\s+1\\.50\\s+3\\.75\\s+40\\.00\\s+web-r1"));
        assertThat(lines)
                .anySatisfy(
                        l -> assertThat(l)
                                .matches(
                                        "\\s+\\+1\\.0s\\s+web-b\\s+node-2\\s+evicted\\s+2\\.00\\s+2\\.50\\s+5\\.00\\s+60\\.00\\s+web-r2"));
        assertThat(lines).anySatisfy(l -> assertThat(l)
                .matches("\\s+\\+2\\.0s\\s+web-c\\s+node-3\\s+evicted\\s+—\\s+—\\s+—\\s+—\\s+—"));
        assertThat(lines).anySatisfy(l -> assertThat(l)
                .matches("\\s+gone→created\\s+2\\s+3\\.75\\s+5\\.00\\s+5\\.00\\s+5\\.00"));
        assertThat(text).contains("pod gone → replacement created: p99 5.00 ms");
        assertThat(text).contains("Reconcile errors 2, retries 3");
        assertThat(text).contains("Cache drift: 0 objects differ: cache and server agree");
        // pod-guardian's series as they are, the informers' summed; replica-audit's left to the JSON
        assertThat(text).containsPattern("workqueue_depth\\{name=\"pod-guardian\",priority=\"0\"}\\s+0\n");
        assertThat(text).doesNotContain("replica-audit");
        assertThat(text).containsPattern("reconcile_duration_seconds_sum\\{controller=\"pod-guardian\"}\\s+0\\.413");
        assertThat(text).containsPattern("reflector_relists_total\\{reason=\"expired\"}\\s+3\n");
        assertThat(text).contains("summed over its 2 informers");
        assertThat(text).contains("api_request_failures: none recorded"); // no such series: no failure
        assertThat(text).contains("How to read it: t0 the pod gone");
        assertThat(lines).hasSizeBetween(30, 70).allSatisfy(l -> assertThat(l).doesNotEndWith(" "));
    }

    @Test
    void apiRequestFailuresAreSummedOverTheInformersWhenThereAreSome() {
        Map<String, Double> metrics = new LinkedHashMap<>(metrics());
        metrics.put("api_request_failures{name=\"pods\",verb=\"list\"}", 2.0);
        metrics.put("api_request_failures{name=\"podsets\",verb=\"list\"}", 1.0);
        DemoReport r = report(true, "");
        String text = new DemoReport(
                        r.scenario(),
                        r.seed(),
                        r.speed(),
                        r.nodes(),
                        r.replicas(),
                        r.wallTime(),
                        r.faults(),
                        r.incidents(),
                        r.stages(),
                        r.reconcileErrors(),
                        r.retries(),
                        r.cacheDrift(),
                        metrics,
                        r.passed(),
                        r.reason())
                .toText();
        assertThat(text).containsPattern("api_request_failures\\{verb=\"list\"}\\s+3\n");
        assertThat(text).doesNotContain("none recorded");
    }

    @Test
    void aFailedRunSaysWhyAndStagesWithoutSamplesAreDashes() {
        String text =
                report(false, "2 incidents still open after 60 s: web-a, web-b").toText();
        assertThat(text.lines().toList().get(1)).isEqualTo("FAILED: 2 incidents still open after 60 s: web-a, web-b");
        assertThat(text).contains("Incidents: 0");
        assertThat(text).containsPattern("gone→running\\s+0\\s+—\\s+—\\s+—\\s+—");
        assertThat(text).doesNotContain("NaN");

        DemoReport drifted = new DemoReport(
                "relist",
                1,
                1,
                1,
                1,
                Duration.ZERO,
                List.of(),
                List.of(),
                List.of(),
                0,
                0,
                2,
                Map.of(),
                false,
                "drift");
        assertThat(drifted.toText())
                .contains("Cache drift: 2 objects differ between the leader's caches and the server")
                .contains("Faults injected (cluster time since the scenario began)\n  none");
    }

    @Test
    void manyIncidentsShowTheFirstAndTheSlowest() {
        for (int i = 0; i < 40; i++) {
            // incident 30 is the slowest, 35 never recovers
            double running = i == 30 ? 900 : 10 + i;
            if (i == 35) {
                incident("web-" + i, "node-1", "killed", "web-r" + i, 1, 2, 3);
            } else {
                incident("web-" + i, "node-1", "killed", "web-r" + i, 1, 2, 3, running);
            }
            clock.step(Duration.ofMillis(10));
        }
        String text = report(true, "").toText();
        assertThat(text).contains("Incidents: 40");
        List<String> rows = text.lines()
                .filter(l -> l.matches("\\s+\\+\\d+\\.\\ds\\s+web-\\d+\\s.*"))
                .toList();
        assertThat(rows).hasSize(20);
        assertThat(rows.getFirst()).contains("web-0 ");
        assertThat(rows).anySatisfy(l -> assertThat(l).contains("web-30 ", "900.00"));
        assertThat(rows).anySatisfy(l -> assertThat(l).contains("web-35 "));
        assertThat(rows).noneSatisfy(l -> assertThat(l).contains("web-20 "));
        assertThat(text).contains("(20 incidents not shown");
        assertThat(text.lines().filter(l -> l.strip().equals("…"))).hasSize(1); // 0–9, then 30–39
        assertThat(text.lines().count()).isLessThanOrEqualTo(75);
    }

    @Test
    void aReplacementGoneBeforeItRanShowsAsGone() {
        incident("web-a", "node-1", "killed", "web-r1", 1, 2, 3);
        clock.step(Duration.ofMillis(10));
        incident("web-r1", "node-1", "killed", "web-r2", 1, 2, 3, 50);
        assertThat(report(true, "").toText())
                .containsPattern("web-a\\s+node-1\\s+killed\\s+1\\.00\\s+2\\.00\\s+3\\.00\\s+gone\\s+web-r1")
                .contains("(2 incidents: 1 replacement Running, 1 replaced again before it ran; no cache drift)");
    }

    @Test
    void jsonHasEveryComponentAndParsesBack() {
        incident("web-a", "node-1", "killed", "web-r1", 1.25, 1.5, 3.75, 40);
        incident("web-c", "node-3", "evicted", null); // nulls
        DemoReport report = report(false, "drift");

        JsonNode json = JSON.readTree(report.toJson());

        List<String> components = new ArrayList<>();
        for (RecordComponent c : DemoReport.class.getRecordComponents()) {
            components.add(c.getName());
        }
        assertThat(names(json)).containsExactlyInAnyOrderElementsOf(components);
        assertThat(json.get("scenario").asString()).isEqualTo("incident");
        assertThat(json.get("seed").asLong()).isEqualTo(42);
        assertThat(json.get("wallTime").asDouble()).isEqualTo(64.23);
        assertThat(json.get("passed").asBoolean()).isFalse();
        assertThat(json.get("reason").asString()).isEqualTo("drift");
        assertThat(json.get("faults")).hasSize(2);
        assertThat(json.get("faults").get(1).get("at").asDouble()).isEqualTo(20.0);
        assertThat(json.get("faults").get(1).get("detail").asString()).isEqualTo("node-3 stopped");

        assertThat(names(json.get("incidents").get(0)))
                .containsExactlyInAnyOrderElementsOf(componentNames(DemoReport.Incident.class));
        JsonNode a = json.get("incidents").get(0);
        assertThat(a.get("pod").asString()).isEqualTo("web-a");
        assertThat(a.get("replacementRunningMs").asDouble()).isEqualTo(40.0);
        JsonNode c = json.get("incidents").get(1);
        assertThat(c.get("replacement").isNull()).isTrue();
        assertThat(c.get("informerSawMs").isNull()).isTrue();

        assertThat(json.get("stages")).hasSize(6);
        assertThat(names(json.get("stages").get(0)))
                .containsExactlyInAnyOrderElementsOf(componentNames(DemoReport.Stage.class));
        assertThat(json.get("stages").get(5).get("p99Ms").asDouble()).isEqualTo(40.0);

        assertThat(json.get("cacheDrift").asLong()).isZero();
        assertThat(json.get("metrics")
                        .get("reconcile_duration_seconds_sum{controller=\"pod-guardian\"}")
                        .asDouble())
                .isEqualTo(0.4125);
        assertThat(names(json.get("metrics"))).hasSize(metrics().size());
    }

    @Test
    void missingValuesDoNotBreakEitherForm() {
        DemoReport sparse = new DemoReport(
                "kill-pods",
                7,
                1,
                1,
                1,
                null,
                List.of(new DemoReport.Fault(null, "kill-pods", null)),
                List.of(new DemoReport.Incident("web-a", null, "deleted", null, null, null, null, null, null)),
                List.of(new DemoReport.Stage("gone→seen", 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN)),
                0,
                0,
                0,
                Map.of(),
                false,
                null);
        assertThat(sparse.toText()).contains("FAILED: (no reason given)").contains("web-a");
        JsonNode json = JSON.readTree(sparse.toJson());
        assertThat(json.get("wallTime").isNull()).isTrue();
        assertThat(json.get("reason").isNull()).isTrue();
        assertThat(json.get("faults").get(0).get("at").isNull()).isTrue();
        assertThat(json.get("incidents").get(0).get("at").isNull()).isTrue();
    }

    @Test
    void jsonWritesStagesWithoutSamplesAsNull() {
        String json = report(true, "").toJson();
        assertThat(json).doesNotContain("NaN");
        JsonNode stage = JSON.readTree(json).get("stages").get(0);
        assertThat(stage.get("count").asInt()).isZero();
        assertThat(stage.get("p50Ms").isNull()).isTrue();
        assertThat(stage.get("maxMs").isNull()).isTrue();
    }

    private static List<String> names(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.propertyNames().forEach(names::add);
        return names;
    }

    private static List<String> componentNames(Class<? extends Record> type) {
        List<String> names = new ArrayList<>();
        for (RecordComponent c : type.getRecordComponents()) {
            names.add(c.getName());
        }
        return names;
    }
}
