package io.kubeloop.cluster.internal.nodelifecycle;

import io.kubeloop.clock.Clock;
import io.kubeloop.clock.TokenBucket;
import java.time.Duration;
import java.util.HashSet;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * The nodes of one zone waiting for their NoExecute taint, released at a rate: kube's {@code RateLimitedTimedQueue}
 * over a {@code UniqueQueue} (scheduler/rate_limited_queue.go) with a token bucket of burst 1
 * ({@code EvictionRateLimiterBurst}).
 *
 * <p>Rules, as kube's:
 * <ul>
 *   <li>A node is in the queue at most once. {@link #add} refuses a node that is in the <em>set</em>: the set keeps a
 *       node after it was processed ({@link #try_} succeeded) until {@link #remove} — so a tainted node is not
 *       queued again until the controller decides it must be (its taint is missing, or it became Ready).</li>
 *   <li>{@link #try_} takes a token for every node it looks at; without a token it stops (the rest wait for the
 *       next pass). A node the action could not handle is retried after the action's wait.</li>
 *   <li>{@link #swapLimiter} replaces the bucket when the zone's state changes; a rate of 0 stops the queue. When the
 *       old bucket was empty, the new one starts empty too (kube drains it), so a swap never grants a burst.</li>
 * </ul>
 *
 * <p>Not thread-safe: the node lifecycle controller uses it under its state lock.
 */
final class ZoneTainter {

    /** What the queue asks of a node: null when done, else how long to wait before trying it again. */
    interface Action {
        Duration apply(String nodeName);
    }

    private record Entry(String node, long processAt, long seq) {}

    private final Clock clock;
    private final PriorityQueue<Entry> queue = new PriorityQueue<>((a, b) -> {
        int c = Long.compare(a.processAt - b.processAt, 0);
        return c != 0 ? c : Long.compare(a.seq, b.seq);
    });
    private final Set<String> set = new HashSet<>();
    private long seq;

    /** Tokens per second of clock time; 0 stops the queue. */
    private double qps;
    /** Null when {@code qps} is 0. */
    private TokenBucket limiter;
    /** When the bucket holds a token again (a scheduling hint: burst 1 refills one token per interval). */
    private long nextTokenAt;

    ZoneTainter(Clock clock, double qps) {
        this.clock = clock;
        this.qps = qps;
        this.limiter = qps > 0 ? new TokenBucket(qps, 1, clock) : null;
        this.nextTokenAt = clock.nanoTime();
    }

    /** Queues {@code node} now; false if it is in the set already. */
    boolean add(String node) {
        if (!set.add(node)) {
            return false;
        }
        queue.add(new Entry(node, clock.nanoTime(), seq++));
        return true;
    }

    /** Takes {@code node} out of the queue and the set; false if it was not in the set. */
    boolean remove(String node) {
        boolean had = set.remove(node);
        queue.removeIf(e -> e.node.equals(node));
        return had;
    }

    boolean isQueued(String node) {
        return queue.stream().anyMatch(e -> e.node.equals(node));
    }

    double qps() {
        return qps;
    }

    /**
     * Processes due nodes while tokens last (kube's {@code Try}).
     *
     * @return how long until this queue can make progress again, or null when nothing waits or the rate is 0
     */
    Duration try_(Action action) {
        while (!queue.isEmpty()) {
            if (limiter == null) {
                return null;
            }
            long now = clock.nanoTime();
            if (!limiter.tryTake()) {
                return Duration.ofNanos(Math.max(1_000_000, nextTokenAt - now));
            }
            nextTokenAt = now + interval();
            Entry head = queue.peek();
            if (head.processAt - now > 0) {
                return Duration.ofNanos(head.processAt - now);
            }
            Duration retry = action.apply(head.node);
            queue.poll();
            if (retry != null) {
                queue.add(new Entry(head.node, now + retry.toNanos() + 1, seq++));
            }
            // done: out of the queue, but stays in the set so that it is not queued again
        }
        return null;
    }

    /** kube's {@code SwapLimiter}. */
    void swapLimiter(double newQps) {
        if (newQps == qps) {
            return;
        }
        TokenBucket fresh = null;
        if (newQps > 0) {
            fresh = new TokenBucket(newQps, 1, clock);
            boolean oldHadToken = limiter != null && limiter.tryTake();
            if (!oldHadToken) {
                fresh.tryTake();
                nextTokenAt = clock.nanoTime() + (long) (1e9 / newQps);
            } else {
                nextTokenAt = clock.nanoTime();
            }
        }
        qps = newQps;
        limiter = fresh;
    }

    private long interval() {
        return (long) (1e9 / qps);
    }
}
