package io.kubeloop.informer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * The informer's metrics through Micrometer, each with the tag {@code name} (the informer's name) and, per
 * handler, {@code handler}. Under Prometheus' naming convention they come out as:
 *
 * <ul>
 *   <li>{@code informer_cache_objects} (gauge): objects in the cache;</li>
 *   <li>{@code informer_handler_buffer_length} (gauge): notifications waiting for a handler, including the one it
 *       is handling;</li>
 *   <li>{@code informer_handler_duration_seconds} (histogram): time a handler took per notification;</li>
 *   <li>{@code informer_handler_errors_total} (counter): notifications whose handler threw;</li>
 *   <li>{@code informer_notifications_total{type}} (counter): notifications the process loop distributed,
 *       {@code type} = add, update, sync (an update with an unchanged resourceVersion, which reaches only the
 *       handlers due for a resync) or delete;</li>
 *   <li>{@code informer_process_errors_total{reason}} (counter): failures of the process loop, {@code reason} =
 *       failed (handling an object's deltas threw: the rest of them were dropped until the next relist; alert on
 *       any) or mutation (a cache write found a cached object changed in place by a reader);</li>
 *   <li>{@code cache_resync_count} (gauge): resync rounds so far. A gauge, not a counter, so that its name comes
 *       out exactly as the seed articles tell SREs to watch it: Prometheus appends {@code _total} to every
 *       counter.</li>
 * </ul>
 *
 * <p>Meters are removed from the registry when the informer stops (or the handler is removed), so a program
 * that creates and stops informers does not grow its registry (client-go's kubernetes#73587).
 */
final class MicrometerInformerMetrics implements InformerMetrics {

    /** 1 µs to 1000 s, ×10 each: the work-queue's duration buckets, so dashboards line up. */
    private static final Duration[] DURATION_BUCKETS = buckets();

    static final List<String> NOTIFICATION_TYPES = List.of("add", "update", "sync", "delete");

    private final MeterRegistry registry;
    private final String informerName;
    private final Tags tags;
    private final AtomicLong resyncRounds = new AtomicLong();
    private final Map<String, Counter> notifications;
    private final Map<String, Counter> processErrors;
    private final List<Meter> meters;

    MicrometerInformerMetrics(MeterRegistry registry, String informerName, LongSupplier cacheObjects) {
        this.registry = registry;
        this.informerName = informerName;
        this.tags = Tags.of("name", informerName);
        this.notifications = counters(
                "informer.notifications",
                "Notifications the informer distributed to its handlers, by type",
                "type",
                NOTIFICATION_TYPES);
        this.processErrors = counters(
                "informer.process.errors",
                "Failures of the informer's process loop, by reason",
                "reason",
                List.of("failed", "mutation"));
        Gauge objects = Gauge.builder("informer.cache.objects", cacheObjects, LongSupplier::getAsLong)
                .description("Number of objects in the informer's cache")
                .tags(tags)
                .strongReference(true)
                .register(registry);
        Gauge resyncs = Gauge.builder("cache.resync.count", resyncRounds, AtomicLong::get)
                .description("Number of resync rounds of the informer (at least one handler due)")
                .tags(tags)
                .strongReference(true)
                .register(registry);
        List<Meter> all = new java.util.ArrayList<>(List.of(objects, resyncs));
        all.addAll(notifications.values());
        all.addAll(processErrors.values());
        this.meters = List.copyOf(all);
    }

    /** One counter per value of {@code tag}. */
    private Map<String, Counter> counters(String name, String description, String tag, List<String> values) {
        Map<String, Counter> counters = new java.util.HashMap<>();
        for (String value : values) {
            counters.put(
                    value,
                    Counter.builder(name)
                            .description(description)
                            .tags(tags)
                            .tag(tag, value)
                            .register(registry));
        }
        return Map.copyOf(counters);
    }

    /** Increments the counter of {@code value}; an unknown value is a bug of the caller. */
    private void increment(Map<String, Counter> counters, String value, String what) {
        Counter counter = counters.get(value);
        if (counter == null) {
            throw new IllegalArgumentException("informer " + informerName + ": unknown " + what + " " + value);
        }
        counter.increment();
    }

    @Override
    public HandlerMetrics handler(String handlerName, IntSupplier bufferLength) {
        Tags handlerTags = tags.and("handler", handlerName);
        Gauge buffer = Gauge.builder("informer.handler.buffer.length", bufferLength, IntSupplier::getAsInt)
                .description("Notifications waiting for the handler, including the one it is handling")
                .tags(handlerTags)
                .strongReference(true)
                .register(registry);
        Timer duration = Timer.builder("informer.handler.duration")
                .description("How long the handler took per notification")
                .serviceLevelObjectives(DURATION_BUCKETS)
                .tags(handlerTags)
                .register(registry);
        Counter errors = Counter.builder("informer.handler.errors")
                .description("Notifications whose handler threw an exception")
                .tags(handlerTags)
                .register(registry);
        return new HandlerMetrics() {
            @Override
            public void handled(long nanos) {
                duration.record(Math.max(0, nanos), TimeUnit.NANOSECONDS);
            }

            @Override
            public void failed() {
                errors.increment();
            }

            @Override
            public void close() {
                registry.remove(buffer);
                registry.remove(duration);
                registry.remove(errors);
            }
        };
    }

    @Override
    public void notification(String type) {
        increment(notifications, type, "notification type");
    }

    @Override
    public void resync() {
        resyncRounds.incrementAndGet();
    }

    @Override
    public void processError(String reason) {
        increment(processErrors, reason, "process error reason");
    }

    @Override
    public void close() {
        meters.forEach(registry::remove);
    }

    private static Duration[] buckets() {
        Duration[] d = new Duration[10];
        long nanos = 1_000;
        for (int i = 0; i < d.length; i++) {
            d[i] = Duration.ofNanos(nanos);
            nanos *= 10;
        }
        return d;
    }
}
