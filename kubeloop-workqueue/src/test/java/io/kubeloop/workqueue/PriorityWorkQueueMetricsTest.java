package io.kubeloop.workqueue;

import static io.kubeloop.testsupport.TestThreads.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.clock.FakeClock;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A priority queue's {@code workqueue_depth}: one gauge per priority (controller-runtime's {@code priority}
 * label), following adds, raises, hand-outs and re-adds while processing, capped in cardinality. The other
 * meters are the plain queue's ({@link WorkQueueMeterNamesTest} checks both against the README).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PriorityWorkQueueMetricsTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final FakeClock clock = new FakeClock();
    private final PriorityWorkQueue<String> q = WorkQueue.<String>builder()
            .name("pq")
            .clock(clock)
            .meterRegistry(registry)
            .buildPriority();

    @AfterEach
    void shutDown() {
        q.shutDown();
        registry.close();
    }

    /** priority tag → depth, for the queue "pq"; zero-valued gauges included. */
    private Map<String, Double> depths() {
        Map<String, Double> out = new TreeMap<>();
        for (Gauge g : registry.find("workqueue.depth").tag("name", "pq").gauges()) {
            out.put(g.getId().getTag("priority"), g.value());
        }
        return out;
    }

    @Test
    void aFreshQueueReportsDepthZeroAtPriorityZero() {
        assertThat(depths()).containsExactly(Map.entry("0", 0.0));
    }

    @Test
    void theDepthOfEachPriorityFollowsAddsRaisesAndHandOuts() throws InterruptedException {
        q.add("a", PriorityWorkQueue.LOW_PRIORITY);
        q.add("b");
        q.add("c", 5);
        q.add("c", 1); // a lower re-add changes nothing
        assertThat(depths()).containsExactly(Map.entry("-100", 1.0), Map.entry("0", 1.0), Map.entry("5", 1.0));

        assertThat(q.get()).isEqualTo("c");
        q.add("a"); // raised from -100 to 0
        assertThat(depths()).containsExactly(Map.entry("-100", 0.0), Map.entry("0", 2.0), Map.entry("5", 0.0));

        // re-added while processing: counted at the re-add's priority, moved by a higher re-add
        q.add("c", PriorityWorkQueue.LOW_PRIORITY);
        assertThat(depths()).containsEntry("-100", 1.0);
        q.add("c", 3);
        assertThat(depths()).containsEntry("-100", 0.0).containsEntry("3", 1.0);
        q.done("c");
        assertThat(depths()).containsEntry("3", 1.0);
        assertThat(q.get()).isEqualTo("c");
        assertThat(q.get()).isEqualTo("b");
        assertThat(q.get()).isEqualTo("a");
        assertThat(depths())
                .allSatisfy((priority, depth) ->
                        assertThat(depth).as("priority %s", priority).isZero());
        assertThat(registry.get("workqueue.adds").tag("name", "pq").counter().count())
                .as("adds that were not deduplicated")
                .isEqualTo(4);
    }

    @Test
    void aDelayedItemCountsAtItsPriorityWhenItBecomesReady() {
        q.addAfter("a", Duration.ofSeconds(1), 7);
        assertThat(depths()).doesNotContainKey("7");
        eventually().until(clock::hasWaiters);
        clock.step(Duration.ofSeconds(1));
        eventually().until(() -> q.len() == 1);
        assertThat(depths()).containsEntry("7", 1.0);
        assertThat(registry.get("workqueue.retries").tag("name", "pq").counter().count())
                .isEqualTo(1);
    }

    @Test
    void beyondTwentyFivePrioritiesTheDepthIsReportedUnderExceededCardinalityLimit() throws InterruptedException {
        for (int p = 1; p <= 30; p++) {
            q.add("item-" + p, p);
        }
        Map<String, Double> depths = depths();
        assertThat(depths).hasSize(26); // 25 priorities (0 and 1..24) plus the overflow
        assertThat(depths).containsEntry("24", 1.0).doesNotContainKey("25");
        assertThat(depths).containsEntry("exceeded_cardinality_limit", 6.0);

        assertThat(q.get()).isEqualTo("item-30");
        q.add("item-1", 31); // a raise from a tagged priority to the overflow
        assertThat(depths()).containsEntry("1", 0.0).containsEntry("exceeded_cardinality_limit", 6.0);
        for (int i = 0; i < 29; i++) {
            q.get();
        }
        assertThat(depths())
                .allSatisfy((priority, depth) ->
                        assertThat(depth).as("priority %s", priority).isZero());
    }

    @Test
    void aPlainQueueHasNoPriorityTagAndAPriorityQueueAlways() {
        RateLimitingQueue<String> plain = WorkQueue.<String>builder()
                .name("plain")
                .clock(clock)
                .meterRegistry(registry)
                .buildRateLimiting();
        try {
            assertThat(registry.get("workqueue.depth")
                            .tag("name", "plain")
                            .gauge()
                            .getId()
                            .getTag("priority"))
                    .isNull();
            for (Meter m : registry.find("workqueue.depth").tag("name", "pq").meters()) {
                assertThat(m.getId().getTag("priority")).isNotNull();
            }
        } finally {
            plain.shutDown();
        }
    }

    @Test
    void everyDepthGaugeIsRemovedAtShutDown() {
        q.add("a", PriorityWorkQueue.LOW_PRIORITY);
        q.add("b", 9);
        assertThat(depths()).hasSize(3);
        q.shutDown();
        assertThat(depths()).isEmpty();
        assertThat(registry.find("workqueue.adds").tag("name", "pq").counter()).isNotNull();
    }
}
