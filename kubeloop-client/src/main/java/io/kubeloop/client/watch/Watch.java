package io.kubeloop.client.watch;

import io.fabric8.kubernetes.api.model.Status;
import io.kubeloop.client.codec.Decoding;
import io.kubeloop.client.codec.UndecodableObjects;
import io.kubeloop.clock.Clock;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import tools.jackson.databind.ObjectMapper;

/**
 * An open watch: events decoded from a watch response body on a reading thread of their own, handed to the
 * consumer through a bounded queue, with a guard against connections that die silently.
 *
 * <pre>{@code
 * HttpResponse<InputStream> response = http.send(request, BodyHandlers.ofInputStream());
 * try (Watch<Pod> watch = Watch.builder(response.body(), Pod.class).description("pods in default").start()) {
 *     for (WatchEvent<Pod> event : watch) {
 *         ...
 *     }
 *     // the server ended the watch (timeoutSeconds, a restart): watch again from the last resourceVersion
 * } catch (WatchException e) {
 *     // the stream failed, was malformed or went idle: watch again from the last resourceVersion
 * }
 * }</pre>
 *
 * <p><b>End.</b> When the server ends the body cleanly, {@link #next()} returns the events still queued and then
 * {@code null}, and iteration ends. ERROR events ({@code 410 Expired}) are delivered as {@link WatchEvent.Error}
 * like any other (the stream normally ends right after them), unless {@link Builder#errorEvents} makes them the
 * watch's failure, as {@code ResourceClient.watch} does.
 *
 * <p><b>Failure.</b> When the stream cannot be read or decoded, or goes idle, the events decoded before the
 * failure are delivered first, and then every call of {@code next()} throws the same {@link WatchException}
 * (or the exception {@link Builder#errorEvents} made of an ERROR event).
 *
 * <p><b>Idle rule.</b> A watch whose reader waits for bytes longer than the idle timeout (default
 * {@link #DEFAULT_IDLE_TIMEOUT}) is closed and fails with a {@link WatchIdleTimeoutException}, so that a caller
 * reconnects instead of waiting forever on a dead connection (the Java clients' most common failure). The timeout
 * must be longer than the server's bookmark interval (one minute on kube-apiserver, which sends bookmarks only
 * when the watch asked with {@code allowWatchBookmarks=true}): a watch without bookmarks on a quiet resource is
 * closed after the idle timeout, and the caller simply watches again. Time spent waiting for a slow consumer does
 * not count: the reader is not reading then. The rule is a task {@link Clock#schedule scheduled} on the builder's
 * {@link Clock} for the moment the read in progress would become idle (and again after each read that ends in
 * time), so it fires on time with the system clock and exactly when a test steps a {@code FakeClock} past the
 * timeout.
 *
 * <p><b>Close.</b> {@link #close()} may be called from any thread, at any time, any number of times: it closes
 * the body at once, which releases the reading thread and the connection, drops the queued events and makes
 * {@code next()} return {@code null}.
 *
 * <p>One consumer thread at a time; {@code close()} from any thread.
 *
 * @param <T> the type ADDED, MODIFIED and DELETED objects are decoded to
 */
public final class Watch<T> implements Iterable<WatchEvent<T>>, AutoCloseable {

    /**
     * Five minutes: five of kube-apiserver's bookmark intervals, so that a few late bookmarks do not close a
     * healthy watch, and about the lifetime client-go gives a watch anyway (a random 5–10 minutes).
     */
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofMinutes(5);

    /** Events decoded ahead of the consumer; beyond this the reader stops reading and TCP pushes back. */
    static final int QUEUE_CAPACITY = 256;

    private static final AtomicLong THREADS = new AtomicLong();
    /** Wakes a consumer blocked on the queue so that it looks at {@link #outcome}. */
    private static final Object WAKE = new Object();

    private static final Outcome ENDED = new Outcome(null);

    /**
     * How the reading ended; null while the reader runs. {@code failure} null means a clean end; otherwise a
     * {@link WatchException}, or what {@link Builder#errorEvents} made of an ERROR event.
     */
    private record Outcome(RuntimeException failure) {}

