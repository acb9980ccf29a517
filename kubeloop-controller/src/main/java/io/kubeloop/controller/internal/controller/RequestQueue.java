package io.kubeloop.controller.internal.controller;

import io.kubeloop.clock.Clock;
import io.kubeloop.controller.Request;
import io.kubeloop.workqueue.PriorityWorkQueue;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One controller's work queue for one run (a restart gets a new one): kubeloop-workqueue's {@link PriorityWorkQueue}
 * plus the priority each request was added with and the age of the oldest request waiting for a worker.
 *
 * <p>Priorities follow controller-runtime's priority queue (§3.2): {@link #LOW_PRIORITY} for the initial list and
 * resyncs, {@link #NORMAL_PRIORITY} for everything else; the queue ages items so low priority is never starved. A
 * request that is requeued (back-off, requeue-after) keeps the priority it was taken at, as controller-runtime does
 * since #3157: a failing object of the initial list does not jump ahead of real events.
 *
 * <p>Oldest waiting: {@code waitingSince} holds, for each request added for immediate processing and not yet handed to
 * a worker, when it was (first) added. It is written <em>before</em> the queue add and cleared after the get, so a race
 * between the two can only forget an entry (the gauge then under-reads until that request's next get), never keep a
 * stale one that would grow forever. Requests waiting on purpose (a back-off or a requeue-after delay) are not
 * counted: they are not waiting for a worker. {@code addedAt} works the same way for priorities.
 */
final class RequestQueue {

    static final int LOW_PRIORITY = PriorityWorkQueue.LOW_PRIORITY;
    static final int NORMAL_PRIORITY = 0;

    private final PriorityWorkQueue<Request> queue;
    private final Clock clock;
    private final Map<Request, Long> waitingSince = new ConcurrentHashMap<>();
    /** The highest priority a waiting request was added at since it was last taken. */
    private final Map<Request, Integer> addedAt = new ConcurrentHashMap<>();

    RequestQueue(PriorityWorkQueue<Request> queue, Clock clock) {
        this.queue = queue;
        this.clock = clock;
    }

    /** A request a worker took, with the priority it was added at. */
    record Taken(Request request, int priority) {}

    /** Adds {@code request} for processing now, at {@code priority}. */
    void add(Request request, int priority) {
        if (queue.shuttingDown()) {
            return;
        }
        waitingSince.putIfAbsent(request, clock.nanoTime());
        addedAt.merge(request, priority, Math::max);
        queue.add(request, priority);
    }

    /** Adds {@code request} after {@code delay}, at {@code priority} (an event handler's delayed add). */
    void addAfter(Request request, Duration delay, int priority) {
        if (queue.shuttingDown()) {
            return;
        }
        queue.addAfter(request, delay, priority);
    }

    void addAfter(Taken taken, Duration delay) {
        queue.addAfter(taken.request(), delay, taken.priority());
    }

    void addRateLimited(Taken taken) {
        queue.addRateLimited(taken.request(), taken.priority());
    }

    void forget(Request request) {
        queue.forget(request);
    }

    /** The next request (blocking), or null once the queue is shut down and empty. */
    Taken get() throws InterruptedException {
        Request request = queue.get();
        if (request == null) {
            return null;
        }
        waitingSince.remove(request);
        Integer priority = addedAt.remove(request);
        return new Taken(request, priority != null ? priority : NORMAL_PRIORITY);
    }

    void done(Request request) {
        queue.done(request);
    }

    /** Requests ready for a worker. */
    int len() {
        return queue.len();
    }

    void shutDown() {
        queue.shutDown();
        waitingSince.clear();
        addedAt.clear();
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
