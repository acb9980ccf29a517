package io.kubeloop.demo.internal.incident;

import io.kubeloop.clock.Clock;
import io.kubeloop.demo.DemoReport;
import io.kubeloop.demo.PodGuardian;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.ToLongFunction;

/**
 * Follows every incident of a demo — a pod of the PodSet gone — through its five instants: t0 gone, t1 the
 * operator's informer saw it, t2 the reconcile that replaced it began, t3 the replacement created, t4 the replacement
 * Running. Reports arrive from several threads in any order (the operator may see an eviction before the demo's own
 * watch does); t0 is the earliest report of the pod gone, from whichever source. Thread-safe.
 *
 * <p>How reports combine:
 *
 * <ul>
 *   <li>An incident is keyed by the gone pod's uid. {@link #podGone} and {@code podDeletionSeen} both open it;
 *       t0 is the earliest instant of either (so t0 ≤ t1 always: an informer that saw the deletion before the demo's
 *       watch reported it makes t0 = t1 until an earlier {@code podGone} arrives). t1 is the earliest
 *       {@code podDeletionSeen} over every operator instance.</li>
 *   <li>The cause is {@code deleted} until a {@code podGone} names one; among {@code podGone} reports the earliest
 *       one's cause wins, except that {@code deleted} (nothing known) never replaces {@code killed} or
 *       {@code evicted}. The node is the first one reported.</li>
 *   <li>{@code podCreated} makes the created pod the replacement of the oldest (by t0) incident of the same PodSet
 *       (namespace and name) that has no replacement yet, with t2 = the reconcile's start and t3 = the create's
 *       answer. A creation with no such incident (the initial pods, a scale-up, a second instance creating after the
 *       first already did) is ignored.</li>
 *   <li>{@link #podRunning} sets t4 of the incident whose replacement it is, once. A pod reported Running before its
 *       creation was reported (the demo's watch can be faster than the operator's listener) is remembered and
 *       applied when the creation arrives.</li>
 *   <li>A replacement that is itself gone before it ran is an incident of its own; the incident it was to replace
 *       is then closed without t4 (no longer {@link #open()}): its recovery goes on in the new incident.</li>
 * </ul>
 *
 * <p>Stage times are differences of {@link Clock#nanoTime()} instants from different threads: a difference that
 * comes out negative (t2 before t1 when a reconcile that had already begun for another reason created the
 * replacement) is clamped to 0 ms.
 *
 * <p>Invariant: every field below is read and written under {@code lock} only; the lock is held for a few map
 * operations, never while calling out.
 */
public final class IncidentTracker {

    /** The stages of {@link DemoReport.Stage}, in order: name, from instant, to instant. */
    private static final List<StageDef> STAGES = List.of(
            new StageDef("gone→seen", i -> i.t0, i -> i.t1),
            new StageDef("seen→reconcile", i -> i.t1, i -> i.t2),
            new StageDef("reconcile→created", i -> i.t2, i -> i.t3),
            new StageDef("created→running", i -> i.t3, i -> i.t4),
            new StageDef("gone→created", i -> i.t0, i -> i.t3),
            new StageDef("gone→running", i -> i.t0, i -> i.t4));

    /** Marks an unset instant. */
    private static final long UNSET = Long.MIN_VALUE;

    private final Clock clock;
    private final long startNanos;
    private final double speed;

    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by {@code lock}: incident by gone pod's uid. */
    private final Map<String, Tracked> byUid = new HashMap<>();
    /** Guarded by {@code lock}: incident by its replacement's namespace/name. */
    private final Map<String, Tracked> byReplacement = new HashMap<>();
    /** Guarded by {@code lock}: pods reported Running (namespace/name → earliest instant) not known as replacements. */
    private final Map<String, Long> runningUnmatched = new HashMap<>();

    /**
     * @param startNanos {@code clock.nanoTime()} when the scenario began (incidents' {@code at} counts from it)
     * @param speed the cluster's speed: {@code at} is cluster time, real elapsed time × speed
     */
    public IncidentTracker(Clock clock, long startNanos, double speed) {
        this.clock = Objects.requireNonNull(clock, "clock");
        if (!(speed > 0) || Double.isInfinite(speed)) {
            throw new IllegalArgumentException("speed must be a positive number, got " + speed);
        }
        this.startNanos = startNanos;
        this.speed = speed;
    }

    /** The clock the instants come from (every reported instant is its {@code nanoTime()}). */
    public Clock clock() {
        return clock;
    }