    private final IdleTrackingInputStream body;
    private final WatchEventDecoder<T> decoder;
    private final String description;
    private final Duration idleTimeout;
    private final Clock clock;
    private final long idleNanos;
    /** Null: ERROR events are delivered as events; else the failure an ERROR event ends the watch with. */
    private final Function<Status, ? extends RuntimeException> errorEvents;
    /**
     * Decoded events, and WAKE markers (from {@link #finish} and from the timers of timed waits) that only make a
     * consumer look again. Invariant: the reader puts no event after {@link #outcome} is set.
     */
    private final BlockingQueue<Object> queue = new ArrayBlockingQueue<>(QUEUE_CAPACITY);
    /** Set once: first of the clean end, a read or decode failure, the idle rule, close(). */
    private final AtomicReference<Outcome> outcome = new AtomicReference<>();

    private volatile boolean closed;
    private final Thread reader;
    /** The pending check of the idle rule; replaced by each check that finds the watch not idle. */
    private volatile Clock.Scheduled idleCheck;

    private Watch(Builder<T> b) {
        this.clock = b.clock;
        this.idleTimeout = b.idleTimeout;
        this.idleNanos = b.idleTimeout.toNanos();
        this.description = b.description;
        this.errorEvents = b.errorEvents;
        this.body = new IdleTrackingInputStream(b.body, b.clock);
        this.decoder = new WatchEventDecoder<>(body, b.type, b.mapper, b.description + ": ", b.undecodable);
        ThreadFactory threads = b.threadFactory != null
                ? b.threadFactory
                : Thread.ofVirtual()
                        .name("kubeloop-watch-" + THREADS.incrementAndGet())
                        .factory();
        this.reader = threads.newThread(this::read);
        this.idleCheck = clock.schedule(this::checkIdle, idleTimeout);
        try {
            reader.start();
        } catch (RuntimeException | Error e) {
            idleCheck.cancel(); // no reader, no watch: leave no timer behind
            throw e;
        }
    }

    /** A watch of the response body {@code body}, decoding objects to {@code type}. */
    public static <T> Builder<T> builder(InputStream body, Class<T> type) {
        return new Builder<>(body, type);
    }

    /** A watch of {@code body} with the defaults: started now. */
    public static <T> Watch<T> start(InputStream body, Class<T> type) {
        return builder(body, type).start();
    }

    /**
     * The next event, blocking until one arrives; {@code null} when the watch has ended (the server ended the
     * stream, or {@link #close()} was called).
     *
     * @throws WatchException the stream failed, was malformed or went idle
     * @throws RuntimeException what {@link Builder#errorEvents} made of an ERROR event, when set
     */
    public WatchEvent<T> next() throws InterruptedException {
        return poll(Long.MAX_VALUE);
    }

    /**
     * The next event, waiting at most {@code timeout} on the watch's {@link Builder#clock clock}; {@code null} when
     * the watch has ended or nothing arrived in time ({@link #isDone()} tells which). With a {@code FakeClock} the
     * wait ends when the clock is stepped past the timeout (or an event arrives); {@code Duration.ZERO} never
     * waits.
     *
     * @throws WatchException the stream failed, was malformed or went idle
     * @throws RuntimeException what {@link Builder#errorEvents} made of an ERROR event, when set
     */
    public WatchEvent<T> next(Duration timeout) throws InterruptedException {
        return poll(timeout.isNegative() ? 0 : timeout.toNanos());
    }

    /**
     * True once nothing more will be read from the stream: it ended, failed, went idle or was closed. Events
     * read before may still be queued for {@link #next()}.
     */
    public boolean isDone() {
        return outcome.get() != null;
    }

    /** How long this watch may go without receiving a byte. */
    public Duration idleTimeout() {
        return idleTimeout;
    }

    /**
     * Iterates until the watch ends; {@code hasNext()} blocks. A failure is thrown as its
     * {@link WatchException}; an interrupt as a {@code WatchException}, with the thread's interrupt status set.
     */
    @Override
    public Iterator<WatchEvent<T>> iterator() {
        return new Iterator<>() {
            private WatchEvent<T> ahead;
            private boolean ended;

            @Override
            public boolean hasNext() {
                if (ahead == null && !ended) {
                    try {
                        ahead = Watch.this.next();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new WatchException("interrupted while waiting for an event of " + description, e);
                    }
                    ended = ahead == null;
                }
                return ahead != null;
            }

            @Override
            public WatchEvent<T> next() {
                if (!hasNext()) {
                    throw new NoSuchElementException(description + " has ended");
                }
                WatchEvent<T> event = ahead;
                ahead = null;
                return event;
            }
        };
    }

