package io.kubeloop.informer;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kubeloop.informer.cache.DeletedFinalStateUnknown;
import io.kubeloop.informer.cache.Indexer;
import io.kubeloop.informer.cache.Keys;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A handler that writes every notification down as a line ("add ns/a rv=1 initial", "update ns/a 1->4",
 * "delete ns/b rv=5", "delete ns/b tombstone"), keeps its last view of every object, and checks at each call that
 * the cache already holds the state it is told about or a later one (the store is updated before handlers hear of
 * it).
 */
class Recorder<T extends HasMetadata> implements ResourceEventHandler<T> {

    final List<String> events = new CopyOnWriteArrayList<>();
    /** Key → last resourceVersion seen; absent after a delete. */
    final Map<String, String> lastView = new ConcurrentHashMap<>();

    private final List<String> cacheViolations = new CopyOnWriteArrayList<>();
    /**
     * Keys that were absent from the cache when an add or update of them was handled: fine only if a delete of
     * the key was processed meanwhile, whose notification then follows (handlers are called asynchronously, in
     * order).
     */
    private final Map<String, String> absentUntilDelete = new ConcurrentHashMap<>();

    private volatile Indexer<T> cache;

    Recorder<T> checking(Indexer<T> cache) {
        this.cache = cache;
        return this;
    }

    @Override
    public void onAdd(T object, boolean isInInitialList) {
        String key = Keys.META_NAMESPACE.keyOf(object);
        checkCached(key, object);
        lastView.put(key, rv(object));
        events.add("add " + key + " rv=" + rv(object) + (isInInitialList ? " initial" : ""));
    }

    @Override
    public void onUpdate(T oldObject, T newObject) {
        String key = Keys.META_NAMESPACE.keyOf(newObject);
        checkCached(key, newObject);
        lastView.put(key, rv(newObject));
        events.add("update " + key + " " + rv(oldObject) + "->" + rv(newObject));
    }

    @Override
    public void onDelete(Object object) {
        String key = Keys.DELETION_HANDLING.keyOf(object);
        Indexer<T> c = cache;
        if (c != null) {
            // The cache may hold a newer incarnation by now; it must not hold this one.
            Optional<T> cached = c.getByKey(key);
            if (object instanceof HasMetadata h
                    && cached.isPresent()
                    && rv(cached.get()).equals(rv(h))) {
                cacheViolations.add("delete " + key + ": still cached");
            }
        }
        lastView.remove(key);
        absentUntilDelete.remove(key);
        events.add(
                object instanceof DeletedFinalStateUnknown<?>
                        ? "delete " + key + " tombstone"
                        : "delete " + key + " rv=" + rv((HasMetadata) object));
    }

    private void checkCached(String key, T object) {
        Indexer<T> c = cache;
        if (c == null) {
            return;
        }
        Optional<T> cached = c.getByKey(key);
        if (cached.isEmpty()) {
            absentUntilDelete.putIfAbsent(key, key + " rv=" + rv(object) + ": not cached when notified");
        } else if (Long.parseLong(rv(cached.get())) < Long.parseLong(rv(object))) {
            cacheViolations.add(key + " rv=" + rv(object) + ": the cache holds the older rv=" + rv(cached.get()));
        }
    }

    /** Notifications that reached this handler before the cache held their state. */
    List<String> cacheViolations() {
        List<String> all = new ArrayList<>(cacheViolations);
        all.addAll(absentUntilDelete.values());
        return all;
    }

    List<String> events() {
        return new ArrayList<>(events);
    }

    List<String> eventsStartingWith(String prefix) {
        return events.stream().filter(e -> e.startsWith(prefix)).toList();
    }

    static String rv(HasMetadata object) {
        return object.getMetadata().getResourceVersion();
    }
}
