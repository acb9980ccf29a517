package io.kubeloop.workqueue;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * client-go's work-queue metrics through Micrometer. With a Prometheus registry the names are exactly
 * client-go's ({@code workqueue_depth}, {@code workqueue_adds_total}, {@code workqueue_queue_duration_seconds},
 * {@code workqueue_work_duration_seconds}, {@code workqueue_unfinished_work_seconds},
 * {@code workqueue_longest_running_processor_seconds}, {@code workqueue_retries_total}), each with the label
 * {@code name}, and the two duration histograms have client-go's buckets: 1 µs to 1000 s, ×10 each.
 *
 * <p>client-go refreshes the two "work in progress" gauges from a 500 ms ticker thread; here they are
 * computed when the registry reads them, which needs no thread and is never stale.
 *
 * <p>A priority queue's {@code workqueue_depth} has one gauge per priority, tagged {@code priority} (as in
 * controller-runtime): the first {@value #PRIORITY_TAG_LIMIT} distinct priorities get their own value,
 * later ones share {@value #PRIORITY_OVERFLOW}, so that a caller inventing priorities cannot grow the
 * registry without bound. Depth hooks run under the queue's lock; the gauges read atomics without it.
 */
final class MicrometerQueueMetrics implements QueueMetrics {

    /** client-go's duration buckets: exponential from 1e-6 s, factor 10, 10 buckets. */
    static final Duration[] DURATION_BUCKETS = durationBuckets();

    /** controller-runtime's cap on the distinct values of {@code workqueue_depth}'s {@code priority} tag. */
    static final int PRIORITY_TAG_LIMIT = 25;

    /** The {@code priority} tag of the depth of every priority past the first {@link #PRIORITY_TAG_LIMIT}. */
    static final String PRIORITY_OVERFLOW = "exceeded_cardinality_limit";

    private final MeterRegistry registry;
    private final Tags tags;
    /** The plain queue's depth; a priority queue's depth of priority 0. */
    private final AtomicLong depth = new AtomicLong();
    /** Priority queue only (else null): depth per priority, at most {@link #PRIORITY_TAG_LIMIT} entries. */
    private final HashMap<Integer, AtomicLong> depthByPriority;
    /** Priority queue only: the shared depth of the priorities past the limit; registered on first use. */
    private AtomicLong overflowDepth;

    private final Counter adds;
    private final Counter retries;
    private final Timer queueDuration;
    private final Timer workDuration;
    /** Guarded by the queue's lock: the priority queue adds depth gauges as priorities appear. */
    private final List<Meter> gauges = new ArrayList<>();

    private final Supplier<InFlightAges> inFlight;

    /** @param byPriority whether {@code workqueue_depth} is one gauge per priority (a priority queue) */
    MicrometerQueueMetrics(String name, MeterRegistry registry, Supplier<InFlightAges> inFlight, boolean byPriority) {
        this.registry = registry;
        this.inFlight = inFlight;
        this.tags = Tags.of("name", name);
        this.adds = Counter.builder("workqueue.adds")
                .description("Total number of adds handled by workqueue")
                .tags(tags)
                .register(registry);
        this.retries = Counter.builder("workqueue.retries")
                .description("Total number of retries handled by workqueue")
                .tags(tags)
                .register(registry);
        this.queueDuration = Timer.builder("workqueue.queue.duration")
                .description("How long in seconds an item stays in workqueue before being requested")
                .serviceLevelObjectives(DURATION_BUCKETS)
                .tags(tags)
                .register(registry);
        this.workDuration = Timer.builder("workqueue.work.duration")
                .description("How long in seconds processing an item from workqueue takes")
                .serviceLevelObjectives(DURATION_BUCKETS)
                .tags(tags)
                .register(registry);
        if (byPriority) {
            depthByPriority = new HashMap<>();
            depthByPriority.put(0, depth);
            gauges.add(depthGauge(depth, Tags.of("priority", "0")));
        } else {
            depthByPriority = null;
            gauges.add(depthGauge(depth, Tags.empty()));
        }
        gauges.addAll(List.of(
                Gauge.builder("workqueue.unfinished.work", this, MicrometerQueueMetrics::unfinishedWorkSeconds)
                        .description("How many seconds of work has been done that is in progress and hasn't "
                                + "been observed by work_duration. Large values indicate stuck threads.")
                        .baseUnit("seconds")
                        .tags(tags)
                        .strongReference(true)
                        .register(registry),
                Gauge.builder(
                                "workqueue.longest.running.processor",
                                this,
                                MicrometerQueueMetrics::longestRunningProcessorSeconds)
                        .description("How many seconds has the longest running processor for workqueue been running.")
                        .baseUnit("seconds")
                        .tags(tags)
                        .strongReference(true)
                        .register(registry)));
    }

    private Gauge depthGauge(AtomicLong value, Tags extra) {
        return Gauge.builder("workqueue.depth", value, AtomicLong::get)
                .description("Current depth of workqueue")
                .tags(tags.and(extra))
                .strongReference(true)
                .register(registry);
    }

    /** The depth cell of {@code priority}; registers its gauge the first time. Caller holds the queue's lock. */
    private AtomicLong depth(int priority) {
        if (depthByPriority == null) {
            return depth;
        }
        AtomicLong cell = depthByPriority.get(priority);
        if (cell != null) {
            return cell;
        }
        if (depthByPriority.size() < PRIORITY_TAG_LIMIT) {
            cell = new AtomicLong();
            depthByPriority.put(priority, cell);
            gauges.add(depthGauge(cell, Tags.of("priority", Integer.toString(priority))));
            return cell;
        }
        if (overflowDepth == null) {
            overflowDepth = new AtomicLong();
            gauges.add(depthGauge(overflowDepth, Tags.of("priority", PRIORITY_OVERFLOW)));
        }
        return overflowDepth;
    }

    @Override
    public boolean enabled() {
        return true;
    }

    @Override
    public void add(int priority) {
        adds.increment();
        depth(priority).incrementAndGet();
    }

    @Override
    public void get(long queuedNanos, int priority) {
        depth(priority).decrementAndGet();
        queueDuration.record(queuedNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void reprioritize(int from, int to) {
        AtomicLong source = depth(from);
        AtomicLong target = depth(to);
        if (source != target) {
            source.decrementAndGet();
            target.incrementAndGet();
        }
    }

    @Override
    public void done(long workNanos) {
        workDuration.record(workNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void retry() {
        retries.increment();
    }

    @Override
    public void shutDown() {
        gauges.forEach(registry::remove); // removing an absent meter is a no-op
    }

    double unfinishedWorkSeconds() {
        return inFlight.get().totalNanos() / 1e9;
    }

    double longestRunningProcessorSeconds() {
        return inFlight.get().longestNanos() / 1e9;
    }

    private static Duration[] durationBuckets() {
        Duration[] buckets = new Duration[10];
        long nanos = 1_000;
        for (int i = 0; i < buckets.length; i++) {
            buckets[i] = Duration.ofNanos(nanos);
            nanos *= 10;
        }
        return buckets;
    }
}
