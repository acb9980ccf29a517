package io.kubeloop.client.transport;

import java.util.concurrent.TimeUnit;

/** {@link Ticker#system()}. */
enum SystemTicker implements Ticker {
    INSTANCE;

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public void sleep(long nanos) throws InterruptedException {
        if (nanos > 0) {
            TimeUnit.NANOSECONDS.sleep(nanos);
        } else if (Thread.interrupted()) {
            throw new InterruptedException();
        }
    }
}
