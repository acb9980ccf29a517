package io.kubeloop.workqueue;

/**
 * Hooks through which a queue reports to its metrics. Durations are measured by the queue, on its clock, and
 * only when {@link #enabled()}; a queue without metrics makes no clock reads for them. Every hook but
 * {@link #retry()} is called with the queue's lock held. Priorities are those of the items (always 0 in a
 * plain queue); only a priority queue's metrics tell them apart.
 */
interface QueueMetrics {

    /** False for {@link #NOOP}: the queue skips the clock reads that feed the other hooks. */
    boolean enabled();

    /** An item became dirty (an add that was not deduplicated) at {@code priority}. */
    void add(int priority);

    /** An item was handed to a worker at {@code priority} after waiting {@code queuedNanos} since it became dirty. */
    void get(long queuedNanos, int priority);

    /** A dirty item was raised from priority {@code from} to {@code to}. */
    void reprioritize(int from, int to);

    /** A worker finished an item it had held for {@code workNanos}. */
    void done(long workNanos);

    /** {@code addAfter} or {@code addRateLimited} was called. */
    void retry();

    /** The queue shut down (and drained, if it drains); stop reporting gauges. Idempotent. */
    void shutDown();

    /** What the in-progress gauges read: the summed and the longest age of the items being processed. */
    record InFlightAges(long totalNanos, long longestNanos) {}

    /** The metrics of a queue without a registry: nothing at all. */
    QueueMetrics NOOP = new QueueMetrics() {
        @Override
        public boolean enabled() {
            return false;
        }

        @Override
        public void add(int priority) {}

        @Override
        public void get(long queuedNanos, int priority) {}

        @Override
        public void reprioritize(int from, int to) {}

        @Override
        public void done(long workNanos) {}

        @Override
        public void retry() {}

        @Override
        public void shutDown() {}
    };
}