    /**
     * Closes the response body (releasing the reading thread and the connection at once) and ends the watch:
     * {@code next()} returns {@code null} from now on. Idempotent; callable from any thread.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        finish(ENDED);
        stopReading();
        queue.clear();
        queue.offer(WAKE);
    }

    @Override
    public String toString() {
        return "Watch[" + description + ", " + (closed ? "closed" : isDone() ? "done" : "open") + "]";
    }

    /**
     * Waits for the next event, the end, or the deadline on the watch's clock. A finite wait schedules a task on
     * the clock that queues {@link #WAKE} at the deadline, so that a {@code FakeClock} ends it when stepped; a
     * WAKE left over from an earlier call only makes this loop look again.
     */
    @SuppressWarnings("unchecked")
    private WatchEvent<T> poll(long timeoutNanos) throws InterruptedException {
        boolean forever = timeoutNanos == Long.MAX_VALUE;
        long deadline = clock.nanoTime() + timeoutNanos;
        Clock.Scheduled timer = forever || timeoutNanos <= 0
                ? null
                : clock.schedule(() -> queue.offer(WAKE), Duration.ofNanos(timeoutNanos));
        try {
            while (true) {
                if (closed) {
                    return null;
                }
                Outcome done = outcome.get();
                Object item;
                if (done != null) {
                    // Everything the reader will ever queue is queued: no waiting.
                    item = queue.poll();
                } else if (!forever && deadline - clock.nanoTime() <= 0) {
                    do {
                        item = queue.poll();
                    } while (item == WAKE);
                    if (item == null) {
                        return null;
                    }
                } else {
                    item = queue.take();
                }
                if (item instanceof WatchEvent<?> event) {
                    return closed ? null : (WatchEvent<T>) event;
                }
                if (item == null && done != null) {
                    if (done.failure() != null) {
                        throw done.failure();
                    }
                    return null;
                }
                // WAKE: look again.
            }
        } finally {
            if (timer != null) {
                timer.cancel();
            }
        }
    }

    /** The reading thread: decode until the end, a failure or close. */
    private void read() {
        try {
            for (WatchEvent<T> event = decoder.next(); event != null; event = decoder.next()) {
                if (outcome.get() != null) {
                    return;
                }
                if (errorEvents != null && event instanceof WatchEvent.Error<T> error) {
                    // The server ends the watch after an ERROR; stop reading without waiting for its close.
                    finish(new Outcome(errorFailure(error.status())));
                    return;
                }
                queue.put(event);
            }
            finish(ENDED);
        } catch (InterruptedException closedMeanwhile) {
            // Only close() and the idle rule interrupt the reader, after setting the outcome.
        } catch (WatchException e) {
            // After close() or the idle rule, the stream's failure is their consequence, and finish() ignores it.
            finish(new Outcome(e));
        } catch (RuntimeException e) {
            finish(new Outcome(new WatchException(description + " failed: " + e, e)));
        } finally {
            idleCheck.cancel();
            closeBody();
        }
    }

    private RuntimeException errorFailure(Status status) {
        try {
            return Objects.requireNonNull(errorEvents.apply(status), "errorEvents gave null");
        } catch (RuntimeException e) {
            return new WatchException(description + " ended with an ERROR event that could not be mapped: " + e, e);
        }
    }

    /**
     * The idle rule, on the clock's thread: closes the watch if the read in progress has waited the idle timeout,
     * else looks again when it would have. Invariant: once {@link #outcome} is set, no check stays scheduled (a
     * check scheduled concurrently with {@link #stopReading} sees the outcome and cancels itself).
     */
    private void checkIdle() {
        if (outcome.get() != null) {
            return;
        }
        long waited = body.waitingNanos(clock.nanoTime());
        if (waited >= idleNanos) {
            if (finish(new Outcome(new WatchIdleTimeoutException(
                    description + " received no bytes for "
                            + Duration.ofNanos(waited) + " (idle timeout " + idleTimeout
                            + "); closed it so that the caller watches again",
                    idleTimeout)))) {
                stopReading();
            }
            return;
        }
        // Not reading (waited < 0) is back-pressure, never idleness: a whole timeout from now at the earliest.
        long next = waited < 0 ? idleNanos : idleNanos - waited;
        idleCheck = clock.schedule(this::checkIdle, Duration.ofNanos(next));
        if (outcome.get() != null) {
            idleCheck.cancel();
        }
    }

