package io.kubeloop.controller.internal.client;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.kubeloop.clock.Clock;
import io.kubeloop.controller.ControllerClient;
import io.kubeloop.informer.ResourceEventHandler;
import io.kubeloop.informer.cache.Keys;
import io.kubeloop.informer.cache.ObjectName;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Read-your-own-writes: after this client writes an object, reads of it from the cache wait (bounded) until the
 * cache holds that write (controller-runtime#3320, JOSDK's temporary cache).
 *
 * <p>Only reads are delayed; no event is filtered or dropped (JOSDK#3398: a spec change landing while a status
 * update is in flight must still reach the controller). After every write the client records an
 * {@link Expectation} for the object's key; a read of the key waits until the cached object satisfies it, and a
 * list waits for every expectation of the type in its namespace. The informer's event handler (which runs after the
 * cache is updated) drops satisfied expectations and wakes waiting readers; a reader that times out logs a WARN,
 * drops the expectation and reads what the cache has.
 *
 * <p>When is a cached object "at least" the written one? resourceVersions are opaque strings in Kubernetes' API
 * contract; kube-apiserver (and the embedded server) makes them integers that grow with every write, so when both
 * parse as integers they are compared as numbers. Otherwise the cached object satisfies the expectation when its
 * resourceVersion equals the written one, or differs from the one the cache held when the write returned (the
 * cache moved on; it may have skipped the write itself). A delete expects the object gone from the cache (or, when
 * finalizers keep it, present at the returned resourceVersion or later).
 */
final class OwnWrites {

    private static final Logger log = LoggerFactory.getLogger(ControllerClient.class);

    private final Clock clock;
    private final Duration timeout;
    private final ConcurrentHashMap<Class<?>, TypeWrites<?>> byType = new ConcurrentHashMap<>();

