package io.kubeloop.apiserver.internal.lifecycle;

import io.kubeloop.apiserver.internal.lifecycle.DeleteOptions.Propagation;
import io.kubeloop.apiserver.internal.storage.NotFoundException;
import io.kubeloop.apiserver.internal.storage.Preconditions;
import io.kubeloop.apiserver.internal.storage.StorageKey;
import io.kubeloop.apiserver.internal.storage.Store;
import io.kubeloop.model.GroupVersionKind;
import io.kubeloop.model.ResourceRegistry;
import io.kubeloop.model.ResourceType;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * kube-controller-manager's garbage collector, one object at a time: collects objects whose owners are all
 * gone, and carries out the {@code orphan} and {@code foregroundDeletion} finalizers of terminating owners.
 *
 * <p>An owner reference counts only if an object of its kind with its name and uid exists, in the dependent's
 * namespace (or cluster-scoped); a cluster-scoped dependent cannot have a namespaced owner. A reference to a
 * kind the server does not serve is treated as a live owner, so nothing is deleted on a guess. Every decision
 * re-reads the objects from the store; the {@link OwnerIndex} only says where to look.
 */
final class GarbageCollector {

    private final Store store;
    private final Supplier<ResourceRegistry> registry;
    private final Deletion deletion;
    private final OwnerIndex index;
    private final Consumer<StorageKey> enqueue;

    GarbageCollector(
            Store store,
            Supplier<ResourceRegistry> registry,
            Deletion deletion,
            OwnerIndex index,
            Consumer<StorageKey> enqueue) {
        this.store = store;
        this.registry = registry;
        this.deletion = deletion;
        this.index = index;
        this.enqueue = enqueue;
    }

    /** How one owner reference stands. */
    private enum OwnerState {
        SOLID,
        DANGLING,
        WAITING_FOR_DEPENDENTS
    }

    /**
     * kube's {@code attemptToDeleteItem} for an object that is not terminating: with no live owner it is
     * deleted (Foreground if an owner waits for its dependents and it has dependents of its own, else by its own
     * orphan/foregroundDeletion finalizer, else Background); with a live owner, references to gone or
     * foreground-deleting owners are dropped.
     */
    void attemptToDelete(ResourceType type, StorageKey key, ObjectNode object) {
        if (Meta.ownerReferences(object).isEmpty()) {
            return; // `ownerReferences: []` (a patch that removed the last one) names no owner: nothing to collect
        }
        List<String> solid = new ArrayList<>();
        List<String> dangling = new ArrayList<>();
        List<String> waiting = new ArrayList<>();
        for (JsonNode ref : Meta.ownerReferences(object)) {
            String uid = ref.path("uid").asString("");
            switch (ownerState(type, key, ref)) {
                case SOLID -> solid.add(uid);
                case DANGLING -> dangling.add(uid);
                case WAITING_FOR_DEPENDENTS -> waiting.add(uid);
            }
        }
        String uid = Meta.uid(object);
        if (!solid.isEmpty()) {
            if (dangling.isEmpty() && waiting.isEmpty()) {
                return;
            }
            List<String> drop = new ArrayList<>(dangling);
            drop.addAll(waiting);
            updateIfSame(key, uid, o -> Meta.removeOwnerReferences(o, drop));
            return;
        }
        Propagation policy;
        if (!waiting.isEmpty() && index.hasDependents(uid)) {
            policy = Propagation.Foreground;
        } else if (Meta.finalizers(object).contains(Meta.ORPHAN)) {
            policy = Propagation.Orphan;
        } else if (Meta.finalizers(object).contains(Meta.FOREGROUND)) {
            policy = Propagation.Foreground;
        } else {
            policy = Propagation.Background;
        }
        try {
            deletion.delete(type, key, DeleteOptions.of(null, policy, Preconditions.uid(uid)));
        } catch (NotFoundException | io.kubeloop.apiserver.internal.storage.ConflictException goneOrReplaced) {
            // deleted meanwhile, or a new object of the same name: nothing of ours to collect
        }
    }