    /** Sets the outcome if none is set yet, and wakes the consumer. */
    private boolean finish(Outcome o) {
        if (!outcome.compareAndSet(null, o)) {
            return false;
        }
        queue.offer(WAKE); // if the queue is full, the consumer is not waiting and sees the outcome next time
        return true;
    }

    private void stopReading() {
        idleCheck.cancel();
        reader.interrupt();
        closeBody();
    }

    private void closeBody() {
        try {
            body.close();
        } catch (IOException | RuntimeException ignored) {
            // Closing is best effort; the reader is interrupted anyway.
        }
    }

    /** Options of a {@link Watch}; {@link #start()} starts reading. */
    public static final class Builder<T> {
        private final InputStream body;
        private final Class<T> type;
        private ObjectMapper mapper = Decoding.standard().mapper();
        private Duration idleTimeout = DEFAULT_IDLE_TIMEOUT;
        private Clock clock = Clock.system();
        private ThreadFactory threadFactory;
        private String description = "watch";
        private Function<Status, ? extends RuntimeException> errorEvents;
        private UndecodableObjects undecodable = UndecodableObjects.FAIL;

        private Builder(InputStream body, Class<T> type) {
            this.body = Objects.requireNonNull(body, "body");
            this.type = Objects.requireNonNull(type, "type");
        }

        /** The mapper objects are decoded with; by default one that ignores unknown properties. */
        public Builder<T> mapper(ObjectMapper mapper) {
            this.mapper = Objects.requireNonNull(mapper, "mapper");
            return this;
        }

        /**
         * How long the watch may receive no bytes before it is closed with a {@link WatchIdleTimeoutException};
         * longer than the server's bookmark interval. Default {@link Watch#DEFAULT_IDLE_TIMEOUT}.
         */
        public Builder<T> idleTimeout(Duration idleTimeout) {
            if (idleTimeout == null || idleTimeout.isNegative() || idleTimeout.isZero()) {
                throw new IllegalArgumentException("idleTimeout must be positive, was " + idleTimeout);
            }
            this.idleTimeout = idleTimeout;
            return this;
        }

        /**
         * The clock of the idle rule; the system clock by default ({@code ResourceClient.watch} passes the
         * client's).
         */
        public Builder<T> clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** Makes the reading thread; by default a virtual thread named {@code kubeloop-watch-<n>}. */
        public Builder<T> threadFactory(ThreadFactory threadFactory) {
            this.threadFactory = Objects.requireNonNull(threadFactory, "threadFactory");
            return this;
        }

        /**
         * What is watched, for messages and {@code toString()}, e.g. {@code "watch of pods in default"}. Never a
         * credential (a URL with a token in its query, say).
         */
        public Builder<T> description(String description) {
            this.description = Objects.requireNonNull(description, "description");
            return this;
        }

        /**
         * Makes an ERROR event the watch's failure instead of an event: the reader stops at it, the events
         * before it are delivered, and then {@code next()} (and iteration) throws {@code toFailure(status)}
         * every time, e.g. {@code status -> KubernetesApiException.fromWatchError(status, "GET", path)}, which
         * gives an {@code ExpiredException} for a 410. By default ERROR events are delivered as
         * {@link WatchEvent.Error}.
         */
        public Builder<T> errorEvents(Function<Status, ? extends RuntimeException> toFailure) {
            this.errorEvents = Objects.requireNonNull(toFailure, "toFailure");
            return this;
        }

        /**
         * What to do with an event whose object does not decode to the watch's type: {@link UndecodableObjects#FAIL}
         * (the default) fails the watch with a {@link WatchDecodeException} naming the object;
         * {@link UndecodableObjects#SKIP} delivers a {@link WatchEvent.Undecodable} in its place and carries on.
         */
        public Builder<T> undecodableObjects(UndecodableObjects policy) {
            this.undecodable = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /** Starts the reading thread and the idle rule. */
        public Watch<T> start() {
            return new Watch<>(this);
        }
    }
}
