package io.kubeloop.apiserver.internal.lifecycle;

import io.kubeloop.apiserver.internal.storage.StorageKey;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The garbage collector's graph, reduced to what it needs: for each owner uid, the keys of the objects that
 * name it in {@code ownerReferences}. Fed from the store's watches, so it lags the store a little: callers
 * re-read each dependent and check its references before acting on it.
 *
 * <p>Invariant: {@code owners.get(k)} lists exactly the uids under which {@code k} is filed in
 * {@code dependents}; both change together, one key at a time. Only objects with owner references take
 * space.
 */
final class OwnerIndex {

    private final ConcurrentHashMap<String, Set<StorageKey>> dependents = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<StorageKey, List<String>> owners = new ConcurrentHashMap<>();

    /** Records that {@code dependent} now names {@code ownerUids} (empty when it names none or is gone). */
    void set(StorageKey dependent, List<String> ownerUids) {
        owners.compute(dependent, (k, previous) -> {
            if (previous != null) {
                for (String uid : previous) {
                    if (!ownerUids.contains(uid)) {
                        dependents.computeIfPresent(uid, (u, set) -> {
                            set.remove(k);
                            return set.isEmpty() ? null : set;
                        });
                    }
                }
            }
            for (String uid : ownerUids) {
                dependents
                        .computeIfAbsent(uid, u -> ConcurrentHashMap.newKeySet())
                        .add(k);
            }
            return ownerUids.isEmpty() ? null : List.copyOf(ownerUids);
        });
    }

    /** The keys filed under {@code ownerUid}: a snapshot. */
    List<StorageKey> dependents(String ownerUid) {
        Set<StorageKey> set = dependents.get(ownerUid);
        return set == null ? List.of() : List.copyOf(set);
    }

    boolean hasDependents(String ownerUid) {
        Set<StorageKey> set = dependents.get(ownerUid);
        return set != null && !set.isEmpty();
    }

    /** The keys of one resource that the index holds, for pruning after a relist. */
    List<StorageKey> keysOf(String group, String resource) {
        return owners.keySet().stream()
                .filter(k -> k.group().equals(group) && k.resource().equals(resource))
                .toList();
    }
}
