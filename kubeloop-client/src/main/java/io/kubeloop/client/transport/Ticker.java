package io.kubeloop.client.transport;

/**
 * The time source and sleeper of the client's rate limiter and retries, so that tests can step time instead
 * of waiting for it. {@link #system()} is the real one.
 */
public interface Ticker {

    /** A monotonic time in nanoseconds, as {@link System#nanoTime()}: only differences mean anything. */
    long nanoTime();

    /**
     * Waits {@code nanos} (nothing when ≤ 0), or until the thread is interrupted.
     *
     * @throws InterruptedException if interrupted while waiting; the interrupt status is then cleared
     */
    void sleep(long nanos) throws InterruptedException;

    /** {@link System#nanoTime()} and a real, interruptible sleep. */
    static Ticker system() {
        return SystemTicker.INSTANCE;
    }
}
