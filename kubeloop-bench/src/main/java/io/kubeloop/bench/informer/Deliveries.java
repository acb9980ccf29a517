package io.kubeloop.bench.informer;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What the handler saw and when ({@link System#nanoTime()}): adds, updates, the arrival of the burst's last
 * resourceVersion and of each latency write ({@code bench/seq} annotation on the latency pod). Called from the
 * libraries' handler threads; every field is safe to read from the measuring thread.
 */
final class Deliveries {

    static final String LATENCY_POD = "web-7c9d8f5b4-00000";
    static final String SEQ_ANNOTATION = "bench/seq";

    private final long expectedAdds;
    private final String lastResourceVersion;
    final AtomicLong adds = new AtomicLong();
    final AtomicLong updates = new AtomicLong();
    volatile long allAddsAt;
    volatile long firstUpdateAt;
    volatile long lastResourceVersionAt;
    /** Arrival time of latency write i (0: not yet). */
    final AtomicLongArray arrivals;

    Deliveries(long expectedAdds, String lastResourceVersion, int writes) {
        this.expectedAdds = expectedAdds;
        this.lastResourceVersion = lastResourceVersion;
        this.arrivals = new AtomicLongArray(Math.max(1, writes));
    }

    void added() {
        if (adds.incrementAndGet() == expectedAdds) {
            allAddsAt = System.nanoTime();
        }
    }

    /** {@code seq}: the pod's {@code bench/seq} annotation when it is the latency pod, else null. */
    void updated(String resourceVersion, String seq) {
        long now = System.nanoTime();
        if (updates.getAndIncrement() == 0) {
            firstUpdateAt = now;
        }
        if (resourceVersion != null && resourceVersion.equals(lastResourceVersion)) {
            lastResourceVersionAt = now;
        }
        if (seq != null) {
            int i = Integer.parseInt(seq);
            if (i >= 0 && i < arrivals.length()) {
                arrivals.compareAndSet(i, 0, now);
            }
        }
    }
}
