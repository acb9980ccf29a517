package io.kubeloop.demo.internal.operator;

import io.kubeloop.clock.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * kube-controller-manager's <em>expectations</em> for PodSets ({@code UIDTrackingControllerExpectations}): after a
 * reconcile creates or deletes pods, the next reconcile of that PodSet does not act again until the pod informer has
 * delivered each of those creations and deletions — else a reconcile triggered by another event (its own status
 * write comes back first, say) would read a cache without the new pods and create them twice.
 *
 * <p>Creations are counted (the names come back only with the server's answer, and the informer may deliver the pod
 * before that): {@link #expect} raises the count before the creates, each creation the informer delivers lowers it,
 * and so does each create that fails. Deletions are tracked by uid, recorded before the deletes. An expectation older
 * than {@code ttl} on the manager's clock counts as met (a watch event can be lost for good: a pod created and
 * deleted while the watch was down never shows up in the relist).
 *
 * <p>Thread-safe: the workers raise, the informer's handler lowers; every change is one atomic map update.
 */
final class Expectations {

    private record Entry(int creations, Set<String> deletions, long sinceNanos) {
        boolean met() {
            return creations <= 0 && deletions.isEmpty();
        }
    }

    private final Clock clock;
    private final long ttlNanos;
    private final ConcurrentMap<String, Entry> byKey = new ConcurrentHashMap<>();

    Expectations(Clock clock, Duration ttl) {
        this.clock = clock;
        this.ttlNanos = ttl.toNanos();
    }

    /** Whether the reconcile of {@code key} may act: nothing outstanding, or what is outstanding has expired. */
    boolean satisfied(String key) {
        Entry e = byKey.get(key);
        if (e == null || e.met()) {
            return true;
        }
        if (clock.nanoTime() - e.sinceNanos() >= ttlNanos) {
            byKey.remove(key, e);
            return true;
        }
        return false;
    }

    /** Before acting: {@code creations} pods will be created and the pods {@code deletionUids} deleted. */
    void expect(String key, int creations, Set<String> deletionUids) {
        byKey.put(key, new Entry(creations, Set.copyOf(deletionUids), clock.nanoTime()));
    }

    /** The informer delivered a new pod of {@code key}, or a create failed. */
    void creationObserved(String key) {
        byKey.computeIfPresent(
                key, (k, e) -> e.creations() <= 0 ? e : new Entry(e.creations() - 1, e.deletions(), e.sinceNanos()));
    }

    /** Whether the deletion of pod {@code uid} of {@code key} is one the operator asked for and has not yet seen. */
    boolean isExpectedDeletion(String key, String uid) {
        Entry e = byKey.get(key);
        return e != null && e.deletions().contains(uid);
    }

    /** The informer delivered the deletion (or the start of it) of pod {@code uid}, or the delete failed. */
    void deletionObserved(String key, String uid) {
        byKey.computeIfPresent(key, (k, e) -> {
            if (!e.deletions().contains(uid)) {
                return e;
            }
            Set<String> rest = new HashSet<>(e.deletions());
            rest.remove(uid);
            return new Entry(e.creations(), Set.copyOf(rest), e.sinceNanos());
        });
    }

    /** The PodSet is gone. */
    void forget(String key) {
        byKey.remove(key);
    }
}
