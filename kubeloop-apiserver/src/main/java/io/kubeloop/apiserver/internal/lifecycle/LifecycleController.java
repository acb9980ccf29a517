package io.kubeloop.apiserver.internal.lifecycle;

import io.kubeloop.apiserver.internal.storage.NotFoundException;
import io.kubeloop.apiserver.internal.storage.Preconditions;
import io.kubeloop.apiserver.internal.storage.StorageKey;
import io.kubeloop.apiserver.internal.storage.Store;
import io.kubeloop.apiserver.internal.storage.StoreEvent;
import io.kubeloop.apiserver.internal.storage.StoreWatch;
import io.kubeloop.clock.Clock;
import io.kubeloop.model.ResourceRegistry;
import io.kubeloop.model.ResourceType;
import io.kubeloop.workqueue.RateLimitingQueue;
import io.kubeloop.workqueue.WorkQueue;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The server's background controllers in one loop: the garbage collector, the namespace controller and the
 * kubelet's last step for pods that no kubelet owns (removing a pod once its grace period is over, when its
 * {@code spec.nodeName} names no Node object: with a Node, that node's kubelet, such as the embedded cluster's
 * simulated one, ends the deletion; once the Node is deleted its terminating pods are the server's again).
 *
 * <p>One virtual thread per served resource follows the store with a list-and-watch and files each change
 * into the {@link OwnerIndex} and, when there is something to do, the work queue; one worker takes keys off
 * the queue and syncs them. A key is synced from the store's current object, never from an event, so a
 * sync is idempotent and a missed or repeated event costs only a wasted look. A sync that fails is logged
 * and retried with backoff; a watch that ends is re-listed. Nothing here stops before {@link #close()}.
 */
final class LifecycleController implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LifecycleController.class);
    /** Events a resource's watch may buffer before it is cut and re-listed. */
    private static final int WATCH_BUFFER = 100_000;
    /** The store watch's "no timeout". */
    private static final Duration FOREVER = Duration.ofDays(365L * 200);
    /**
     * About 5 s of {@link #PUBLISH_PARK_NANOS} parks: far beyond any publish delay, short of a hang. The writer
     * publishes right after it hands an event to watchers; this only bounds a broken store.
     */
    private static final int MAX_PUBLISH_ROUNDS = 100_000;

    private static final long PUBLISH_PARK_NANOS = 50_000;
    /** The newest revision observed; every key in the queue was queued by an event at or below it. */
    private final java.util.concurrent.atomic.AtomicLong observed = new java.util.concurrent.atomic.AtomicLong();

    private final Store store;
    private final Clock clock;
    private final Supplier<ResourceRegistry> registry;
    private final Deletion deletion;
    private final OwnerIndex index = new OwnerIndex();
    private final GarbageCollector collector;
    private final NamespaceCleanup namespaces;
    private final RateLimitingQueue<StorageKey> queue;
    /** group/resource → the thread following it; a resource is followed once. */
    private final ConcurrentHashMap<String, Thread> followed = new ConcurrentHashMap<>();

    private final Set<StoreWatch> watches = ConcurrentHashMap.newKeySet();
    private final Thread worker;
    private volatile boolean closed;

    LifecycleController(
            Store store,
            Clock clock,
            Supplier<ResourceRegistry> registry,
            Deletion deletion,
            NamespaceCleanup namespaces) {
        this.store = store;
        this.clock = clock;
        this.registry = registry;
        this.deletion = deletion;
        this.namespaces = namespaces;
        this.queue = WorkQueue.<StorageKey>builder()
                .name("apiserver-lifecycle")
                .clock(clock)
                .buildRateLimiting();
        this.collector = new GarbageCollector(store, registry, deletion, index, queue::add);
        for (ResourceType type : registry.get().types()) {
            follow(type);
        }
        this.worker = Thread.ofVirtual().name("apiserver-lifecycle-worker").start(this::work);
    }

    /** Starts following {@code type} unless it already is (for resources registered after the start). */
    void follow(ResourceType type) {
        if (closed) {
            return;
        }
        followed.computeIfAbsent(type.group() + "/" + type.plural(), k -> Thread.ofVirtual()
                .name("apiserver-lifecycle-watch-" + type.plural())
                .start(() -> followLoop(type)));
    }

    private void followLoop(ResourceType type) {
        while (!closed) {
            StoreWatch watch;
            try {
                watch = store.listAndWatch(type.group(), type.plural(), null, null, WATCH_BUFFER);
            } catch (IllegalStateException storeClosed) {
                return;
            }
            watches.add(watch);
            try {
                Set<StorageKey> listed = new HashSet<>();
                boolean initial = true;
                while (!closed) {
                    StoreEvent event = watch.next(FOREVER);
                    if (event == null) {
                        break; // the watch ended (overflowed, or the store closed): list again
                    }
                    if (event.type() == StoreEvent.Type.BOOKMARK) {
                        if (initial) {
                            pruneAfterRelist(type, listed);
                            initial = false;
                        }
                        continue;
                    }
                    if (event.type() == StoreEvent.Type.ERROR) {
                        break;
                    }
                    StorageKey key = Meta.key(type, event.object());
                    if (initial) {
                        listed.add(key);
                    }
                    observe(type, key, event);
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                log.warn("lifecycle controller: following {} failed; listing again", type.qualifiedName(), e);
            } finally {
                watches.remove(watch);
                watch.close();
            }
        }
    }

    /** After a relist, the index entries of objects the list no longer has are deletions it missed. */
    private void pruneAfterRelist(ResourceType type, Set<StorageKey> listed) {
        for (StorageKey key : index.keysOf(type.group(), type.plural())) {
            if (!listed.contains(key)) {
                index.set(key, List.of());
            }
        }
    }

    private void observe(ResourceType type, StorageKey key, StoreEvent event) {
        observed.accumulateAndGet(event.revision(), Math::max); // before anything it queues
        ObjectNode object = event.object();
        if (event.type() == StoreEvent.Type.DELETED) {
            if (Meta.isNode(type)) {
                terminatingPodsOf(key.name()).forEach(queue::add); // no kubelet will end them now
            }
            index.set(key, List.of());
            index.dependents(Meta.uid(object)).forEach(queue::add); // their owner is gone
            for (JsonNode ref : Meta.ownerReferences(object)) {
                collector.ownerKey(key.namespace(), ref).ifPresent(queue::add); // a foreground owner may be done
            }
            if (type.namespaced()) {
                queue.add(Meta.namespaceKey(key.namespace())); // a terminating namespace may now be empty
            }
            return;
        }
        index.set(key, Meta.ownerUids(object));
        if (Meta.deleting(object) || !Meta.ownerReferences(object).isEmpty()) {
            queue.add(key);
        }
    }

    /**
     * Waits until the store's reads show {@code revision}. A store hands a write to its watchers just before it
     * publishes it to readers, and every sync reads the store: without this wait a sync started by an event
     * could read the object as it was before that event, and nothing would start another one. Only syncs wait
     * (observing an event never does), and the wait is a short spin, then short parks: the writer publishes
     * right after it dispatches, so a waiting sync must not compete with it for the CPU.
     */
    private void awaitPublished(long revision) {
        for (int round = 0; store.currentRevision() < revision; round++) {
            if (round >= MAX_PUBLISH_ROUNDS) {
                log.warn("lifecycle controller: revision {} not published after {} rounds; going on", revision, round);
                return;
            }
            if (round < 64) {
                Thread.onSpinWait();
            } else {
                // Real time on purpose: a 50 µs yield to the writer thread, not a timer. On a fake clock that
                // no one steps, a clock wait here would never end.
                java.util.concurrent.locks.LockSupport.parkNanos(PUBLISH_PARK_NANOS);
            }
        }
    }

    private void work() {
        while (true) {
            StorageKey key;
            try {
                key = queue.get();
            } catch (InterruptedException e) {
                return;
            }
            if (key == null) {
                return;
            }
            try {
                awaitPublished(observed.get());
                sync(key);
                queue.forget(key);
            } catch (IllegalStateException storeClosed) {
                if (closed) {
                    return;
                }
                log.warn("lifecycle controller: syncing {} failed; retrying", key, storeClosed);
                queue.addRateLimited(key);
            } catch (RuntimeException e) {
                log.warn("lifecycle controller: syncing {} failed; retrying", key, e);
                queue.addRateLimited(key);
            } finally {
                queue.done(key);
            }
        }
    }

    /** Brings one object's lifecycle a step further, from its current state in the store. */
    void sync(StorageKey key) {
        Optional<ResourceType> found = registry.get().byResource(key.group(), key.resource());
        if (found.isEmpty()) {
            return;
        }
        ResourceType type = found.get();
        ObjectNode object;
        try {
            object = store.get(key);
        } catch (NotFoundException gone) {
            return;
        }
        if (!Meta.deleting(object)) {
            if (!Meta.ownerReferences(object).isEmpty()) { // an empty list is no owner at all, as in kube
                collector.attemptToDelete(type, key, object);
            }
            return;
        }
        if (Meta.isNamespace(type)) {
            namespaces.sync(key.name());
        }
        if (Meta.isPod(type)) {
            endGracePeriod(type, key, object);
        }
        List<String> finalizers = Meta.finalizers(object);
        if (finalizers.contains(Meta.ORPHAN)) {
            collector.orphanDependents(key, object);
        } else if (finalizers.contains(Meta.FOREGROUND)) {
            collector.deleteDependentsInForeground(key, object);
        }
    }

    /**
     * The kubelet's part for a pod no kubelet owns: once a terminating pod's grace period is over, delete it with
     * grace 0 (which removes it unless finalizers hold it); until then, come back at its deletionTimestamp. A pod
     * whose node exists is left to that node's kubelet (PodGC's orphan rule, the other way round): a deleted Node
     * queues its terminating pods again ({@link #observe}).
     */
    private void endGracePeriod(ResourceType type, StorageKey key, ObjectNode pod) {
        Long grace = Meta.gracePeriod(pod);
        Instant deadline = Meta.deletionTimestamp(pod);
        if (grace == null || grace == 0 || deadline == null) {
            return;
        }
        if (nodeExists(Meta.nodeName(pod))) {
            return;
        }
        Duration remaining = Duration.between(clock.now(), deadline);
        if (remaining.isPositive()) {
            queue.addAfter(key, remaining);
            // The delay was read from the wall clock and is counted from a later monotonic reading: if the
            // clock moved in between, the deadline may already have passed.
            if (Duration.between(clock.now(), deadline).isPositive()) {
                return;
            }
        }
        try {
            deletion.delete(type, key, DeleteOptions.of(0L, null, Preconditions.uid(Meta.uid(pod))));
        } catch (NotFoundException | io.kubeloop.apiserver.internal.storage.ConflictException goneOrReplaced) {
            // removed meanwhile, or a new pod of the same name
        }
    }

    private boolean nodeExists(String name) {
        if (name.isEmpty()) {
            return false;
        }
        try {
            store.get(StorageKey.clusterScoped("", "nodes", name));
            return true;
        } catch (NotFoundException absent) {
            return false;
        }
    }

    /** The keys of the terminating pods bound to node {@code name}. */
    private List<StorageKey> terminatingPodsOf(String name) {
        List<StorageKey> keys = new java.util.ArrayList<>();
        for (ObjectNode pod : store.list("", "pods", null, 0, null, 0, null).items()) {
            if (Meta.deleting(pod) && Meta.nodeName(pod).equals(name)) {
                keys.add(new StorageKey(
                        "",
                        "pods",
                        Meta.metadata(pod).path("namespace").asString(""),
                        Meta.metadata(pod).path("name").asString("")));
            }
        }
        return keys;
    }

    @Override
    public void close() {
        closed = true;
        queue.shutDown();
        watches.forEach(StoreWatch::close);
        followed.values().forEach(Thread::interrupt);
        worker.interrupt();
    }
}
