package io.kubeloop.workqueue;

/**
 * Hooks through which a queue reports to its metrics. The queue calls {@link #add}, {@link #get} and
 * {@link #done} while holding its lock, so an implementation sees them in queue order and needs no lock of
 * its own for state that only these hooks touch.
 */
interface QueueMetrics<T> {

    /** {@code item} became dirty (a non-deduplicated add). */
    void add(T item);

    /** {@code item} was handed to a worker. */
    void get(T item);

    /** {@code item}'s worker finished with it. */
    void done(T item);

    /** {@code addAfter} or {@code addRateLimited} was called. */
    void retry();

    /** The queue shut down; stop reporting gauges. */
    void shutDown();

    /** The metrics of a queue without a registry: nothing at all. */
    @SuppressWarnings("unchecked")
    static <T> QueueMetrics<T> noop() {
        return (QueueMetrics<T>) Noop.INSTANCE;
    }

    enum Noop implements QueueMetrics<Object> {
        INSTANCE;

        @Override
        public void add(Object item) {}

        @Override
        public void get(Object item) {}

        @Override
        public void done(Object item) {}

        @Override
        public void retry() {}

        @Override
        public void shutDown() {}
    }
}
