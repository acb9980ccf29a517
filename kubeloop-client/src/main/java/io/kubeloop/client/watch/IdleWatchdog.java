package io.kubeloop.client.watch;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The one daemon thread ({@code kubeloop-watch-idle}) that checks every open watch for idleness. Each watch
 * registers a periodic check that costs a volatile read and a comparison; closing the watch cancels it. One
 * shared platform thread rather than a thread per watch: a process with hundreds of informers has hundreds of
 * watches, and a check takes microseconds.
 */
final class IdleWatchdog {

    private static final ScheduledExecutorService SCHEDULER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "kubeloop-watch-idle");
        t.setDaemon(true);
        return t;
    });

    private IdleWatchdog() {}

    /**
     * Runs {@code check} every tenth of {@code idleTimeout}, between 10 ms and 1 s, so that an idle watch is
     * closed at most 10% (or one second) late.
     */
    static ScheduledFuture<?> schedule(Runnable check, Duration idleTimeout) {
        long period = Math.clamp(idleTimeout.toMillis() / 10, 10, 1000);
        return SCHEDULER.scheduleAtFixedRate(check, period, period, TimeUnit.MILLISECONDS);
    }
}