    /** t0: pod {@code podUid} of PodSet {@code podSet} gone ({@code cause}: killed, evicted, deleted). */
    public void podGone(
            String namespace, String pod, String podUid, String podSet, String node, String cause, long nanoTime) {
        requireText(namespace, "namespace");
        requireText(pod, "pod");
        requireText(podUid, "podUid");
        requireText(podSet, "podSet");
        if (!cause.equals("killed") && !cause.equals("evicted") && !cause.equals("deleted")) {
            throw new IllegalArgumentException("cause must be killed, evicted or deleted, got " + cause);
        }
        lock.lock();
        try {
            Tracked t = incident(namespace, pod, podUid, podSet, nanoTime);
            boolean earliestGone = t.goneAt == UNSET || nanoTime - t.goneAt < 0;
            if (t.cause.equals("deleted") || (earliestGone && !cause.equals("deleted"))) {
                t.cause = cause;
            }
            if (earliestGone) {
                t.goneAt = nanoTime;
            }
            if (t.node == null && node != null && !node.isEmpty()) {
                t.node = node;
            }
        } finally {
            lock.unlock();
        }
    }

    /** The hooks of operator instance {@code instance}: t1, and t2/t3 for the pods its reconciles create. */
    public PodGuardian.Listener listenerFor(String instance) {
        requireText(instance, "instance");
        return new PodGuardian.Listener() {
            @Override
            public void podDeletionSeen(String namespace, String podSet, String pod, String podUid, long nanoTime) {
                deletionSeen(namespace, podSet, pod, podUid, nanoTime);
            }

            @Override
            public void podCreated(
                    String namespace, String podSet, String pod, long reconcileStartNanos, long createdNanos) {
                created(namespace, podSet, pod, reconcileStartNanos, createdNanos);
            }

            @Override
            public String toString() {
                return "IncidentTracker listener of " + instance;
            }
        };
    }

    private void deletionSeen(String namespace, String podSet, String pod, String podUid, long nanoTime) {
        lock.lock();
        try {
            Tracked t = incident(namespace, pod, podUid, podSet, nanoTime);
            if (t.t1 == UNSET || nanoTime - t.t1 < 0) {
                t.t1 = nanoTime;
            }
        } finally {
            lock.unlock();
        }
    }

    private void created(String namespace, String podSet, String pod, long reconcileStartNanos, long createdNanos) {
        lock.lock();
        try {
            Tracked oldest = null;
            for (Tracked t : byUid.values()) {
                if (t.replacement == null
                        && t.namespace.equals(namespace)
                        && t.podSet.equals(podSet)
                        && (oldest == null || t.t0 - oldest.t0 < 0)) {
                    oldest = t;
                }
            }
            if (oldest == null) {
                return; // the initial pods, a scale-up: nothing was lost
            }
            oldest.replacement = pod;
            oldest.t2 = reconcileStartNanos;
            oldest.t3 = createdNanos;
            String key = namespace + "/" + pod;
            byReplacement.put(key, oldest);
            Long running = runningUnmatched.remove(key);
            if (running != null) {
                oldest.t4 = running;
            }
        } finally {
            lock.unlock();
        }
    }

    /** t4: pod {@code pod} is Running and Ready (called for every pod that becomes so; others are ignored). */
    public void podRunning(String namespace, String pod, long nanoTime) {
        String key = namespace + "/" + pod;
        lock.lock();
        try {
            Tracked t = byReplacement.get(key);
            if (t == null) {
                runningUnmatched.merge(key, nanoTime, (a, b) -> b - a < 0 ? b : a);
            } else if (t.t4 == UNSET && !t.replacementLost) {
                t.t4 = nanoTime;
            }
        } finally {
            lock.unlock();
        }
    }

