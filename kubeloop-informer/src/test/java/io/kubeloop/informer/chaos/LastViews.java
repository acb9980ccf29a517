package io.kubeloop.informer.chaos;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.kubeloop.informer.ResourceEventHandler;
import io.kubeloop.informer.cache.DeletedFinalStateUnknown;
import io.kubeloop.informer.cache.Keys;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A handler that records its last view of every object, and checks, notification by notification, what a handler
 * may rely on (client-go's contract as seen by one handler):
 * <ul>
 *   <li>{@code onAdd} only for a key it does not know, or last saw deleted;</li>
 *   <li>{@code onUpdate} and {@code onDelete} only for a key it knows; {@code onUpdate}'s old object is the one it
 *       last saw (same resourceVersion);</li>
 *   <li>an object's resourceVersion never goes back in time (no stale state after a newer one).</li>
 * </ul>
 * Breaches are kept (the first 100) for the test to report.
 */
final class LastViews implements ResourceEventHandler<ConfigMap> {

    enum Kind {
        ADDED,
        UPDATED,
        DELETED
    }

    /** What the handler last heard of one key; {@code object} is null for a tombstone without a last state. */
    record View(Kind kind, String resourceVersion, ConfigMap object, boolean tombstone) {}

    private static final int MAX_BREACHES = 100;

    private final String name;
    private final Map<String, View> views = new ConcurrentHashMap<>();
    private final List<String> breaches = new CopyOnWriteArrayList<>();
    private final AtomicLong notifications = new AtomicLong();
    private final AtomicLong tombstones = new AtomicLong();
    private final AtomicLong resyncs = new AtomicLong();

    LastViews(String name) {
        this.name = name;
    }

    @Override
    public void onAdd(ConfigMap object, boolean isInInitialList) {
        String key = Keys.META_NAMESPACE.keyOf(object);
        View last = views.get(key);
        if (last != null && last.kind() != Kind.DELETED) {
            breach("onAdd of " + key + " at " + rv(object) + ", which it last saw " + last);
        }
        forward(key, last, rv(object));
        record(key, new View(Kind.ADDED, rv(object), object, false));
    }

    @Override
    public void onUpdate(ConfigMap oldObject, ConfigMap newObject) {
        String key = Keys.META_NAMESPACE.keyOf(newObject);
        View last = views.get(key);
        if (last == null || last.kind() == Kind.DELETED) {
            breach("onUpdate of " + key + " at " + rv(newObject) + ", which it last saw " + last);
        } else if (!Objects.equals(last.resourceVersion(), rv(oldObject))) {
            breach("onUpdate of " + key + ": old at " + rv(oldObject) + ", but it last saw " + last);
        }
        if (Objects.equals(rv(oldObject), rv(newObject))) {
            resyncs.incrementAndGet();
        }
        forward(key, last, rv(newObject));
        record(key, new View(Kind.UPDATED, rv(newObject), newObject, false));
    }

    @Override
    public void onDelete(Object object) {
        String key = Keys.DELETION_HANDLING.keyOf(object);
        View last = views.get(key);
        if (last == null || last.kind() == Kind.DELETED) {
            breach("onDelete of " + key + ", which it last saw " + last);
        }
        ConfigMap state;
        boolean tombstone = object instanceof DeletedFinalStateUnknown<?>;
        if (tombstone) {
            tombstones.incrementAndGet();
            state = ((DeletedFinalStateUnknown<?>) object).object() instanceof ConfigMap c ? c : null;
        } else {
            state = (ConfigMap) object;
        }
        String rv = state == null ? null : rv(state);
        if (rv != null) {
            forward(key, last, rv);
        }
        record(key, new View(Kind.DELETED, rv, state, tombstone));
    }

    private void forward(String key, View last, String rv) {
        if (last != null
                && last.resourceVersion() != null
                && Long.parseLong(rv) < Long.parseLong(last.resourceVersion())) {
            breach(key + " went back in time: " + rv + " after " + last);
        }
    }

    private void record(String key, View view) {
        views.put(key, view);
        notifications.incrementAndGet();
    }

    private void breach(String what) {
        if (breaches.size() < MAX_BREACHES) {
            breaches.add(name + ": " + what);
        }
    }

    private static String rv(ConfigMap object) {
        return object.getMetadata().getResourceVersion();
    }

    String name() {
        return name;
    }

    View lastView(String key) {
        return views.get(key);
    }

    List<String> breaches() {
        return new ArrayList<>(breaches);
    }

    long notifications() {
        return notifications.get();
    }

    long tombstones() {
        return tombstones.get();
    }

    long resyncs() {
        return resyncs.get();
    }

    @Override
    public String toString() {
        return name + ": " + notifications.get() + " notifications, " + tombstones.get() + " tombstones, "
                + resyncs.get() + " resyncs, " + breaches.size() + " breaches";
    }
}
