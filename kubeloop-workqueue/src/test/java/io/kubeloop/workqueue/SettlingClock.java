package io.kubeloop.workqueue;

import static org.awaitility.Awaitility.await;

import io.kubeloop.clock.Clock;
import io.kubeloop.clock.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * A {@link FakeClock} that also tells a test when a delaying queue's timer thread has finished reacting to a
 * {@link #step}. Build the queue with {@code .clock(clock).timerThreadFactory(clock::newTimerThread)}.
 *
 * <p>When the timer thread starts waiting, the clock records the fake time the timer saw. If the timer waits
 * for a deadline later than the time T it read at the start of the wait, every item ready at T has left the
 * waiting heap (the heap is stable under the timer's lock, and its head is the deadline), and the timer adds
 * ready items before it waits again: the queue has settled for time T. Uses only public API.
 */
final class SettlingClock implements Clock {

    private record Park(long observedNanos) {}

    private final FakeClock fake = new FakeClock();
    private final Thread.Builder timerBuilder;
    private volatile Thread timer;
    private volatile Park park;

    /** Timer thread on a virtual thread. */
    SettlingClock() {
        this(Thread.ofVirtual());
    }

    SettlingClock(Thread.Builder timerBuilder) {
        this.timerBuilder = timerBuilder;
    }

    @Override
    public long nanoTime() {
        return fake.nanoTime();
    }

    @Override
    public Instant now() {
        return fake.now();
    }

    @Override
    public Scheduled schedule(Runnable task, Duration delay) {
        return fake.schedule(task, delay);
    }

    @Override
    public void awaitUntil(Lock lock, Condition condition, long deadlineNanos) throws InterruptedException {
        boolean isTimer = Thread.currentThread() == timer;
        if (isTimer) {
            long t = fake.nanoTime();
            park = deadlineNanos - t > 0 ? new Park(t) : null;
        }
        try {
            fake.awaitUntil(lock, condition, deadlineNanos);
        } finally {
            if (isTimer) {
                park = null;
            }
        }
    }

    /** The queue's timer thread factory (a queue starts at most one timer thread). */
    Thread newTimerThread(Runnable r) {
        Thread t = timerBuilder.name("settling-clock-timer").unstarted(r);
        timer = t;
        return t;
    }

    /** The timer thread, or null if the queue has not started one. */
    Thread timer() {
        return timer;
    }

    /** Steps the fake clock; if {@code expectArrivals}, waits until the timer has added what became ready. */
    void step(Duration d, boolean expectArrivals) {
        fake.step(d);
        if (expectArrivals) {
            long target = fake.nanoTime();
            await("timer thread to settle at " + target + " ns")
                    .atMost(5, TimeUnit.SECONDS)
                    .pollInSameThread()
                    .pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(1))
                    .until(() -> {
                        Park p = park;
                        return p != null && p.observedNanos() == target;
                    });
        }
    }
}
