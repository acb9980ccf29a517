package io.kubeloop.bench.controller;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What the reconcilers saw: per benchmark object the highest {@code data.seq} reconciled (seqs grow from run to
 * run: they are the run's wall-clock milliseconds, since the objects keep the last run's values), how many objects have
 * reached the current target, the time the last of them did, the number of reconciles, and for the latency
 * object the entry time of the first reconcile that saw each sequence number. Thread-safe and allocation-free on
 * the reconcile path; JDK only.
 */
public final class Tally {

    private final int objects;
    private final AtomicLongArray seqs;
    private final AtomicLong reconciles = new AtomicLong();
    private final AtomicLong firstAt = new AtomicLong();
    private final AtomicInteger reached = new AtomicInteger();
    private final AtomicLong allReachedAt = new AtomicLong();
    private final AtomicLongArray latencyArrivals;
    private volatile long target;
    /** The seq of the first latency write of this run: values below it are an earlier run's. */
    private volatile long latencyBase = Long.MAX_VALUE;

    private volatile int expected;

    Tally(int objects, int latencyWrites) {
        this.objects = objects;
        this.seqs = new AtomicLongArray(objects);
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
            long s = Long.parseLong(seq);
            long t = target;
            for (long old = seqs.get(i); s > old; old = seqs.get(i)) {
                if (seqs.compareAndSet(i, old, s)) {
                    if (old < t && s >= t && reached.incrementAndGet() == expected) {
                        allReachedAt.set(System.nanoTime());
                    }
                    break;
                }
            }
        } else if (name.equals(ControllerBench.LATENCY_OBJECT)) {
            long s = Long.parseLong(seq) - latencyBase;
            if (s >= 0 && s < latencyArrivals.length()) {
                latencyArrivals.compareAndSet((int) s, 0, entryNanos);
            }
        }
    }

    /**
     * Starts counting towards {@code seq}: {@link #allReachedAt()} is set when {@code count} objects that were
     * below it have been reconciled at {@code seq} or later. Call before the writes of that sequence number.
     */
    void expect(long seq, int count) {
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

    /** Latency write {@code i} of this run carries seq {@code base + i}. */
    void latencyBase(long base) {
        latencyBase = base;
    }

    /** The entry time of the first reconcile that saw latency write {@code i}, or 0. */
    long latencyArrival(int i) {
        return latencyArrivals.get(i);
    }

    /** How many objects were last reconciled at each seq (-1: never), for a phase that timed out. */
    String histogram() {
        java.util.TreeMap<Long, Integer> counts = new java.util.TreeMap<>();
        for (int i = 0; i < objects; i++) {
            counts.merge(seqs.get(i), 1, Integer::sum);
        }
        return "objects by last seq reconciled " + counts;
    }

    int objects() {
        return objects;
    }
}