    OwnWrites(Clock clock, Duration timeout) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
    }

    /**
     * What a read of one key waits for.
     *
     * @param resourceVersion the resourceVersion the write returned; null for a delete that expects the object gone
     * @param cachedBefore the cached resourceVersion when the write returned (null: not cached)
     * @param mayBeGone a delete that returned the object still present: gone is as good as the new version
     */
    record Expectation(String resourceVersion, String cachedBefore, boolean mayBeGone) {

        boolean satisfiedBy(Optional<? extends HasMetadata> cached) {
            if (cached.isEmpty()) {
                // Absent after a delete held by finalizers counts only if the cache had the object when the delete
                // returned: otherwise the cache may simply not have seen the object yet (its deletion, when it
                // comes, satisfies the expectation through onDelete).
                return resourceVersion == null || (mayBeGone && cachedBefore != null);
            }
            if (resourceVersion == null) {
                return false;
            }
            String now = resourceVersionOf(cached.get());
            return atLeast(now, resourceVersion, cachedBefore);
        }
    }

    /** Whether cached resourceVersion {@code now} is at least {@code written}, by the rule in the class comment. */
    static boolean atLeast(String now, String written, String cachedBefore) {
        if (now == null) {
            return false;
        }
        Long a = parse(now);
        Long b = parse(written);
        if (a != null && b != null) {
            return a >= b;
        }
        return now.equals(written) || !now.equals(cachedBefore);
    }

    private static Long parse(String resourceVersion) {
        if (resourceVersion.isEmpty() || resourceVersion.length() > 18) {
            return null;
        }
        for (int i = 0; i < resourceVersion.length(); i++) {
            if (!Character.isDigit(resourceVersion.charAt(i))) {
                return null;
            }
        }
        return Long.parseLong(resourceVersion);
    }

    static String resourceVersionOf(HasMetadata object) {
        ObjectMeta meta = object.getMetadata();
        return meta == null ? null : meta.getResourceVersion();
    }

    /** Records a create, update, patch or apply of {@code cached}'s type that returned {@code written}. */
    <T extends HasMetadata> void wrote(CachedTypes.Cached<T> cached, HasMetadata written) {
        String rv = resourceVersionOf(written);
        if (rv == null || rv.isEmpty()) {
            return;
        }
        expect(cached, written, new Expectation(rv, null, false));
    }

    /**
     * Records a delete of {@code deleted} (the object the client sent) that the server answered with
     * {@code answer}: gone, or still present with a deletionTimestamp (finalizers, foreground deletion, a pod's
     * grace period), when either its new resourceVersion or its absence satisfies a read.
     */
    <T extends HasMetadata> void deleted(CachedTypes.Cached<T> cached, HasMetadata deleted, Optional<T> answer) {
        boolean stillThere = answer.isPresent()
                && answer.get().getMetadata() != null
                && answer.get().getMetadata().getDeletionTimestamp() != null;
        if (stillThere) {
            String rv = resourceVersionOf(answer.get());
            if (rv != null && !rv.isEmpty()) {
                expect(cached, deleted, new Expectation(rv, null, true));
                return;
            }
        }
        expect(cached, deleted, new Expectation(null, null, false));
    }

    private <T extends HasMetadata> void expect(CachedTypes.Cached<T> cached, HasMetadata object, Expectation e) {
        String key = Keys.META_NAMESPACE.keyOf(object);
        if (!cached.covers(Keys.split(key).namespace())) {
            return; // outside the cache's namespace: no event will ever satisfy it
        }
        TypeWrites<T> writes = writes(cached);
        Optional<T> now = cached.informer.indexer().getByKey(key);
        Expectation withBefore = new Expectation(
                e.resourceVersion(), now.map(OwnWrites::resourceVersionOf).orElse(null), e.mayBeGone());
        if (withBefore.satisfiedBy(now)) {
            writes.pending.remove(key);
            return;
        }
        writes.pending.put(key, withBefore);
    }

    @SuppressWarnings("unchecked")
    private <T extends HasMetadata> TypeWrites<T> writes(CachedTypes.Cached<T> cached) {
        return (TypeWrites<T>) byType.computeIfAbsent(cached.type, t -> new TypeWrites<>(cached));
    }

    /** Waits until the cache holds this client's last write of {@code key}, at most the timeout. */
    <T extends HasMetadata> void awaitObject(CachedTypes.Cached<T> cached, String key) {
        @SuppressWarnings("unchecked")
        TypeWrites<T> writes = (TypeWrites<T>) byType.get(cached.type);
        if (writes == null || writes.pending.isEmpty()) {
            return;
        }
        writes.await(key, clock.nanoTime() + timeout.toNanos());
    }

    /**
     * Waits until the cache holds this client's writes of the type in {@code namespace} ("": all), at most the
     * timeout for all of them together.
     */
    <T extends HasMetadata> void awaitList(CachedTypes.Cached<T> cached, String namespace) {
        @SuppressWarnings("unchecked")
        TypeWrites<T> writes = (TypeWrites<T>) byType.get(cached.type);
        if (writes == null || writes.pending.isEmpty()) {
            return;
        }
        long deadline = clock.nanoTime() + timeout.toNanos();
        for (String key : writes.pending.keySet()) {
            if (namespace.isEmpty() || Keys.split(key).namespace().equals(namespace)) {
                writes.await(key, deadline);
            }
        }
    }

    /** The expectations of one type, and the handler that wakes readers when its cache changes. */
    private final class TypeWrites<T extends HasMetadata> implements ResourceEventHandler<T> {
        private final CachedTypes.Cached<T> cached;
        /** By key; an entry leaves when the cache satisfies it or a reader times out on it. */
        final Map<String, Expectation> pending = new ConcurrentHashMap<>();

        private final ReentrantLock lock = new ReentrantLock();
        private final Condition changed = lock.newCondition();

        TypeWrites(CachedTypes.Cached<T> cached) {
            this.cached = cached;
            cached.informer.addEventHandler(this);
        }

        void await(String key, long deadline) {
            lock.lock();
            try {
                while (true) {
                    Expectation e = pending.get(key);
                    if (e == null) {
                        return;
                    }
                    Optional<T> now = cached.informer.indexer().getByKey(key);
                    if (e.satisfiedBy(now)) {
                        pending.remove(key, e);
                        return;
                    }
                    if (clock.nanoTime() - deadline >= 0) {
                        pending.remove(key, e);
                        log.warn(
                                "client: read-your-own-writes gave up after {}: the cache of {} has not caught up "
                                        + "with this client's {} of {} (resourceVersion {}); reading what the cache "
                                        + "has (resourceVersion {})",
                                timeout,
                                cached.resource.qualifiedName(),
                                e.resourceVersion() == null ? "delete" : "write",
                                key,
                                e.resourceVersion() == null ? "gone" : e.resourceVersion(),
                                now.map(OwnWrites::resourceVersionOf).orElse("none, not cached"));
                        return;
                    }
                    clock.awaitUntil(lock, changed, deadline);
                }
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            } finally {
                lock.unlock();
            }
        }

        private void changed(T object) {
            ObjectName name;
            try {
                name = Keys.split(Keys.META_NAMESPACE.keyOf(object));
            } catch (RuntimeException e) {
                return;
            }
            String key = name.toString();
            Expectation e = pending.get(key);
            if (e != null && e.satisfiedBy(cached.informer.indexer().getByKey(key))) {
                pending.remove(key, e);
            }
            lock.lock();
            try {
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }

        @Override
        public void onAdd(T object, boolean isInInitialList) {
            changed(object);
        }

        @Override
        public void onUpdate(T oldObject, T newObject) {
            changed(newObject);
        }

        @Override
        public void onDelete(T object, boolean finalStateUnknown) {
            // the object's last state at or past the delete's answer: it went away after this client's delete
            String key = Keys.META_NAMESPACE.keyOf(object);
            Expectation e = pending.get(key);
            if (e != null
                    && e.mayBeGone()
                    && atLeast(resourceVersionOf(object), e.resourceVersion(), e.cachedBefore())) {
                pending.remove(key, e);
            }
            changed(object);
        }
    }
}
