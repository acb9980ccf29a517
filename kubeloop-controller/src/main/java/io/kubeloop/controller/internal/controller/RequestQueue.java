package io.kubeloop.controller.internal.controller;

import io.kubeloop.clock.Clock;
import io.kubeloop.controller.Request;
import io.kubeloop.workqueue.RateLimitingQueue;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One controller's work queue for one run (a restart gets a new one): the rate-limiting queue plus the priority of
 * each add and the age of the oldest request waiting for a worker.
 *
 * <p>Priorities follow controller-runtime's priority queue (§3.2): {@link #LOW_PRIORITY} for the initial list and
 * resyncs, {@link #NORMAL_PRIORITY} for everything else. They take effect when the underlying queue orders by priority;
 * a plain FIFO queue ignores them.
 *
 * <p>Oldest waiting: {@code waitingSince} holds, for each request added for immediate processing and not yet handed to
 * a worker, when it was (first) added. It is written <em>before</em> the queue add and cleared after the get, so a race
 * between the two can only forget an entry (the gauge then under-reads until that request's next get), never keep a
 * stale one that would grow forever. Requests waiting on purpose (a back-off or a requeue-after delay) are not
 * counted: they are not waiting for a worker.
 */
final class RequestQueue {

    static final int LOW_PRIORITY = -100;
    static final int NORMAL_PRIORITY = 0;

    private final RateLimitingQueue<Request> queue;
    private final Clock clock;
    private final Map<Request, Long> waitingSince = new ConcurrentHashMap<>();

    RequestQueue(RateLimitingQueue<Request> queue, Clock clock) {
        this.queue = queue;
        this.clock = clock;
    }

    /** Adds {@code request} for processing now, at {@code priority}. */
    void add(Request request, int priority) {
        if (queue.shuttingDown()) {
            return;
        }
        waitingSince.putIfAbsent(request, clock.nanoTime());
        Priorities.add(queue, request, priority);
    }

    void addAfter(Request request, Duration delay) {
        queue.addAfter(request, delay);
    }

    void addRateLimited(Request request) {
        queue.addRateLimited(request);
    }

    void forget(Request request) {
        queue.forget(request);
    }

    /** The next request (blocking), or null once the queue is shut down and empty. */
    Request get() throws InterruptedException {
        Request request = queue.get();
        if (request != null) {
            waitingSince.remove(request);
        }
        return request;
    }

    void done(Request request) {
        queue.done(request);
    }

    int len() {
        return queue.len();
    }

    void shutDown() {
        queue.shutDown();
        waitingSince.clear();
    }

    boolean shuttingDown() {
        return queue.shuttingDown();
    }

    /** Seconds the oldest request added for immediate processing has waited for a worker; 0 when none waits. */
    double oldestWaitingSeconds() {
        long now = clock.nanoTime();
        long oldest = 0;
        for (long since : waitingSince.values()) {
            oldest = Math.max(oldest, now - since);
        }
        return oldest / 1e9;
    }
}
