package io.kubeloop.cluster.internal.workloads;

import io.kubeloop.clock.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * kube-controller-manager's {@code UIDTrackingControllerExpectations}: what a controller has asked the API server to
 * create or delete for one of its objects and not yet seen in its informer cache, so that it never acts twice on a
 * stale cache (creating 3 pods, then 3 more because the cache did not show the first 3 yet).
 *
 * <p>Protocol, as kube's: before creating {@code n} objects the controller calls {@link #expectCreations}; before
 * deleting it calls {@link #expectDeletions} with the keys of what it deletes. The watch handlers call
 * {@link #creationObserved} when a created object arrives in the cache and {@link #deletionObserved} when a deleted
 * one goes (or gets a deletionTimestamp) — <em>before</em> they enqueue the controller's object, so the reconcile
 * that follows sees the observation. A write that failed is observed by the controller itself (the informer will
 * never see it). The reconcile acts only when {@link #satisfied}: nothing outstanding, or the expectations are older
 * than the timeout (kube's 5 minutes: a lost event does not block the controller for ever), or none were set.
 *
 * <p>Invariant: a controller key has at most one record; {@code expectCreations}/{@code expectDeletions} replace it
 * (kube's {@code SetExpectations}). Deletion keys ({@code namespace/name}) are tracked so that a pod's deletion is
 * counted once however many events (deletionTimestamp set, then removed) it produces. Thread-safe.
 */
public final class Expectations {

    /** kube's {@code ExpectationsTimeout}. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(5);

    private final Clock clock;
    private final Duration timeout;
    private final Map<String, Record> records = new ConcurrentHashMap<>();

    /** One controller's outstanding creations and deletions; {@code since} is when they were set (clock nanos). */
    private record Record(int adds, int deletes, Set<String> deleteKeys, long since) {
        boolean fulfilled() {
            return adds <= 0 && deletes <= 0;
        }
    }

    /** @param timeout clock time after which outstanding expectations no longer block (already in wall time) */
    public Expectations(Clock clock, Duration timeout) {
        this.clock = clock;
        this.timeout = timeout;
    }

    /** {@code SatisfiedExpectations}: whether the controller of {@code key} may act on what its cache shows. */
    public boolean satisfied(String key) {
        Record r = records.get(key);
        if (r == null || r.fulfilled()) {
            return true;
        }
        return clock.nanoTime() - r.since > timeout.toNanos();
    }

    /** {@code ExpectCreations}: {@code count} objects are about to be created for {@code key}. */
    public void expectCreations(String key, int count) {
        records.put(key, new Record(count, 0, Set.of(), clock.nanoTime()));
    }

    /** {@code ExpectDeletions} (UID-tracking): the objects of {@code deleteKeys} are about to be deleted. */
    public void expectDeletions(String key, Collection<String> deleteKeys) {
        Set<String> keys = ConcurrentHashMap.newKeySet();
        keys.addAll(deleteKeys);
        records.put(key, new Record(0, keys.size(), keys, clock.nanoTime()));
    }

    /** {@code CreationObserved}: one expected creation for {@code key} arrived (or failed). */
    public void creationObserved(String key) {
        records.computeIfPresent(key, (k, r) -> new Record(r.adds - 1, r.deletes, r.deleteKeys, r.since));
    }

    /**
     * {@code DeletionObserved}: the object {@code deleteKey} ({@code namespace/name}) is gone or being deleted (or
     * its deletion failed); counted once per expected key.
     */
    public void deletionObserved(String key, String deleteKey) {
        records.computeIfPresent(
                key,
                (k, r) -> r.deleteKeys.contains(deleteKey) && r.deleteKeys.remove(deleteKey)
                        ? new Record(r.adds, r.deletes - 1, r.deleteKeys, r.since)
                        : r);
    }

    /** {@code DeleteExpectations}: the controller's object is gone. */
    public void forget(String key) {
        records.remove(key);
    }

    /** Outstanding creations and deletions of {@code key} as {@code [adds, deletes]}, for logs and tests. */
    public int[] pending(String key) {
        Record r = records.get(key);
        return r == null ? new int[] {0, 0} : new int[] {r.adds, r.deletes};
    }
}
