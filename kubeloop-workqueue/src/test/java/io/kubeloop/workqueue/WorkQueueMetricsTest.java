package io.kubeloop.workqueue;

import static io.kubeloop.testsupport.TestThreads.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.kubeloop.clock.FakeClock;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** client-go's {@code workqueue_*} metrics, scraped from a Prometheus registry, with a {@link FakeClock}. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class WorkQueueMetricsTest {

    private static final Set<String> CLIENT_GO_FAMILIES = Set.of(
            "workqueue_depth",
            "workqueue_adds_total",
            "workqueue_queue_duration_seconds",
            "workqueue_work_duration_seconds",
            "workqueue_unfinished_work_seconds",
            "workqueue_longest_running_processor_seconds",
            "workqueue_retries_total");

    /** client-go's buckets, 1e-6 s × 10^k, as this registry prints them. */
    private static final List<String> BUCKETS =
            List.of("1.0E-6", "1.0E-5", "1.0E-4", "0.001", "0.01", "0.1", "1.0", "10.0", "100.0", "1000.0", "+Inf");

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final FakeClock clock = new FakeClock();
    private final List<WorkQueue<String>> queues = new ArrayList<>();

    private RateLimitingQueue<String> queue(String name) {
        RateLimitingQueue<String> q = WorkQueue.<String>builder()
                .name(name)
                .clock(clock)
                .meterRegistry(registry)
                .rateLimiter(RateLimiters.exponentialFailure(Duration.ofSeconds(1), Duration.ofHours(1)))
                .buildRateLimiting();
        queues.add(q);
        return q;
    }

    @AfterEach
    void shutDownQueues() {
        queues.forEach(WorkQueue::shutDown);
        registry.close();
    }

    // ---- scrape parsing

    private static final Pattern TYPE = Pattern.compile("^# TYPE (\\S+) (\\S+)$", Pattern.MULTILINE);
    private static final Pattern SAMPLE =
            Pattern.compile("^([a-zA-Z_:][\\w:]*)(\\{[^}]*\\})? (\\S+)$", Pattern.MULTILINE);

    /** Metric family name → Prometheus type, for the workqueue families. */
    private Map<String, String> families() {
        Map<String, String> out = new TreeMap<>();
        Matcher m = TYPE.matcher(registry.scrape());
        while (m.find()) {
            if (m.group(1).startsWith("workqueue_")) {
                out.put(m.group(1), m.group(2));
            }
        }
        return out;
    }

    /** Series (name plus labels, as printed) → value, for the workqueue series. */
    private Map<String, Double> samples() {
        Map<String, Double> out = new LinkedHashMap<>();
        Matcher m = SAMPLE.matcher(registry.scrape());
        while (m.find()) {
            if (m.group(1).startsWith("workqueue_")) {
                out.put(m.group(1) + (m.group(2) == null ? "" : m.group(2)), Double.parseDouble(m.group(3)));
            }
        }
        return out;
    }

    private double value(String series) {
        Double v = samples().get(series);
        assertThat(v).as("series %s in the scrape", series).isNotNull();
        return v;
    }

    private double value(String metric, String queue) {
        return value(metric + "{name=\"" + queue + "\"}");
    }

    private double bucket(String histogram, String queue, String le) {
        return value(histogram + "_bucket{name=\"" + queue + "\",le=\"" + le + "\"}");
    }

    // ---- names, types, labels, buckets

    @Test
    void aNamedQueueWithARegistryExposesClientGosMetricNamesAndTypesWithTheNameLabel() throws InterruptedException {
        RateLimitingQueue<String> q = queue("pods");
        q.add("a");
        q.done(q.get());
        q.addAfter("b", Duration.ZERO);

        Map<String, String> families = families();
        assertThat(families)
                .containsAllEntriesOf(Map.of(
                        "workqueue_depth", "gauge",
                        "workqueue_adds_total", "counter",
                        "workqueue_queue_duration_seconds", "histogram",
                        "workqueue_work_duration_seconds", "histogram",
                        "workqueue_unfinished_work_seconds", "gauge",
                        "workqueue_longest_running_processor_seconds", "gauge",
                        "workqueue_retries_total", "counter"));
        // Micrometer adds a "_max" gauge to every timer; client-go has no such series.
        assertThat(families.keySet())
                .containsExactlyInAnyOrderElementsOf(union(
                        CLIENT_GO_FAMILIES,
                        Set.of("workqueue_queue_duration_seconds_max", "workqueue_work_duration_seconds_max")));
        assertThat(samples().keySet()).allSatisfy(series -> assertThat(series).contains("{name=\"pods\""));
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> out = new java.util.HashSet<>(a);
        out.addAll(b);
        return out;
    }

    @Test
    void bothDurationHistogramsHaveClientGosTenBucketsFrom1MicrosecondTo1000Seconds() {
        queue("q");
        for (String histogram : List.of("workqueue_queue_duration_seconds", "workqueue_work_duration_seconds")) {
            List<String> les = new ArrayList<>();
            for (String series : samples().keySet()) {
                Matcher m = Pattern.compile("^" + histogram + "_bucket\\{name=\"q\",le=\"([^\"]+)\"}$")
                        .matcher(series);
                if (m.matches()) {
                    les.add(m.group(1));
                }
            }
            assertThat(les).as(histogram).containsExactlyElementsOf(BUCKETS);
        }
    }

    // ---- values

    @Test
    void depthCountsDirtyItemsIncludingAReAddWhileProcessing() throws InterruptedException {
        RateLimitingQueue<String> q = queue("q");
        record Step(Runnable action, double depth, double adds) {}
        List<Step> steps = List.of(
                new Step(() -> q.add("a"), 1, 1),
                new Step(() -> q.add("b"), 2, 2),
                new Step(() -> q.add("a"), 2, 2), // deduplicated
                new Step(() -> assertThat(get(q)).isEqualTo("a"), 1, 2),
                new Step(() -> q.add("a"), 2, 3), // dirty again while processing
                new Step(() -> q.add("a"), 2, 3), // deduplicated
                new Step(() -> q.done("a"), 2, 3), // re-queued: not a new add
                new Step(() -> assertThat(get(q)).isEqualTo("b"), 1, 3),
                new Step(() -> assertThat(get(q)).isEqualTo("a"), 0, 3),
                new Step(() -> q.done("a"), 0, 3),
                new Step(() -> q.done("b"), 0, 3));
        for (int i = 0; i < steps.size(); i++) {
            steps.get(i).action().run();
            assertThat(value("workqueue_depth", "q"))
                    .as("depth after step %d", i + 1)
                    .isEqualTo(steps.get(i).depth());
            assertThat(value("workqueue_adds_total", "q"))
                    .as("adds after step %d", i + 1)
                    .isEqualTo(steps.get(i).adds());
        }
    }

    private static String get(WorkQueue<String> q) {
        try {
            return q.get();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void queueDurationIsTheFakeTimeFromTheFirstAddToTheGet() throws InterruptedException {
        RateLimitingQueue<String> q = queue("q");
        q.add("a");
        clock.step(Duration.ofMillis(3));
        q.add("b");
        q.add("a"); // deduplicated: a keeps its first add time
        clock.step(Duration.ofSeconds(2));
        q.get(); // a: 2.003 s
        q.get(); // b: 2 s
        String h = "workqueue_queue_duration_seconds";
        assertThat(value(h + "_count", "q")).isEqualTo(2);
        assertThat(value(h + "_sum", "q")).isCloseTo(4.003, within(1e-9));
        assertThat(bucket(h, "q", "1.0")).isZero();
        assertThat(bucket(h, "q", "10.0")).isEqualTo(2);
        assertThat(bucket(h, "q", "+Inf")).isEqualTo(2);
    }

    @Test
    void queueDurationOfAnItemReAddedWhileProcessingStartsAtTheReAdd() throws InterruptedException {
        RateLimitingQueue<String> q = queue("q");
        q.add("a");
        q.get(); // 0 s in the queue
        clock.step(Duration.ofSeconds(5));
        q.add("a");
        clock.step(Duration.ofMillis(50));
        q.done("a");
        clock.step(Duration.ofMillis(20));
        q.get(); // 70 ms since the re-add
        String h = "workqueue_queue_duration_seconds";
        assertThat(value(h + "_count", "q")).isEqualTo(2);
        assertThat(value(h + "_sum", "q")).isCloseTo(0.070, within(1e-9));
        assertThat(bucket(h, "q", "1.0E-6")).as("the first get, after 0 s").isEqualTo(1);
        assertThat(bucket(h, "q", "0.01")).isEqualTo(1);
        assertThat(bucket(h, "q", "0.1")).isEqualTo(2);
    }

    @Test
    void workDurationIsTheFakeTimeFromGetToDone() throws InterruptedException {
        RateLimitingQueue<String> q = queue("q");
        q.add("a");
        q.add("b");
        q.get();
        clock.step(Duration.ofMillis(1500));
        q.done("a");
        q.get();
        clock.step(Duration.ofMillis(20));
        q.done("b");
        q.done("never-taken"); // not observed
        String h = "workqueue_work_duration_seconds";
        assertThat(value(h + "_count", "q")).isEqualTo(2);
        assertThat(value(h + "_sum", "q")).isCloseTo(1.52, within(1e-9));
        assertThat(bucket(h, "q", "0.01")).isZero();
        assertThat(bucket(h, "q", "0.1")).isEqualTo(1);
        assertThat(bucket(h, "q", "1.0")).isEqualTo(1);
        assertThat(bucket(h, "q", "10.0")).isEqualTo(2);
    }

    @Test
    void unfinishedWorkIsTheSumOfInFlightAgesAndLongestRunningIsTheOldestAgeAtEachScrape() throws InterruptedException {
        RateLimitingQueue<String> q = queue("q");
        q.add("a");
        q.add("b");
        assertThat(value("workqueue_unfinished_work_seconds", "q")).isZero();
        assertThat(value("workqueue_longest_running_processor_seconds", "q")).isZero();

        q.get(); // a starts at 0 s
        clock.step(Duration.ofSeconds(2));
        q.get(); // b starts at 2 s
        clock.step(Duration.ofSeconds(1));
        assertThat(value("workqueue_unfinished_work_seconds", "q")).isCloseTo(4.0, within(1e-9));
        assertThat(value("workqueue_longest_running_processor_seconds", "q")).isCloseTo(3.0, within(1e-9));

        clock.step(Duration.ofMillis(500));
        assertThat(value("workqueue_unfinished_work_seconds", "q")).isCloseTo(5.0, within(1e-9));
        assertThat(value("workqueue_longest_running_processor_seconds", "q")).isCloseTo(3.5, within(1e-9));

        q.done("a");
        assertThat(value("workqueue_unfinished_work_seconds", "q")).isCloseTo(1.5, within(1e-9));
        assertThat(value("workqueue_longest_running_processor_seconds", "q")).isCloseTo(1.5, within(1e-9));

        q.done("b");
        assertThat(value("workqueue_unfinished_work_seconds", "q")).isZero();
        assertThat(value("workqueue_longest_running_processor_seconds", "q")).isZero();
    }

    @Test
    void retriesCountEveryAddAfterAndAddRateLimitedCallEvenWithoutADelay() {
        RateLimitingQueue<String> q = queue("q");
        q.addAfter("a", Duration.ZERO);
        q.addAfter("a", Duration.ofSeconds(-1));
        q.addAfter("b", Duration.ofSeconds(1));
        q.addAfter("b", Duration.ofSeconds(1)); // already waiting: still a retry
        q.addRateLimited("c");
        q.add("d"); // not a retry
        assertThat(value("workqueue_retries_total", "q")).isEqualTo(5);
        assertThat(value("workqueue_adds_total", "q")).as("a (once) and d").isEqualTo(2);

        q.shutDown();
        q.addAfter("e", Duration.ZERO);
        q.addRateLimited("e");
        assertThat(value("workqueue_retries_total", "q"))
                .as("ignored after shutdown")
                .isEqualTo(5);
    }

    @Test
    void anItemAddedByTheTimerCountsAsAnAddWhenItsDelayEnds() {
        RateLimitingQueue<String> q = queue("q");
        q.addAfter("a", Duration.ofSeconds(1));
        assertThat(value("workqueue_adds_total", "q")).isZero();
        assertThat(value("workqueue_depth", "q")).isZero();
        eventually().until(clock::hasWaiters);
        clock.step(Duration.ofSeconds(1));
        eventually().until(() -> q.len() == 1);
        assertThat(value("workqueue_adds_total", "q")).isEqualTo(1);
        assertThat(value("workqueue_depth", "q")).isEqualTo(1);
    }

    @Test
    void twoQueuesInOneRegistryReportSeparately() throws InterruptedException {
        RateLimitingQueue<String> pods = queue("pods");
        RateLimitingQueue<String> nodes = queue("nodes");
        pods.add("a");
        pods.add("b");
        nodes.add("x");
        nodes.get();
        assertThat(value("workqueue_depth", "pods")).isEqualTo(2);
        assertThat(value("workqueue_depth", "nodes")).isZero();
        assertThat(value("workqueue_adds_total", "pods")).isEqualTo(2);
        assertThat(value("workqueue_adds_total", "nodes")).isEqualTo(1);
    }

    // ---- what is registered

    @Test
    void anUnnamedQueueRegistersNothingEvenWithARegistry() throws InterruptedException {
        WorkQueue<String> q =
                WorkQueue.<String>builder().clock(clock).meterRegistry(registry).buildRateLimiting();
        queues.add(q);
        q.add("a");
        q.done(q.get());
        assertThat(registry.getMeters()).isEmpty();
        assertThat(families()).isEmpty();
    }

    @Test
    void aNamedQueueWithoutARegistryRegistersNothingGlobally() throws InterruptedException {
        int globalMetersBefore = Metrics.globalRegistry.getMeters().size();
        RateLimitingQueue<String> q =
                WorkQueue.<String>builder().name("no-registry").clock(clock).buildRateLimiting();
        queues.add(q);
        q.add("a");
        q.done(q.get());
        q.addAfter("b", Duration.ZERO);
        assertThat(Metrics.globalRegistry.getMeters()).hasSize(globalMetersBefore);
        assertThat(registry.getMeters()).isEmpty();
    }

    @Test
    void theGaugesAreRemovedAtShutDownWhileCountersAndHistogramsStay() throws InterruptedException {
        RateLimitingQueue<String> q = queue("q");
        q.add("a");
        q.get();
        q.shutDown();
        Map<String, String> families = families();
        assertThat(families)
                .doesNotContainKeys(
                        "workqueue_depth",
                        "workqueue_unfinished_work_seconds",
                        "workqueue_longest_running_processor_seconds");
        assertThat(families)
                .containsKeys(
                        "workqueue_adds_total", "workqueue_retries_total",
                        "workqueue_queue_duration_seconds", "workqueue_work_duration_seconds");
        q.done("a");
        assertThat(value("workqueue_work_duration_seconds_count", "q")).isEqualTo(1);
    }

    @Test
    void theGaugesAreRemovedWhenADrainStarts() throws Exception {
        RateLimitingQueue<String> q = queue("q");
        assertThat(q.shutDownWithDrain(Duration.ZERO)).isTrue();
        assertThat(families())
                .doesNotContainKeys(
                        "workqueue_depth",
                        "workqueue_unfinished_work_seconds",
                        "workqueue_longest_running_processor_seconds");
    }

    @Test
    void aQueueRecreatedWithTheSameNameAfterShutDownReportsItsOwnGauges() throws InterruptedException {
        RateLimitingQueue<String> first = queue("q");
        first.add("a");
        first.add("b");
        first.shutDown();

        RateLimitingQueue<String> second = queue("q");
        second.add("x");
        second.get();
        clock.step(Duration.ofSeconds(3));
        assertThat(value("workqueue_depth", "q")).isZero();
        assertThat(value("workqueue_longest_running_processor_seconds", "q")).isCloseTo(3.0, within(1e-9));
        assertThat(value("workqueue_adds_total", "q"))
                .as("the counter carries on")
                .isEqualTo(3);
    }
}
