package io.kubeloop.bench.controller;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What the reconcilers saw: per benchmark object the highest {@code data.seq} reconciled, how many objects have
 * reached the current target, the time the last of them did, the number of reconciles, and for the latency
 * object the entry time of the first reconcile that saw each sequence number. Thread-safe and allocation-free on
 * the reconcile path; JDK only.
 */
public final class Tally {

    private final int objects;
    private final AtomicIntegerArray seqs;
    private final AtomicLong reconciles = new AtomicLong();
    private final AtomicLong firstAt = new AtomicLong();
    private final AtomicInteger reached = new AtomicInteger();
    private final AtomicLong allReachedAt = new AtomicLong();
    private final AtomicLongArray latencyArrivals;
    private volatile int target;
    private volatile int expected;

    Tally(int objects, int latencyWrites) {
        this.objects = objects;
        this.seqs = new AtomicIntegerArray(objects);
        for (int i = 0; i < objects; i++) {
            seqs.set(i, -1);
        }
        this.latencyArrivals = new AtomicLongArray(Math.max(1, latencyWrites));
    }

    /**
     * Called by a reconciler: {@code entryNanos} is {@code System.nanoTime()} read first thing in the reconcile,
     * {@code seq} the object's {@code data.seq} as read from the cache (null if absent or the object is gone).
     */
    public void reconciled(String name, String seq, long entryNanos) {
        reconciles.incrementAndGet();
        if (firstAt.get() == 0) {
            firstAt.compareAndSet(0, entryNanos);
        }
        if (seq == null) {
            return;
        }
        if (name.startsWith("cm-")) {
            int i = Integer.parseInt(name, 3, name.length(), 10);
            int s = Integer.parseInt(seq);
            int t = target;
            for (int old = seqs.get(i); s > old; old = seqs.get(i)) {
                if (seqs.compareAndSet(i, old, s)) {
                    if (old < t && s >= t && reached.incrementAndGet() == expected) {
                        allReachedAt.set(System.nanoTime());
                    }
                    break;
                }
            }
        } else if (name.equals(ControllerBench.LATENCY_OBJECT)) {
            int s = Integer.parseInt(seq);
            if (s >= 0 && s < latencyArrivals.length()) {
                latencyArrivals.compareAndSet(s, 0, entryNanos);
            }
        }
    }

    /**
     * Starts counting towards {@code seq}: {@link #allReachedAt()} is set when {@code count} objects that were
     * below it have been reconciled at {@code seq} or later. Call before the writes of that sequence number.
     */
    void expect(int seq, int count) {
        allReachedAt.set(0);
        reached.set(0);
        expected = count;
        target = seq;
    }

    long allReachedAt() {
        return allReachedAt.get();
    }

    int reached() {
        return reached.get();
    }

    long reconciles() {
        return reconciles.get();
    }

    long firstAt() {
        return firstAt.get();
    }

    long latencyArrival(int seq) {
        return latencyArrivals.get(seq);
    }

    int objects() {
        return objects;
    }
}
