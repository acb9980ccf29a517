package io.kubeloop.controller.internal.events;

import io.fabric8.kubernetes.api.model.Event;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.errors.KubernetesApiException;
import io.kubeloop.client.errors.NotFoundException;
import io.kubeloop.client.resource.PatchOptions;
import io.kubeloop.client.resource.PatchType;
import io.kubeloop.clock.Clock;
import io.kubeloop.clock.TokenBucket;
import io.kubeloop.controller.EventRecorder;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sink behind a manager's {@link EventRecorder}s (client-go's {@code EventBroadcaster} recording to an
 * {@code EventSink}): one bounded queue, one {@link EventCorrelator} and one writer thread per manager, shared by
 * every component's recorder.
 *
 * <p>Invariants:
 * <ul>
 *   <li>A caller never waits for the server: {@link Recorder#event} only builds the Event and offers it to the
 *       queue under a short lock; a full queue drops the new event.</li>
 *   <li>Only the writer thread ({@code kubeloop-events}, virtual, started with the first recorder) correlates and
 *       writes, one event at a time, in the order they were recorded; while it retries one event the others
 *       wait in the queue, as in client-go.</li>
 *   <li>Every event recorded is either written or counted once in {@code kubeloop.events.dropped} with its
 *       reason (except those correlated into an earlier Event's count, which is their record).</li>
 *   <li>After {@link #close} no event is accepted; the queued ones get one try each (no retry waits) until the
 *       close deadline, after which the writer is interrupted and the rest are dropped as {@code shutdown}.</li>
 * </ul>
 */
public final class EventBroadcaster {

    static final Logger log = LoggerFactory.getLogger(EventRecorder.class);

    /** Why an event was not written: the {@code reason} tag of {@code kubeloop.events.dropped}. */
    enum DropReason {
        QUEUE_FULL("queue-full"),
        INVALID("invalid"),
        SPAM_FILTER("spam-filter"),
        REJECTED("rejected"),
        RETRIES_EXHAUSTED("retries-exhausted"),
        SHUTDOWN("shutdown");

        final String tag;

        DropReason(String tag) {
            this.tag = tag;
        }
    }

    /**
     * The numbers of client-go's {@code record} package.
     *
     * @param queueCapacity {@code maxQueuedEvents}
     * @param maxTries {@code maxTriesPerEvent}
     * @param retryInterval {@code defaultSleepDuration} (the first wait is a random fraction of it)
     */
    record Options(int queueCapacity, int maxTries, Duration retryInterval, EventCorrelator.Options correlator) {
        static final Options DEFAULTS = new Options(1000, 12, Duration.ofSeconds(10), EventCorrelator.Options.DEFAULTS);
    }

    /** What a component name may hold: no blanks or control characters (it is shown in kubectl's SOURCE column). */
    private static final Pattern COMPONENT = Pattern.compile("[^\\s\\p{Cntrl}]{1,253}");

    /** Unique name suffixes across the JVM: client-go's Unix nanoseconds, made strictly increasing. */
    private static final AtomicLong LAST_SUFFIX = new AtomicLong();

    private final KubernetesClient client;
    private final Clock clock;
    private final MeterRegistry registry;
    private final Options options;
    private final EventCorrelator correlator;
    private final Map<String, Recorder> recorders = new ConcurrentHashMap<>();

    /** At most one queue-full WARN every 10 s. */
    private final TokenBucket queueFullLog;

    private final AtomicLong droppedSinceWarn = new AtomicLong();

    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled when an event is queued or closing starts (the idle writer waits on it). */
    private final Condition work = lock.newCondition();
    /** Signalled when closing starts (ends a retry wait) and when the writer ends (ends {@link #close}'s wait). */
    private final Condition stopping = lock.newCondition();
    /** Guarded by {@code lock}; at most {@code options.queueCapacity}. */
    private final ArrayDeque<Pending> queue = new ArrayDeque<>();
    /** Guarded by {@code lock}; once true, stays true. */
    private boolean closing;
    /** Guarded by {@code lock}; null until the first recorder. */
    private Thread writer;
    /** Guarded by {@code lock}. */
    private boolean writerDone;
    /** Guarded by {@code lock}: the writer holds an event it has not finished with. */
    private boolean writing;

    /** Recorders of {@code client}'s server, on {@code clock}, with client-go's numbers. */
    public EventBroadcaster(KubernetesClient client, Clock clock, MeterRegistry registry) {
        this(client, clock, registry, Options.DEFAULTS);
    }

    EventBroadcaster(KubernetesClient client, Clock clock, MeterRegistry registry, Options options) {
        this.client = Objects.requireNonNull(client, "client");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.registry = Objects.requireNonNull(registry, "registry");
        this.options = Objects.requireNonNull(options, "options");
        this.correlator = new EventCorrelator(clock, options.correlator(), () -> nextSuffix(clock));
        this.queueFullLog = new TokenBucket(0.1, 1, clock);
    }

    /**
     * The recorder of {@code component} (the Event's {@code source.component} and {@code reportingComponent}),
     * the same one for the same name. After {@link #close} it still returns one, whose events are dropped (and
     * counted as {@code shutdown}).
     *
     * @throws IllegalArgumentException if {@code component} is empty, longer than 253 characters, or holds blanks or
     *     control characters
     */
    public EventRecorder recorderFor(String component) {
        Objects.requireNonNull(component, "component");
        if (!COMPONENT.matcher(component).matches()) {
            throw new IllegalArgumentException("event recorder component \"" + component
                    + "\" must be 1 to 253 characters without blanks or control characters, e.g. \"my-controller\"");
        }
        lock.lock();
        try {
            if (writer == null && !closing) {
                // registered with the first recorder: a manager that records no events has no event meters
                Gauge.builder("kubeloop.events.queue.depth", this, EventBroadcaster::queueDepth)
                        .description("Events recorded and not yet written (at most 1000)")
                        .register(registry);
                writer = Thread.ofVirtual().name("kubeloop-events").unstarted(this::run);
                writer.start();
            }
        } finally {
            lock.unlock();
        }
        return recorders.computeIfAbsent(component, c -> new Recorder(this, c, clock, registry));
    }

    /**
     * Stops accepting events, gives each queued event one try until {@code timeout} has passed on the clock, then
     * interrupts the writer and drops the rest. Idempotent.
     */
    public void close(Duration timeout) {
        Thread w = null;
        lock.lock();
        try {
            closing = true;
            work.signalAll();
            stopping.signalAll();
            w = writer;
            if (w == null) {
                return;
            }
            long deadline = clock.nanoTime() + Math.max(0, timeout.toNanos());
            while (!writerDone && deadline - clock.nanoTime() > 0) {
                clock.awaitUntil(lock, stopping, deadline);
            }
            if (writerDone) {
                return;
            }
            if (writing || !queue.isEmpty()) {
                log.warn(
                        "Event writer did not finish within {}; dropping the {} event(s) still queued",
                        timeout,
                        queue.size() + (writing ? 1 : 0));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
        if (w == null) {
            return;
        }
        w.interrupt(); // an idle writer is on its way out already; a busy one stops now
        try {
            // bounded: an interrupted request ends at once, and the rest of the queue is only counted
            w.join(Duration.ofSeconds(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // --- the caller's side

    /** An event waiting to be written, and the recorder whose counters it goes to. */
    record Pending(Event event, Recorder recorder) {}

    void enqueue(Event event, Recorder recorder) {
        DropReason dropped = null;
        lock.lock();
        try {
            if (closing) {
                dropped = DropReason.SHUTDOWN;
            } else if (queue.size() >= options.queueCapacity()) {
                dropped = DropReason.QUEUE_FULL;
            } else {
                queue.addLast(new Pending(event, recorder));
                work.signal();
            }
        } finally {
            lock.unlock();
        }
        if (dropped == DropReason.SHUTDOWN) {
            recorder.dropped(dropped);
            log.debug("Event recorded after the manager closed, dropped: {}", Recorder.describe(event));
        } else if (dropped == DropReason.QUEUE_FULL) {
            recorder.dropped(dropped);
            long n = droppedSinceWarn.incrementAndGet();
            if (queueFullLog.tryTake()) {
                droppedSinceWarn.addAndGet(-n);
                log.warn(
                        "Event queue full ({} events waiting to be written): dropped {} event(s) since the last"
                                + " warning, the latest {}",
                        options.queueCapacity(),
                        n,
                        Recorder.describe(event));
            }
        }
    }

    static long nextSuffix(Clock clock) {
        java.time.Instant now = clock.now();
        long nanos = now.getEpochSecond() * 1_000_000_000L + now.getNano();
        return LAST_SUFFIX.accumulateAndGet(nanos, (last, t) -> Math.max(last + 1, t));
    }

    private double queueDepth() {
        lock.lock();
        try {
            return queue.size();
        } finally {
            lock.unlock();
        }
    }

    // --- the writer's side

    private void run() {
        try {
            while (true) {
                Pending next;
                lock.lock();
                try {
                    while (queue.isEmpty() && !closing) {
                        work.await();
                    }
                    next = queue.pollFirst();
                    writing = next != null;
                } finally {
                    lock.unlock();
                }
                if (next == null) {
                    return; // closing, and everything queued had its try
                }
                if (Thread.currentThread().isInterrupted()) {
                    next.recorder().dropped(DropReason.SHUTDOWN);
                    continue;
                }
                try {
                    write(next);
                } catch (RuntimeException | Error e) {
                    // a defect here must not end the one thread every recorder depends on
                    next.recorder().dropped(DropReason.REJECTED);
                    log.error("Unable to write event {} (will not retry)", Recorder.describe(next.event()), e);
                } finally {
                    lock.lock();
                    try {
                        writing = false;
                    } finally {
                        lock.unlock();
                    }
                }
            }
        } catch (InterruptedException e) {
            // only close() interrupts, and only once closing: drop what is left
            lock.lock();
            try {
                Pending p;
                while ((p = queue.pollFirst()) != null) {
                    p.recorder().dropped(DropReason.SHUTDOWN);
                }
            } finally {
                lock.unlock();
            }
        } finally {
            lock.lock();
            try {
                writerDone = true;
                stopping.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    /** client-go's {@code recordToSink}: correlate, then up to {@code maxTries} attempts. */
    private void write(Pending pending) {
        Recorder recorder = pending.recorder();
        EventCorrelator.Result result = correlator.correlate(pending.event());
        if (result.skip()) {
            recorder.dropped(DropReason.SPAM_FILTER);
            log.debug(
                    "Event dropped by the spam filter (25 per object, then 1 every 5 minutes): {}",
                    Recorder.describe(pending.event()));
            return;
        }
        Event event = result.event();
        for (int tries = 1; ; tries++) {
            Attempt outcome = attempt(recorder, event, result.patch(), tries);
            if (outcome != Attempt.RETRY) {
                return;
            }
            if (tries >= options.maxTries()) {
                recorder.dropped(DropReason.RETRIES_EXHAUSTED);
                log.error(
                        "Unable to write event {} (retry limit of {} tries exceeded)",
                        Recorder.describe(event),
                        options.maxTries());
                return;
            }
            // the first wait is a random fraction, so that clients do not retry in step after an outage
            long interval = options.retryInterval().toNanos();
            long delay =
                    tries == 1 ? (long) (interval * ThreadLocalRandom.current().nextDouble()) : interval;
            if (!awaitRetry(delay)) {
                recorder.dropped(DropReason.SHUTDOWN);
                log.warn("Unable to write event {} (the manager is closing)", Recorder.describe(event));
                return;
            }
        }
    }

    private enum Attempt {
        DONE,
        RETRY
    }

    /** client-go's {@code recordEvent}: patch an event seen before (create it if gone), else create. */
    private Attempt attempt(Recorder recorder, Event event, String patch, int tries) {
        String namespace = event.getMetadata().getNamespace();
        var events = client.resources(Event.class).inNamespace(namespace);
        try {
            Event stored = null;
            boolean update = event.getCount() != null && event.getCount() > 1 && patch != null;
            if (update) {
                try {
                    stored = events.patch(
                            event.getMetadata().getName(), PatchType.STRATEGIC, patch, PatchOptions.none());
                    recorder.written("patch");
                } catch (NotFoundException gone) {
                    // deleted (or expired) since: create it again under the same name
                }
            }
            if (stored == null) {
                Event create = new io.fabric8.kubernetes.api.model.EventBuilder(event)
                        .editMetadata()
                        .withResourceVersion(null)
                        .endMetadata()
                        .build();
                stored = events.create(create);
                recorder.written("create");
            }
            correlator.updateState(stored);
            return Attempt.DONE;
        } catch (KubernetesApiException e) {
            if (e.code() == 429 || e.code() >= 500) {
                retryable(event, e, tries);
                return Attempt.RETRY;
            }
            recorder.dropped(DropReason.REJECTED);
            boolean expected = "AlreadyExists".equals(e.reason()) || namespaceTerminating(e);
            if (expected) {
                log.debug("Server rejected event {}: {} (will not retry)", Recorder.describe(event), e.getMessage());
            } else {
                log.error("Server rejected event {}: {} (will not retry)", Recorder.describe(event), e.getMessage());
            }
            return Attempt.DONE;
        } catch (UncheckedIOException e) {
            if (e.getCause() instanceof InterruptedIOException
                    || Thread.currentThread().isInterrupted()) {
                recorder.dropped(DropReason.SHUTDOWN);
                Thread.currentThread().interrupt();
                return Attempt.DONE;
            }
            retryable(event, e, tries);
            return Attempt.RETRY;
        }
    }

    private void retryable(Event event, RuntimeException e, int tries) {
        log.warn(
                "Unable to write event {}: {} (try {} of {}{})",
                Recorder.describe(event),
                e.getMessage(),
                tries,
                options.maxTries(),
                tries < options.maxTries() ? ", will retry" : "");
    }

    private static boolean namespaceTerminating(KubernetesApiException e) {
        var details = e.status() == null ? null : e.status().getDetails();
        return details != null
                && details.getCauses() != null
                && details.getCauses().stream().anyMatch(c -> "NamespaceTerminating".equals(c.getReason()));
    }

    /** Waits {@code delayNanos} on the clock; false if closing started (or the thread was interrupted) first. */
    private boolean awaitRetry(long delayNanos) {
        lock.lock();
        try {
            long deadline = clock.nanoTime() + delayNanos;
            while (!closing && deadline - clock.nanoTime() > 0) {
                clock.awaitUntil(lock, stopping, deadline);
            }
            return !closing;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            lock.unlock();
        }
    }

    /** Counters of one component, registered when its recorder is made so that they show as zeros. */
    static final class Counters {
        private final Map<DropReason, Counter> dropped = new EnumMap<>(DropReason.class);
        private final Counter created;
        private final Counter patched;

        Counters(String component, MeterRegistry registry) {
            for (DropReason r : DropReason.values()) {
                dropped.put(
                        r,
                        Counter.builder("kubeloop.events.dropped")
                                .description("Events recorded and not written, by why")
                                .tag("component", component)
                                .tag("reason", r.tag)
                                .register(registry));
            }
            created = written(component, "create", registry);
            patched = written(component, "patch", registry);
        }

        private static Counter written(String component, String verb, MeterRegistry registry) {
            return Counter.builder("kubeloop.events.written")
                    .description("Event writes the API server accepted: creates, and patches of a count")
                    .tag("component", component)
                    .tag("verb", verb)
                    .register(registry);
        }

        void dropped(DropReason reason) {
            dropped.get(reason).increment();
        }

        void written(String verb) {
            (verb.equals("create") ? created : patched).increment();
        }
    }
}