    private OwnerState ownerState(ResourceType dependentType, StorageKey dependent, JsonNode ref) {
        Optional<ResourceType> ownerType =
                resolve(ref.path("apiVersion").asString(""), ref.path("kind").asString(""));
        if (ownerType.isEmpty()) {
            return OwnerState.SOLID;
        }
        ResourceType t = ownerType.get();
        if (t.namespaced() && !dependentType.namespaced()) {
            return OwnerState.DANGLING;
        }
        StorageKey ownerKey = new StorageKey(
                t.group(),
                t.plural(),
                t.namespaced() ? dependent.namespace() : "",
                ref.path("name").asString(""));
        JsonNode owner;
        try {
            owner = store.get(ownerKey);
        } catch (NotFoundException e) {
            return OwnerState.DANGLING;
        }
        if (!Meta.uid(owner).equals(ref.path("uid").asString(""))) {
            return OwnerState.DANGLING;
        }
        if (Meta.deleting(owner) && Meta.finalizers(owner).contains(Meta.FOREGROUND)) {
            return OwnerState.WAITING_FOR_DEPENDENTS;
        }
        return OwnerState.SOLID;
    }

    /** The served type of an owner reference: its exact group/version/kind, else the kind in another version. */
    Optional<ResourceType> resolve(String apiVersion, String kind) {
        int slash = apiVersion.indexOf('/');
        String group = slash < 0 ? "" : apiVersion.substring(0, slash);
        String version = slash < 0 ? apiVersion : apiVersion.substring(slash + 1);
        ResourceRegistry types = registry.get();
        Optional<ResourceType> exact = types.byKind(new GroupVersionKind(group, version, kind));
        if (exact.isPresent()) {
            return exact;
        }
        return types.types().stream()
                .filter(t -> t.group().equals(group) && t.kind().equals(kind))
                .findFirst();
    }

    /** The owner key an owner reference of an object in {@code namespace} points at, if its kind is served. */
    Optional<StorageKey> ownerKey(String namespace, JsonNode ref) {
        return resolve(ref.path("apiVersion").asString(""), ref.path("kind").asString(""))
                .map(t -> new StorageKey(
                        t.group(),
                        t.plural(),
                        t.namespaced() ? namespace : "",
                        ref.path("name").asString("")));
    }

    /**
     * The {@code orphan} finalizer: removes the owner's reference from every dependent, then the finalizer
     * (which removes the owner if it was the last one).
     */
    void orphanDependents(StorageKey ownerKey, ObjectNode owner) {
        String ownerUid = Meta.uid(owner);
        for (StorageKey dependent : index.dependents(ownerUid)) {
            try {
                deletion.update(dependent, Preconditions.NONE, d -> {
                    Meta.removeOwnerReferences(d, List.of(ownerUid));
                    return d;
                });
            } catch (NotFoundException gone) {
                // nothing left to orphan
            }
        }
        updateIfSame(ownerKey, ownerUid, o -> Meta.removeFinalizer(o, Meta.ORPHAN));
    }

    /**
     * The {@code foregroundDeletion} finalizer: asks for every dependent to be deleted, and removes the
     * finalizer once no dependent with {@code blockOwnerDeletion: true} is left.
     */
    void deleteDependentsInForeground(StorageKey ownerKey, ObjectNode owner) {
        String ownerUid = Meta.uid(owner);
        boolean blocked = false;
        for (StorageKey dependentKey : index.dependents(ownerUid)) {
            JsonNode dependent;
            try {
                dependent = store.get(dependentKey);
            } catch (NotFoundException gone) {
                continue;
            }
            for (JsonNode ref : Meta.ownerReferences(dependent)) {
                if (ref.path("uid").asString("").equals(ownerUid)) {
                    blocked |= ref.path("blockOwnerDeletion").asBoolean(false);
                    if (!Meta.deleting(dependent)) {
                        enqueue.accept(dependentKey);
                    }
                    break;
                }
            }
        }
        if (!blocked) {
            updateIfSame(ownerKey, ownerUid, o -> Meta.removeFinalizer(o, Meta.FOREGROUND));
        }
    }

    /** Changes the object if it is still the one with {@code uid}; gone or replaced means nothing to do. */
    private void updateIfSame(StorageKey key, String uid, java.util.function.Predicate<ObjectNode> change) {
        try {
            deletion.update(key, Preconditions.uid(uid), o -> {
                change.test(o);
                return o;
            });
        } catch (NotFoundException | io.kubeloop.apiserver.internal.storage.ConflictException goneOrReplaced) {
            // nothing of ours left to change
        }
    }
}
