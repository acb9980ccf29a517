package io.kubeloop.informer.reflector;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Reflector metrics through Micrometer, each with the tag {@code name}. Micrometer's dotted names come out in
 * Prometheus as: counter {@code reflector.items} → {@code reflector_items_total}, {@code reflector.watch.events}
 * → {@code reflector_watch_events_total{type}}, {@code reflector.lists} → {@code reflector_lists_total}, timer
 * {@code reflector.list.duration} → {@code reflector_list_duration_seconds}, {@code reflector.relists} →
 * {@code reflector_relists_total{reason}}, {@code reflector.watch.restarts} →
 * {@code reflector_watch_restarts_total{reason}}, {@code reflector.decode.errors} →
 * {@code reflector_decode_errors_total}, gauge {@code reflector.last.event.timestamp} (seconds) →
 * {@code reflector_last_event_timestamp_seconds}, and {@code api_request_failures{verb}}: a count of failures,
 * registered as a gauge so that its name comes out exactly as the seed articles tell SREs to watch it (Prometheus
 * appends {@code _total} to every counter; the informer's {@code cache_resync_count} is made the same way).
 *
 * <p>Meters are looked up once per tag set and kept: a handful of types and reasons. {@link #close()} removes every
 * one of them, so a program that creates and stops reflectors does not grow its registry.
 */
final class MicrometerReflectorMetrics implements ReflectorMetrics {

    private final MeterRegistry registry;
    private final Tags tags;
    private final Counter items;
    private final Counter lists;
    private final Timer listDuration;
    private final Counter decodeErrors;
    /** Wall-clock milliseconds of the last event; 0 before the first. */
    private final AtomicLong lastEventMillis = new AtomicLong();

    private final ConcurrentHashMap<String, Counter> events = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Counter> relists = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Counter> restarts = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, AtomicLong> failures = new ConcurrentHashMap<>();
    /** Every meter registered here, for {@link #close()}. */
    private final java.util.Queue<Meter> registered = new java.util.concurrent.ConcurrentLinkedQueue<>();

    MicrometerReflectorMetrics(String name, MeterRegistry registry) {
        this.registry = registry;
        this.tags = Tags.of("name", name);
        this.items = track(Counter.builder("reflector.items")
                .description("Objects received by the reflector, from lists and watch events")
                .tags(tags)
                .register(registry));
        this.lists = track(Counter.builder("reflector.lists")
                .description("Lists (initial and relists) completed by the reflector")
                .tags(tags)
                .register(registry));
        this.listDuration = track(Timer.builder("reflector.list.duration")
                .description("How long a reflector's list (all pages) took")
                .tags(tags)
                .register(registry));
        this.decodeErrors = track(Counter.builder("reflector.decode.errors")
                .description("Objects the reflector could not decode to its Java type and left out of the cache, "
                        + "once per object and resourceVersion")
                .tags(tags)
                .register(registry));
        track(Gauge.builder("reflector.last.event.timestamp", lastEventMillis, v -> v.get() / 1000.0)
                .description("Unix time of the last list or watch event the reflector received; "
                        + "now minus this is the age of the last event")
                .baseUnit("seconds")
                .tags(tags)
                .strongReference(true)
                .register(registry));
    }

    @Override
    public void listed(int count, long nanos, long epochMillis) {
        lists.increment();
        items.increment(count);
        listDuration.record(nanos, TimeUnit.NANOSECONDS);
        lastEventMillis.set(epochMillis);
    }

    @Override
    public void watchEvent(String type, long epochMillis) {
        events.computeIfAbsent(
                        type,
                        t -> track(Counter.builder("reflector.watch.events")
                                .description("Watch events received by the reflector, by type")
                                .tags(tags)
                                .tag("type", t)
                                .register(registry)))
                .increment();
        if (!type.equals("BOOKMARK") && !type.equals("ERROR")) {
            items.increment();
        }
        lastEventMillis.set(epochMillis);
    }

    @Override
    public void decodeError() {
        decodeErrors.increment();
    }

    @Override
    public void relist(String reason) {
        relists.computeIfAbsent(
                        reason,
                        r -> track(Counter.builder("reflector.relists")
                                .description("Relists by the reflector, by reason")
                                .tags(tags)
                                .tag("reason", r)
                                .register(registry)))
                .increment();
    }

    @Override
    public void watchRestart(String reason) {
        restarts.computeIfAbsent(
                        reason,
                        r -> track(Counter.builder("reflector.watch.restarts")
                                .description("Watches the reflector opened again after one ended, by reason")
                                .tags(tags)
                                .tag("reason", r)
                                .register(registry)))
                .increment();
    }

    @Override
    public void apiFailure(String verb) {
        failures.computeIfAbsent(verb, v -> {
                    AtomicLong count = new AtomicLong();
                    track(Gauge.builder("api_request_failures", count, AtomicLong::get)
                            .description(
                                    "Failed list and watch requests of the reflector, by verb (a count that only grows)")
                            .tags(tags)
                            .tag("verb", v)
                            .strongReference(true)
                            .register(registry));
                    return count;
                })
                .incrementAndGet();
    }

    private <M extends Meter> M track(M meter) {
        registered.add(meter);
        return meter;
    }

    @Override
    public void close() {
        for (Meter meter; (meter = registered.poll()) != null; ) {
            registry.remove(meter);
        }
    }
}
