package io.kubeloop.client.transport;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A ticker whose time moves only when the test steps it or, if {@code sleepAdvances}, when a caller sleeps.
 * Every requested sleep is recorded.
 */
final class FakeTicker implements Ticker {

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final boolean sleepAdvances;
    final List<Long> sleeps = new CopyOnWriteArrayList<>();
    volatile boolean interruptNextSleep;

    FakeTicker(boolean sleepAdvances) {
        this.sleepAdvances = sleepAdvances;
    }

    @Override
    public long nanoTime() {
        return now.get();
    }

    @Override
    public void sleep(long nanos) throws InterruptedException {
        if (interruptNextSleep) {
            interruptNextSleep = false;
            throw new InterruptedException("test");
        }
        sleeps.add(nanos);
        if (sleepAdvances && nanos > 0) {
            now.addAndGet(nanos);
        }
    }

    void step(long nanos) {
        now.addAndGet(nanos);
    }
}
