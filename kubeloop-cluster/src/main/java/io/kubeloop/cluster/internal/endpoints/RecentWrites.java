package io.kubeloop.cluster.internal.endpoints;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The objects a controller wrote that its cache may not show yet (kube's {@code staleEndpointsTracker} and
 * {@code EndpointSliceTracker}, turned around: instead of refusing to sync from a stale cache, the sync reads the
 * newer of the cache's object and the one it wrote).
 *
 * <p>A sync that runs right after its own write — the next pod event — would otherwise see the cache's older
 * state: it would create a second EndpointSlice for an endpoint it had just placed, or compute a write from
 * outdated subsets. Entries are grouped by Service ({@code namespace/name}) and keyed by object name.
 *
 * <p>Invariants: an entry is either the object as the server stored it after this controller's create or update,
 * or a tombstone after its delete; it leaves as soon as the cache holds that resourceVersion or a newer one (or, for
 * a tombstone, no longer holds the object), when a deletion of the object at or after that version is observed, or
 * when a write based on it fails with 404. resourceVersions are compared as numbers (kube-apiserver's and the
 * embedded server's are); one that does not parse counts as caught up. Only the Service's worker changes a
 * group (never two at once), the informer's dispatcher reads it and removes observed deletions.
 */
final class RecentWrites<T extends HasMetadata> {

    /** The object as stored ({@code object != null}) or deleted at {@code resourceVersion}. */
    private record Entry<T>(T object, long resourceVersion) {}

    private final Map<String, Map<String, Entry<T>>> groups = new ConcurrentHashMap<>();

    void written(String group, T stored) {
        long rv = rv(stored);
        if (rv < 0) {
            return; // not comparable: trust the cache
        }
        groups.computeIfAbsent(group, g -> new ConcurrentHashMap<>())
                .put(stored.getMetadata().getName(), new Entry<>(stored, rv));
    }

    void deleted(String group, T object) {
        long rv = rv(object);
        groups.computeIfAbsent(group, g -> new ConcurrentHashMap<>())
                .put(object.getMetadata().getName(), new Entry<>(null, Math.max(rv, 0)));
    }

    /** A 404 on a write based on our entry: the object is gone, trust the cache again. */
    void forget(String group, String name) {
        Map<String, Entry<T>> entries = groups.get(group);
        if (entries != null) {
            entries.remove(name);
        }
    }

    void forgetGroup(String group) {
        groups.remove(group);
    }

    /** A deletion the informer delivered: entries at or before its resourceVersion are gone. */
    void observeDeleted(String group, HasMetadata object) {
        Map<String, Entry<T>> entries = groups.get(group);
        if (entries == null) {
            return;
        }
        long rv = rv(object);
        entries.computeIfPresent(
                object.getMetadata().getName(), (name, e) -> rv < 0 || rv >= e.resourceVersion() ? null : e);
    }

    /** Whether {@code object} (an informer event's) is this controller's own latest write or deletion of it. */
    boolean isOwn(String group, HasMetadata object) {
        Map<String, Entry<T>> entries = groups.get(group);
        if (entries == null) {
            return false;
        }
        Entry<T> e = entries.get(object.getMetadata().getName());
        return e != null && e.object() != null && rv(object) == e.resourceVersion();
    }

    /** Whether this controller deleted {@code name} and the deletion has not been observed yet. */
    boolean isOwnDeletion(String group, String name) {
        Map<String, Entry<T>> entries = groups.get(group);
        Entry<T> e = entries == null ? null : entries.get(name);
        return e != null && e.object() == null;
    }

    /**
     * The group's objects as they are now: each cached object, or our newer write of it; our writes the cache does
     * not hold yet; without the ones we deleted. Drops the entries the cache has caught up with.
     */
    List<T> merge(String group, List<T> cached) {
        Map<String, Entry<T>> entries = groups.get(group);
        if (entries == null || entries.isEmpty()) {
            return cached;
        }
        List<T> out = new ArrayList<>(cached.size() + entries.size());
        Set<String> seen = new HashSet<>();
        for (T object : cached) {
            String name = object.getMetadata().getName();
            seen.add(name);
            Entry<T> e = entries.get(name);
            if (e == null) {
                out.add(object);
                continue;
            }
            long rv = rv(object);
            if (rv < 0 || rv > e.resourceVersion() || (e.object() != null && rv == e.resourceVersion())) {
                entries.remove(name); // the cache caught up (or someone wrote after us)
                out.add(object);
            } else if (e.object() != null) {
                out.add(e.object());
            } // else: our deletion, not yet in the cache
        }
        for (Map.Entry<String, Entry<T>> e : entries.entrySet()) {
            if (seen.contains(e.getKey())) {
                continue;
            }
            if (e.getValue().object() == null) {
                entries.remove(e.getKey()); // our deletion reached the cache
            } else {
                out.add(e.getValue().object()); // our creation has not reached it yet
            }
        }
        return out;
    }

    /** {@link #merge} for a group of at most one object: the object now, or null. */
    T resolve(String group, T cached) {
        List<T> merged = merge(group, cached == null ? List.of() : List.of(cached));
        return merged.isEmpty() ? null : merged.get(0);
    }

    private static long rv(HasMetadata object) {
        String rv = object.getMetadata().getResourceVersion();
        if (rv == null) {
            return -1;
        }
        try {
            return Long.parseLong(rv);
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
