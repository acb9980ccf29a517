package io.kubeloop.controller.internal.events;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.EventSource;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.kubeloop.clock.Clock;
import io.kubeloop.clock.TokenBucket;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.LongSupplier;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * client-go's {@code record.EventCorrelator} ({@code tools/record/events_cache.go}): decides, for each event about
 * to be written, whether to create it, to patch an earlier Event with a higher count, or to skip it. Three steps, in
 * client-go's order, each with its own LRU cache of {@link Options#lruCacheSize} entries:
 *
 * <ol>
 *   <li><b>Aggregate.</b> Events that differ only in their message (same source, involved object, type, reason,
 *       reporting component and instance) are tracked per group with the set of messages seen; a group older than
 *       {@link Options#aggregateInterval} (since its last event) starts afresh. While a group has fewer than
 *       {@link Options#aggregateMaxEvents} messages the event passes unchanged, keyed by all its fields; from then
 *       on it becomes a new event {@code (combined from similar events): <message>} keyed by the group, and the
 *       oldest message leaves the set (client-go pops an arbitrary one; kubeloop the oldest, to be deterministic).</li>
 *   <li><b>Observe (dedup).</b> If an event with the same key was seen before, the new one takes the earlier one's
 *       name, resourceVersion and firstTimestamp, {@code count + 1}, and a strategic merge patch of
 *       {@code count}, {@code lastTimestamp} and {@code message}. The observation is recorded whether or not the
 *       next step lets the event through, so {@code count} counts occurrences, not writes.</li>
 *   <li><b>Spam filter.</b> One {@link TokenBucket} per source and involved object ({@link Options#spamBurst},
 *       refilled at {@link Options#spamQps}): no token, no write.</li>
 * </ol>
 *
 * <p>After a successful write the caller gives the server's Event to {@link #updateState}, so the next patch
 * targets the stored name and count.
 *
 * <p>Not thread-safe: confined to the one writer thread of an {@link EventBroadcaster} (client-go correlates on
 * its sink goroutine too, never on the caller's).
 */
final class EventCorrelator {

    /** client-go's defaults: {@code maxLruCacheEntries}, {@code defaultAggregate*}, {@code defaultSpam*}. */
    record Options(
            int lruCacheSize, int aggregateMaxEvents, Duration aggregateInterval, int spamBurst, double spamQps) {

        static final Options DEFAULTS = new Options(4096, 10, Duration.ofMinutes(10), 25, 1.0 / 300);

        Options {
            if (lruCacheSize < 1 || aggregateMaxEvents < 1 || spamBurst < 1 || !(spamQps > 0)) {
                throw new IllegalArgumentException("correlator options must be positive: lruCacheSize="
                        + lruCacheSize + ", aggregateMaxEvents=" + aggregateMaxEvents + ", spamBurst=" + spamBurst
                        + ", spamQps=" + spamQps);
            }
            Objects.requireNonNull(aggregateInterval, "aggregateInterval");
        }
    }

    /**
     * What to do with one event.
     *
     * @param event the event to write (null when skipped)
     * @param patch the strategic merge patch for an event seen before (then {@code event.count > 1}), else null
     * @param skip true when the spam filter refused it
     */
    record Result(Event event, String patch, boolean skip) {
        static final Result SKIP = new Result(null, null, true);
    }

    static final String COMBINED_PREFIX = "(combined from similar events): ";

    private static final ObjectMapper JSON = JsonMapper.builder().build();

    private final Clock clock;
    private final Options options;
    private final LongSupplier nameSuffix;

    /** Aggregation groups by aggregate key. */
    private final Lru<String, AggregateRecord> aggregates;
    /** The last observation of each event key (or aggregate key for combined events). */
    private final Lru<String, Observation> observations;
    /** One bucket per source and involved object. */
    private final Lru<String, TokenBucket> spam;

    /**
     * @param nameSuffix the unique suffix of a new Event's name (client-go: the time in Unix nanoseconds)
     */
    EventCorrelator(Clock clock, Options options, LongSupplier nameSuffix) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.options = Objects.requireNonNull(options, "options");
        this.nameSuffix = Objects.requireNonNull(nameSuffix, "nameSuffix");
        this.aggregates = new Lru<>(options.lruCacheSize());
        this.observations = new Lru<>(options.lruCacheSize());
        this.spam = new Lru<>(options.lruCacheSize());
    }

    /** Aggregates, observes and filters {@code event} (not changed; the result holds a copy when it differs). */
    Result correlate(Event event) {
        Keyed aggregated = aggregate(event);
        Observed observed = observe(aggregated.event(), aggregated.key());
        if (filtered(observed.event())) {
            return Result.SKIP;
        }
        return new Result(observed.event(), observed.patch(), false);
    }

    /** Records the server's copy of a written Event: its name, resourceVersion, count and firstTimestamp. */
    void updateState(Event stored) {
        observations.put(eventKey(stored), Observation.of(stored));
    }

    // --- aggregation

    private record Keyed(Event event, String key) {}

    /** Invariant: {@code messages.size() < aggregateMaxEvents} between calls. */
    private static final class AggregateRecord {
        final Set<String> messages = new LinkedHashSet<>();
        long lastNanos;
    }

    private Keyed aggregate(Event event) {
        long now = clock.nanoTime();
        String eventKey = eventKey(event);
        String aggregateKey = aggregateKey(event);
        AggregateRecord record = aggregates.get(aggregateKey);
        if (record == null
                || now - record.lastNanos > options.aggregateInterval().toNanos()) {
            record = new AggregateRecord();
        }
        record.messages.add(nullToEmpty(event.getMessage()));
        record.lastNanos = now;
        aggregates.put(aggregateKey, record);
        if (record.messages.size() < options.aggregateMaxEvents()) {
            return new Keyed(event, eventKey);
        }
        Iterator<String> oldest = record.messages.iterator();
        oldest.next();
        oldest.remove();

        Instant at = clock.now();
        Event combined = new EventBuilder()
                .withNewMetadata()
                .withName(event.getInvolvedObject().getName() + "." + Long.toHexString(nameSuffix.getAsLong()))
                .withNamespace(event.getMetadata().getNamespace())
                .endMetadata()
                .withCount(1)
                .withFirstTimestamp(timestamp(at))
                .withLastTimestamp(timestamp(at))
                .withInvolvedObject(event.getInvolvedObject())
                .withMessage(COMBINED_PREFIX + nullToEmpty(event.getMessage()))
                .withType(event.getType())
                .withReason(event.getReason())
                .withSource(event.getSource())
                // client-go leaves these two out of the combined event; they cost nothing and say who wrote it
                .withReportingComponent(event.getReportingComponent())
                .withReportingInstance(event.getReportingInstance())
                .build();
        return new Keyed(combined, aggregateKey);
    }

    // --- observation (dedup)

    private record Observed(Event event, String patch) {}

    private record Observation(int count, String firstTimestamp, String name, String resourceVersion) {
        static Observation of(Event e) {
            return new Observation(
                    e.getCount() == null ? 0 : e.getCount(),
                    e.getFirstTimestamp(),
                    e.getMetadata().getName(),
                    e.getMetadata().getResourceVersion());
        }
    }

    private Observed observe(Event event, String key) {
        Event observed = new EventBuilder(event).build();
        String patch = null;
        Observation last = observations.get(key);
        if (last != null && last.count() > 0) {
            observed.getMetadata().setName(last.name());
            observed.getMetadata().setResourceVersion(last.resourceVersion());
            observed.setFirstTimestamp(last.firstTimestamp());
            observed.setCount(last.count() + 1);
            // client-go's two-way strategic merge patch between this event and a copy without count,
            // lastTimestamp and message: exactly those three fields (message only when there is one)
            ObjectNode p = JSON.createObjectNode();
            p.put("count", observed.getCount());
            p.put("lastTimestamp", observed.getLastTimestamp());
            if (!nullToEmpty(observed.getMessage()).isEmpty()) {
                p.put("message", observed.getMessage());
            }
            patch = JSON.writeValueAsString(p);
        }
        observations.put(key, Observation.of(observed));
        return new Observed(observed, patch);
    }

    // --- spam filter

    private boolean filtered(Event event) {
        String key = spamKey(event);
        TokenBucket bucket = spam.get(key);
        if (bucket == null) {
            bucket = new TokenBucket(options.spamQps(), options.spamBurst(), clock);
        }
        spam.put(key, bucket);
        return !bucket.tryTake();
    }

    // --- keys, as client-go's getEventKey, getSpamKey and EventAggregatorByReasonFunc (joined by a separator
    // that cannot occur in the fields, where client-go joins them with "")

    private static final String SEP = "\u0000";

    static String eventKey(Event e) {
        ObjectReference o = e.getInvolvedObject();
        EventSource s = source(e);
        return String.join(
                SEP,
                nullToEmpty(s.getComponent()),
                nullToEmpty(s.getHost()),
                nullToEmpty(o.getKind()),
                nullToEmpty(o.getNamespace()),
                nullToEmpty(o.getName()),
                nullToEmpty(o.getFieldPath()),
                nullToEmpty(o.getUid()),
                nullToEmpty(o.getApiVersion()),
                nullToEmpty(e.getType()),
                nullToEmpty(e.getReason()),
                nullToEmpty(e.getMessage()));
    }

    static String spamKey(Event e) {
        ObjectReference o = e.getInvolvedObject();
        EventSource s = source(e);
        return String.join(
                SEP,
                nullToEmpty(s.getComponent()),
                nullToEmpty(s.getHost()),
                nullToEmpty(o.getKind()),
                nullToEmpty(o.getNamespace()),
                nullToEmpty(o.getName()),
                nullToEmpty(o.getUid()),
                nullToEmpty(o.getApiVersion()));
    }

    static String aggregateKey(Event e) {
        ObjectReference o = e.getInvolvedObject();
        EventSource s = source(e);
        return String.join(
                SEP,
                nullToEmpty(s.getComponent()),
                nullToEmpty(s.getHost()),
                nullToEmpty(o.getKind()),
                nullToEmpty(o.getNamespace()),
                nullToEmpty(o.getName()),
                nullToEmpty(o.getUid()),
                nullToEmpty(o.getApiVersion()),
                nullToEmpty(e.getType()),
                nullToEmpty(e.getReason()),
                nullToEmpty(e.getReportingComponent()),
                nullToEmpty(e.getReportingInstance()));
    }

    private static EventSource source(Event e) {
        return e.getSource() != null ? e.getSource() : new EventSource();
    }

    /** metav1.Time's wire form: RFC 3339 in UTC, whole seconds. */
    static String timestamp(Instant at) {
        return at.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }

    /** groupcache's {@code lru.Cache}: a get or put makes the entry the most recent; the least recent goes first. */
    private static final class Lru<K, V> extends LinkedHashMap<K, V> {
        private static final long serialVersionUID = 1L;
        private final int capacity;

        Lru(int capacity) {
            super(16, 0.75f, true);
            this.capacity = capacity;
        }

        @Override
        protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
            return size() > capacity;
        }
    }
}
