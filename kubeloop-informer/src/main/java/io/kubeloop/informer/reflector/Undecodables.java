package io.kubeloop.informer.reflector;

import io.kubeloop.client.codec.UndecodableObject;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The objects a reflector could not decode and left out of its store, by key ({@code namespace/name}): what its
 * health shows, and the memory that makes it log and count each object once per resourceVersion rather than on
 * every relist.
 *
 * <p>Invariant: a key is here exactly while the server's newest state of that object, as far as the reflector has
 * seen, does not decode — it enters with a list or watch event that did not decode, and leaves with one that did, with
 * its deletion, or with a list that no longer holds it undecodable. Written by the reflector's run thread only; read
 * from any thread (a weakly consistent snapshot).
 */
final class Undecodables {

    private static final Logger LOG = LoggerFactory.getLogger(Reflector.class);

    private static final Comparator<UndecodableObject> BY_KEY = Comparator.comparing(UndecodableObject::key);

    private final String name;
    private final ReflectorMetrics metrics;
    private final ConcurrentHashMap<String, UndecodableObject> current = new ConcurrentHashMap<>();

    Undecodables(String name, ReflectorMetrics metrics) {
        this.name = name;
        this.metrics = metrics;
    }

    /**
     * A complete list held {@code found} (perhaps none): they are now the undecodable objects. Logs and counts those
     * not already known at their resourceVersion.
     */
    void listed(List<UndecodableObject> found) {
        if (found.isEmpty() && current.isEmpty()) {
            return; // the usual case
        }
        Set<String> keys = HashSet.newHashSet(found.size());
        for (UndecodableObject o : found) {
            seen(o);
            keys.add(o.key());
        }
        for (String key : current.keySet()) {
            if (!keys.contains(key)) {
                current.remove(key);
                LOG.info("{}: {} is no longer listed as undecodable (it decodes again, or is gone)", name, key);
            }
        }
    }

    /**
     * An object that does not decode (a list item or a watch ADDED/MODIFIED): remembered, and logged at WARN and
     * counted unless it was already known at this resourceVersion.
     *
     * @return whether it was new
     */
    boolean seen(UndecodableObject o) {
        if (o.hasName()) {
            UndecodableObject previous = current.put(o.key(), o);
            if (previous != null && Objects.equals(previous.resourceVersion(), o.resourceVersion())) {
                return false;
            }
        }
        metrics.decodeError();
        LOG.warn(
                "{}: cannot decode {} at resourceVersion {}; it is left out of the cache until it changes to "
                        + "something that decodes: {}",
                name,
                o.key(),
                o.resourceVersion() == null ? "<unknown>" : o.resourceVersion(),
                o.error());
        return true;
    }

    /** The object at {@code key} arrived decoded (or was deleted): it is no longer undecodable. */
    void gone(String key, boolean decoded) {
        if (current.isEmpty()) {
            return;
        }
        UndecodableObject was = current.remove(key);
        if (was != null && decoded) {
            LOG.info("{}: {} decodes again; it is back in the cache", name, key);
        }
    }

    /** Whether no object is undecodable now. */
    boolean isEmpty() {
        return current.isEmpty();
    }

    /** How many objects are undecodable now. */
    int count() {
        return current.size();
    }

    /** The undecodable objects now, by key. */
    List<UndecodableObject> snapshot() {
        List<UndecodableObject> all = new ArrayList<>(current.values());
        all.sort(BY_KEY);
        return List.copyOf(all);
    }
}
