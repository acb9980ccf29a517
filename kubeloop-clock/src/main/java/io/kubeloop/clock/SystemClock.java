package io.kubeloop.clock;

import java.time.Instant;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/** {@link Clock#system()}: real time, real waits. */
enum SystemClock implements Clock {
    INSTANCE;

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public Instant now() {
        return Instant.now();
    }

    @Override
    public void awaitUntil(Lock lock, Condition condition, long deadlineNanos) throws InterruptedException {
        if (deadlineNanos == Long.MAX_VALUE) {
            condition.await();
            return;
        }
        long remaining = deadlineNanos - System.nanoTime();
        if (remaining > 0) {
            condition.awaitNanos(remaining);
        }
    }

    @Override
    public String toString() {
        return "Clock.system()";
    }
}
