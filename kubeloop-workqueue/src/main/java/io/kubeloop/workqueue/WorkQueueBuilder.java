package io.kubeloop.workqueue;

import io.kubeloop.clock.Clock;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Objects;
import java.util.concurrent.ThreadFactory;

/**
 * Builds a {@link WorkQueue}, {@link DelayingQueue} or {@link RateLimitingQueue}. Get one from
 * {@link WorkQueue#builder()}:
 *
 * <pre>{@code
 * RateLimitingQueue<String> queue = WorkQueue.<String>builder()
 *         .name("pods")                       // the metrics' "name" label
 *         .meterRegistry(registry)            // omit for no metrics, at no cost
 *         .buildRateLimiting();               // client-go's default controller rate limiter
 * }</pre>
 *
 * <p>Every setting has a default: no name, no metrics, {@link Clock#system()}, the default controller
 * rate limiter on the same clock, and a virtual timer thread named after the queue.
 */
public final class WorkQueueBuilder<T> {

    private String name = "";
    private Clock clock = Clock.system();
    private MeterRegistry meterRegistry;
    private RateLimiter<T> rateLimiter;
    private ThreadFactory timerThreadFactory;

    WorkQueueBuilder() {}

    /**
     * The queue's name: the {@code name} label of its metrics and the name of its timer thread. Metrics are
     * recorded only for a named queue with a {@link #meterRegistry}; names should be unique per registry.
     */
    public WorkQueueBuilder<T> name(String name) {
        this.name = Objects.requireNonNull(name, "name");
        return this;
    }

    /** The clock for delays, the drain timeout and duration metrics. */
    public WorkQueueBuilder<T> clock(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        return this;
    }

    /** Where to record client-go's {@code workqueue_*} metrics; without one the queue records nothing. */
    public WorkQueueBuilder<T> meterRegistry(MeterRegistry meterRegistry) {
        this.meterRegistry = Objects.requireNonNull(meterRegistry, "meterRegistry");
        return this;
    }

    /** The rate limiter of a {@link RateLimitingQueue}; default {@link RateLimiters#defaultControllerRateLimiter(Clock)}. */
    public WorkQueueBuilder<T> rateLimiter(RateLimiter<T> rateLimiter) {
        this.rateLimiter = Objects.requireNonNull(rateLimiter, "rateLimiter");
        return this;
    }

    /** Makes the delaying queue's timer thread (started on the first positive delay); default virtual. */
    public WorkQueueBuilder<T> timerThreadFactory(ThreadFactory timerThreadFactory) {
        this.timerThreadFactory = Objects.requireNonNull(timerThreadFactory, "timerThreadFactory");
        return this;
    }

    /** A plain work queue. */
    public WorkQueue<T> build() {
        return create();
    }

    /** A work queue with {@link DelayingQueue#addAfter}. */
    public DelayingQueue<T> buildDelaying() {
        return create();
    }

    /** A work queue with {@link DelayingQueue#addAfter} and the rate-limited retries of a controller. */
    public RateLimitingQueue<T> buildRateLimiting() {
        return create();
    }

    private DefaultWorkQueue<T> create() {
        RateLimiter<T> limiter = rateLimiter != null ? rateLimiter : RateLimiters.defaultControllerRateLimiter(clock);
        ThreadFactory threads = timerThreadFactory != null
                ? timerThreadFactory
                : Thread.ofVirtual()
                        .name("workqueue-" + (name.isEmpty() ? "unnamed" : name) + "-timer")
                        .factory();
        return new DefaultWorkQueue<>(name, clock, limiter, meterRegistry, threads);
    }
}