    /** Incidents whose replacement is not Running yet (not counting those whose replacement was itself lost). */
    public int open() {
        lock.lock();
        try {
            int open = 0;
            for (Tracked t : byUid.values()) {
                if (t.t4 == UNSET && !t.replacementLost) {
                    open++;
                }
            }
            return open;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Every incident so far, in t0 order. Stage instants are milliseconds after t0 (microsecond resolution), null
     * when not reached, clamped to 0 when a clock difference comes out negative; {@code at} is cluster time
     * ((t0 − start) × speed, 0 for an incident before the scenario began).
     */
    public List<DemoReport.Incident> incidents() {
        List<DemoReport.Incident> out = new ArrayList<>();
        for (Tracked t : snapshot()) {
            long sinceStart = Math.max(0, t.t0 - startNanos);
            out.add(new DemoReport.Incident(
                    t.pod,
                    t.node,
                    t.cause,
                    Duration.ofNanos(Math.round(sinceStart * speed)),
                    t.replacement,
                    msAfter(t.t0, t.t1),
                    msAfter(t.t0, t.t2),
                    msAfter(t.t0, t.t3),
                    msAfter(t.t0, t.t4)));
        }
        return out;
    }

    /**
     * The stages' percentiles over {@link #incidents()}, in the order {@link DemoReport.Stage} lists them. A stage
     * counts the incidents that reached both its ends; its percentiles are nearest-rank (the smallest sample with at
     * least p % of the samples at or below it) and its values milliseconds; a stage no incident reached has count 0
     * and NaN values.
     */
    public List<DemoReport.Stage> stages() {
        List<Tracked> all = snapshot();
        List<DemoReport.Stage> out = new ArrayList<>(STAGES.size());
        for (StageDef def : STAGES) {
            List<Long> samples = new ArrayList<>();
            for (Tracked t : all) {
                long from = def.from.applyAsLong(t);
                long to = def.to.applyAsLong(t);
                if (from != UNSET && to != UNSET) {
                    samples.add(Math.max(0, to - from));
                }
            }
            out.add(stage(def.name, samples));
        }
        return out;
    }

    /** The stage of {@code name} over {@code samples} (nanoseconds, any order). */
    static DemoReport.Stage stage(String name, List<Long> samples) {
        if (samples.isEmpty()) {
            return new DemoReport.Stage(name, 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
        }
        long[] sorted = samples.stream().mapToLong(Long::longValue).sorted().toArray();
        return new DemoReport.Stage(
                name,
                sorted.length,
                ms(nearestRank(sorted, 50)),
                ms(nearestRank(sorted, 95)),
                ms(nearestRank(sorted, 99)),
                ms(sorted[sorted.length - 1]));
    }

    /** The nearest-rank {@code p}-th percentile of non-empty ascending {@code sorted}: the ⌈p/100 · n⌉-th value. */
    static long nearestRank(long[] sorted, int p) {
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(1, rank) - 1];
    }

    /** Copies of the incidents (as values, taken under the lock), in t0 order, ties by pod name. */
    private List<Tracked> snapshot() {
        List<Tracked> copy = new ArrayList<>();
        lock.lock();
        try {
            for (Tracked t : byUid.values()) {
                copy.add(t.copy());
            }
        } finally {
            lock.unlock();
        }
        copy.sort(Comparator.<Tracked>comparingLong(t -> t.t0 - startNanos).thenComparing(t -> t.pod));
        return copy;
    }

    /**
     * The incident of {@code uid}, opened at {@code nanoTime} if new; else t0 lowered to {@code nanoTime} if that is
     * earlier. A new incident whose pod is the replacement of an incident not yet Running closes that one.
     */
    private Tracked incident(String namespace, String pod, String uid, String podSet, long nanoTime) {
        Tracked t = byUid.get(uid);
        if (t == null) {
            t = new Tracked(namespace, pod, podSet, nanoTime);
            byUid.put(uid, t);
            Tracked replaced = byReplacement.get(namespace + "/" + pod);
            if (replaced != null && replaced.t4 == UNSET) {
                replaced.replacementLost = true;
            }
        } else if (nanoTime - t.t0 < 0) {
            t.t0 = nanoTime;
        }
        return t;
    }

    private static Double msAfter(long t0, long t) {
        return t == UNSET ? null : ms(Math.max(0, t - t0));
    }

    /** Nanoseconds as milliseconds, rounded to the microsecond. */
    private static double ms(long nanos) {
        return Math.round(nanos / 1_000.0) / 1_000.0;
    }

    private static void requireText(String value, String what) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException(what + " must not be empty");
        }
    }

    private record StageDef(String name, ToLongFunction<Tracked> from, ToLongFunction<Tracked> to) {}

    /** One incident's state; mutable, guarded by the tracker's lock. */
    private static final class Tracked {
        final String namespace;
        final String pod;
        final String podSet;
        String node;
        String cause = "deleted";
        long t0;
        /** The earliest {@code podGone} instant, UNSET before the first. */
        long goneAt = UNSET;

        long t1 = UNSET;
        long t2 = UNSET;
        long t3 = UNSET;
        long t4 = UNSET;
        String replacement;
        /** The replacement was itself gone before it ran: closed without t4. */
        boolean replacementLost;

        Tracked(String namespace, String pod, String podSet, long t0) {
            this.namespace = namespace;
            this.pod = pod;
            this.podSet = podSet;
            this.t0 = t0;
        }

        Tracked copy() {
            Tracked c = new Tracked(namespace, pod, podSet, t0);
            c.node = node;
            c.cause = cause;
            c.goneAt = goneAt;
            c.t1 = t1;
            c.t2 = t2;
            c.t3 = t3;
            c.t4 = t4;
            c.replacement = replacement;
            c.replacementLost = replacementLost;
            return c;
        }
    }
}
