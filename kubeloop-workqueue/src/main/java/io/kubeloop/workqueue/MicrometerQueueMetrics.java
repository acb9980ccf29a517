package io.kubeloop.workqueue;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
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
 */
final class MicrometerQueueMetrics implements QueueMetrics {

    /** client-go's duration buckets: exponential from 1e-6 s, factor 10, 10 buckets. */
    static final Duration[] DURATION_BUCKETS = durationBuckets();

    private final MeterRegistry registry;
    private final AtomicLong depth = new AtomicLong();
    private final Counter adds;
    private final Counter retries;
    private final Timer queueDuration;
    private final Timer workDuration;
    private final List<Meter> gauges;
    private final Supplier<InFlightAges> inFlight;

    MicrometerQueueMetrics(String name, MeterRegistry registry, Supplier<InFlightAges> inFlight) {
        this.registry = registry;
        this.inFlight = inFlight;
        Tags tags = Tags.of("name", name);
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
        this.gauges = List.of(
                Gauge.builder("workqueue.depth", depth, AtomicLong::get)
                        .description("Current depth of workqueue")
                        .tags(tags)
                        .strongReference(true)
                        .register(registry),
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
                        .register(registry));
    }

    @Override
    public boolean enabled() {
        return true;
    }

    @Override
    public void add() {
        adds.increment();
        depth.incrementAndGet();
    }

    @Override
    public void get(long queuedNanos) {
        depth.decrementAndGet();
        queueDuration.record(queuedNanos, TimeUnit.NANOSECONDS);
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
