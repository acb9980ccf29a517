package io.kubeloop.workqueue;

import io.kubeloop.clock.Clock;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadFactory;

/**
 * Builds a {@link WorkQueue}, {@link DelayingQueue}, {@link RateLimitingQueue} or {@link PriorityWorkQueue}.
 * Get one from
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
 * rate limiter on the same clock, a virtual timer thread named after the queue, and (priority queue only)
 * an aging period of {@link PriorityWorkQueue#DEFAULT_AGING_PERIOD}.
 */
public final class WorkQueueBuilder<T> {

    private String name = "";
    private Clock clock = Clock.system();
    private MeterRegistry meterRegistry;
    private RateLimiter<T> rateLimiter;
    private ThreadFactory timerThreadFactory;
    private Duration agingPeriod = PriorityWorkQueue.DEFAULT_AGING_PERIOD;

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

    /**
     * The priority queue's aging period: an item ready for this long is handed out ahead of newer
     * higher-priority items (the anti-starvation bound of {@link PriorityWorkQueue}); default
     * {@link PriorityWorkQueue#DEFAULT_AGING_PERIOD}. Shorter is fairer, longer favours priorities more; a
     * very long period (days) is controller-runtime's behaviour, with its starvation. Used only by
     * {@link #buildPriority()}.
     *
     * @throws IllegalArgumentException if {@code agingPeriod} is zero or negative
     */
    public WorkQueueBuilder<T> agingPeriod(Duration agingPeriod) {
        Objects.requireNonNull(agingPeriod, "agingPeriod");
        if (agingPeriod.isNegative() || agingPeriod.isZero()) {
            throw new IllegalArgumentException("agingPeriod must be positive, was " + agingPeriod);
        }
        this.agingPeriod = agingPeriod;
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

    /**
     * A rate-limiting queue that hands out higher priorities first, with aging so that no priority starves;
     * see {@link PriorityWorkQueue}.
     */
    public PriorityWorkQueue<T> buildPriority() {
        return new DefaultPriorityWorkQueue<>(
                name,
                clock,
                limiter(),
                meterRegistry,
                timerThreads(),
                ItemExponentialFailureRateLimiter.saturatedNanos(agingPeriod));
    }

    private DefaultWorkQueue<T> create() {
        return new DefaultWorkQueue<>(
                name, clock, limiter(), meterRegistry, timerThreads(), new FifoReadyList<>(), false);
    }

    private RateLimiter<T> limiter() {
        return rateLimiter != null ? rateLimiter : RateLimiters.defaultControllerRateLimiter(clock);
    }

    private ThreadFactory timerThreads() {
        return timerThreadFactory != null
                ? timerThreadFactory
                : Thread.ofVirtual()
                        .name("workqueue-" + (name.isEmpty() ? "unnamed" : name) + "-timer")
                        .factory();
    }
}
