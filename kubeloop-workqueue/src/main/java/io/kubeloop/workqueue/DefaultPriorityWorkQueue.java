package io.kubeloop.workqueue;

import io.kubeloop.clock.Clock;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.ThreadFactory;

/**
 * {@link PriorityWorkQueue}: the {@link DefaultWorkQueue} engine (which already takes a priority on every
 * add) with priority bands and aging as its ready order, and {@code workqueue_depth} per priority. It exists
 * only so that a plain queue is not a {@code PriorityWorkQueue}: callers may test for the interface.
 */
final class DefaultPriorityWorkQueue<T> extends DefaultWorkQueue<T> implements PriorityWorkQueue<T> {

    DefaultPriorityWorkQueue(
            String name,
            Clock clock,
            RateLimiter<T> rateLimiter,
            MeterRegistry meterRegistry,
            ThreadFactory timerThreadFactory,
            long agingNanos) {
        super(
                name,
                clock,
                rateLimiter,
                meterRegistry,
                timerThreadFactory,
                new PriorityReadyList<>(clock, agingNanos),
                true);
    }

    @Override
    public String toString() {
        return "Priority" + super.toString();
    }
}
