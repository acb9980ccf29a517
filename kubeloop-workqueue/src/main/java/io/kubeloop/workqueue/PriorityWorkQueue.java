package io.kubeloop.workqueue;

import java.time.Duration;

/**
 * A {@link RateLimitingQueue} that hands out higher-priority items first, after controller-runtime's
 * priority queue: a controller adds its initial list and periodic resyncs at {@link #LOW_PRIORITY} and
 * real events at priority 0, so that a change made now is reconciled before the thousands of unchanged
 * objects of a start-up or resync flood. Unlike controller-runtime's queue it never starves low-priority
 * items (controller-runtime#3496): items age.
 *
 * <p>Rules, in addition to those of {@link WorkQueue} and {@link DelayingQueue} (deduplication,
 * single flight, delays, shutdown and drain work exactly as there):
 * <ul>
 *   <li><b>Priority, then FIFO.</b> {@link #get()} hands out the item of the highest priority that has been
 *       ready longest in that priority (but see aging). The plain {@link #add(Object)},
 *       {@link #addAfter(Object, Duration)} and {@link #addRateLimited(Object)} mean priority 0; any
 *       {@code int} is a priority.</li>
 *   <li><b>One entry per item, at its highest priority.</b> Adding an item that is already waiting at a lower
 *       priority raises it, and it moves to the back of its new priority; adding it at the same or a lower
 *       priority changes nothing.</li>
 *   <li><b>Delays.</b> A waiting (delayed) item keeps the earliest of its ready times and the highest of its
 *       priorities; when it becomes ready it is added at that priority, behind the items already ready at
 *       it. As in {@link DelayingQueue}, waiting is independent of being queued: a delayed add is a future
 *       {@code add(item, priority)}.</li>
 *   <li><b>Single flight.</b> An item being processed is not handed out again until {@link #done}; if it is
 *       added meanwhile, {@code done} queues it again at the highest priority of those adds (not the
 *       priority it was being processed at).</li>
 *   <li><b>Aging: no starvation.</b> When the item that has been ready longest has been ready for the aging
 *       period ({@link WorkQueueBuilder#agingPeriod}, default {@link #DEFAULT_AGING_PERIOD}) and the previous
 *       {@code get} did not hand out such an item, {@code get} hands it out, whatever its priority. Hence the
 *       bound: <em>an item that became ready at time t, when {@link #len()} became n, is handed out by one of
 *       the first 2·n calls of {@code get} after t + the aging period</em> (before that, every second
 *       {@code get} at least serves the ready items in the order they became ready, and at most n − 1 of them
 *       are ahead of it). In time, roughly: with w busy workers each holding an item for at most s, the aging
 *       period + 2·n·s/w. A raise does not reset an item's age. The other half of the {@code get}s still serve the
 *       highest priority first, so even a flood of aged low-priority items delays fresh high-priority work
 *       by at most a factor of two.</li>
 *   <li>{@link #len()} counts ready items only; {@code workqueue_depth} has one gauge per priority (tag
 *       {@code priority}; see the module README).</li>
 * </ul>
 *
 * <p>Create one with {@link WorkQueue#builder()} and {@link WorkQueueBuilder#buildPriority()}:
 * <pre>{@code
 * PriorityWorkQueue<String> queue = WorkQueue.<String>builder().name("pods").buildPriority();
 * queue.add("default/web-0", PriorityWorkQueue.LOW_PRIORITY); // from the initial list
 * queue.add("default/web-1");                                 // a real event: handed out first
 * }</pre>
 *
 * @param <T> the item type; usually a {@code String} key such as {@code "namespace/name"}
 */
public interface PriorityWorkQueue<T> extends RateLimitingQueue<T> {

    /**
     * controller-runtime's {@code handler.LowPriority}: the priority of the initial list and of resyncs,
     * below the 0 of real events.
     */
    int LOW_PRIORITY = -100;

    /**
     * The default aging period: one minute, the age beyond which controller-runtime's design considered an
     * object's event no longer news. An item ready that long is served ahead of higher priorities (see
     * above).
     */
    Duration DEFAULT_AGING_PERIOD = Duration.ofMinutes(1);

    /** {@link #add(Object, int)} at priority 0. */
    @Override
    void add(T item);

    /**
     * Marks {@code item} as needing processing at {@code priority}. A new item goes behind the items ready at
     * that priority; an item already waiting at a lower priority is raised and moves to the back of
     * {@code priority}; one being processed is queued again at {@link #done} (at the highest priority it was
     * added with meanwhile). Does nothing once the queue is shutting down.
     *
     * @throws NullPointerException if {@code item} is null
     */
    void add(T item, int priority);

    /** {@link #addAfter(Object, Duration, int)} at priority 0. */
    @Override
    void addAfter(T item, Duration delay);

    /**
     * Adds {@code item} at {@code priority} once {@code delay} has passed (a delay of zero or less adds it at
     * once). An item already waiting keeps the earlier ready time and the higher priority. Counts in
     * {@code workqueue_retries_total}.
     *
     * @throws NullPointerException if {@code item} or {@code delay} is null
     */
    void addAfter(T item, Duration delay, int priority);

    /** {@link #addRateLimited(Object, int)} at priority 0. */
    @Override
    void addRateLimited(T item);

    /** Adds {@code item} at {@code priority} after the delay the rate limiter chooses, recording a failure. */
    void addRateLimited(T item, int priority);
}
