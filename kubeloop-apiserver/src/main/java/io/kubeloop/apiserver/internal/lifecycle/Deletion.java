package io.kubeloop.apiserver.internal.lifecycle;

import io.kubeloop.apiserver.internal.lifecycle.DeleteOptions.Propagation;
import io.kubeloop.apiserver.internal.storage.ConflictException;
import io.kubeloop.apiserver.internal.storage.NotFoundException;
import io.kubeloop.apiserver.internal.storage.Preconditions;
import io.kubeloop.apiserver.internal.storage.StorageKey;
import io.kubeloop.apiserver.internal.storage.Store;
import io.kubeloop.clock.Clock;
import io.kubeloop.model.ResourceType;
import io.kubeloop.model.Timestamps;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * kube-apiserver's generic registry delete ({@code Store.Delete}, {@code BeforeDelete},
 * {@code markAsDeleting}) and its rule that a write removing the last finalizer removes the object.
 *
 * <p>Invariants kept here: an object with {@code metadata.finalizers} is never removed, only marked with a
 * {@code deletionTimestamp}; {@code deletionTimestamp} never moves later once set, and a pod's
 * {@code deletionGracePeriodSeconds} only shrinks; a removal is a store delete conditioned on the
 * resourceVersion the decision was made on, so a concurrent write makes it decide again.
 */
final class Deletion {

    /** Attempts before a delete or write that keeps losing races gives up with the last conflict. */
    private static final int MAX_ATTEMPTS = 64;
    /** kube's default {@code terminationGracePeriodSeconds}. */
    static final long DEFAULT_POD_GRACE_SECONDS = 30;

    private final Store store;
    private final Clock clock;

    Deletion(Store store, Clock clock) {
        this.store = store;
        this.clock = clock;
    }

    /**
     * Deletes one object (not a namespace, see {@link #markNamespaceTerminating}).
     *
     * @return the object's last state when it was removed, else the object as it now is (terminating), or, on a
     *     dry run, what it would be
     */
    ObjectNode delete(ResourceType type, StorageKey key, DeleteOptions options) {
        for (int attempt = 1; ; attempt++) {
            try {
                return store.guaranteedUpdate(key, options.preconditions(), current -> {
                    ObjectNode next = plan(type, current, options);
                    if (next == null) {
                        throw new RemoveNow(current, null);
                    }
                    if (options.dryRun()) {
                        throw new RemoveNow(next, null); // carries the preview out without writing
                    }
                    return next;
                });
            } catch (RemoveNow now) {
                if (options.dryRun()) {
                    return now.object;
                }
                try {
                    return store.delete(key, new Preconditions(Meta.uid(now.object), Meta.resourceVersion(now.object)));
                } catch (ConflictException changedMeanwhile) {
                    if (attempt >= MAX_ATTEMPTS) {
                        throw changedMeanwhile;
                    }
                }
            }
        }
    }

    /**
     * What a delete makes of {@code current} (a private copy, changed in place): the object to store, or null
     * to remove it now. An object already terminating comes back unchanged, except that a pod's grace period
     * may be shortened.
     */
    private ObjectNode plan(ResourceType type, ObjectNode current, DeleteOptions options) {
        ObjectNode meta = Meta.metadataForWrite(current);
        Long requested = options.gracePeriodSeconds();
        if (requested != null && requested < 0) {
            requested = 1L; // kube treats a negative grace period as 1 s
        }
        boolean graceful = false;
        long lastGrace = 0;
        if (Meta.isPod(type)) {
            Long existing = Meta.gracePeriod(current);
            if (Meta.deleting(current)) {
                if (existing != null && existing > 0) {
                    if (requested == null || requested >= existing) {
                        return current; // graceful deletion is pending: nothing changes
                    }
                    Instant started = Meta.deletionTimestamp(current);
                    Instant base = started == null ? clock.now() : started.minusSeconds(existing);
                    meta.put("deletionTimestamp", Timestamps.format(base.plusSeconds(requested)));
                    meta.put("deletionGracePeriodSeconds", requested);
                    graceful = true;
                    lastGrace = requested;
                }
            } else {
                long period = podGracePeriod(current, requested);
                meta.put("deletionTimestamp", Timestamps.format(clock.now().plusSeconds(period)));
                meta.put("deletionGracePeriodSeconds", period);
                bumpGeneration(meta);
                graceful = true;
                lastGrace = period;
            }
        }
        List<String> finalizers = propagationFinalizers(current, options.propagation());
        Meta.setFinalizers(current, finalizers);
        boolean pendingFinalizers = !finalizers.isEmpty();
        if (!graceful) {
            if (pendingFinalizers) {
                markAsDeleting(current);
                return current;
            }
            return null;
        }
        return pendingFinalizers || lastGrace > 0 ? current : null;
    }

    /**
     * A pod's grace period as kube's pod strategy computes it: the one asked for, else
     * {@code spec.terminationGracePeriodSeconds}, else 30; 0 for a pod on no node or one that has finished.
     */
    private static long podGracePeriod(JsonNode pod, Long requested) {
        long period;
        if (requested != null) {
            period = requested;
        } else {
            JsonNode spec = pod.path("spec").path("terminationGracePeriodSeconds");
            period = spec.isNumber() ? spec.asLong() : DEFAULT_POD_GRACE_SECONDS;
        }
        String phase = pod.path("status").path("phase").asString("");
        if (pod.path("spec").path("nodeName").asString("").isEmpty()
                || phase.equals("Succeeded")
                || phase.equals("Failed")) {
            period = 0;
        }
        return period < 0 ? 1 : period;
    }

    /**
     * The finalizers after a delete with {@code propagation}: kube's {@code deletionFinalizersForGarbageCollection}.
     * An explicit policy replaces the object's orphan/foregroundDeletion finalizer; without one, the object's
     * own finalizer stands, and Background adds nothing.
     */
    private static List<String> propagationFinalizers(JsonNode object, Propagation propagation) {
        List<String> existing = Meta.finalizers(object);
        boolean orphan;
        boolean foreground;
        if (propagation != null) {
            orphan = propagation == Propagation.Orphan;
            foreground = propagation == Propagation.Foreground;
        } else {
            orphan = existing.contains(Meta.ORPHAN) && !firstOf(existing).equals(Meta.FOREGROUND);
            foreground = existing.contains(Meta.FOREGROUND) && !orphan;
        }
        List<String> result = new ArrayList<>();
        for (String f : existing) {
            if (!f.equals(Meta.ORPHAN) && !f.equals(Meta.FOREGROUND)) {
                result.add(f);
            }
        }
        if (orphan) {
            result.add(Meta.ORPHAN);
        }
        if (foreground) {
            result.add(Meta.FOREGROUND);
        }
        if (new java.util.HashSet<>(result).equals(new java.util.HashSet<>(existing))) {
            return existing; // unchanged: keep the order the client wrote
        }
        return result;
    }

    /** The first of the orphan/foregroundDeletion finalizers in the list (kube's precedence), or "". */
    private static String firstOf(List<String> finalizers) {
        for (String f : finalizers) {
            if (f.equals(Meta.ORPHAN) || f.equals(Meta.FOREGROUND)) {
                return f;
            }
        }
        return "";
    }

    /** kube's {@code markAsDeleting}: deletionTimestamp now (never later than a set one), grace 0. */
    private void markAsDeleting(ObjectNode object) {
        ObjectNode meta = Meta.metadataForWrite(object);
        Instant now = clock.now();
        if (!Meta.deleting(object)) {
            bumpGeneration(meta);
            meta.put("deletionTimestamp", Timestamps.format(now));
        } else {
            Instant set = Meta.deletionTimestamp(object);
            if (set != null && set.isAfter(now)) {
                meta.put("deletionTimestamp", Timestamps.format(now));
            }
        }
        meta.put("deletionGracePeriodSeconds", 0L);
    }

    private static void bumpGeneration(ObjectNode meta) {
        long generation = meta.path("generation").asLong(0);
        if (generation > 0) {
            meta.put("generation", generation + 1);
        }
    }

    /**
     * Marks a namespace as terminating: {@code deletionTimestamp} (kept if set) and {@code status.phase:
     * Terminating}. Its contents and its removal are {@link NamespaceCleanup}'s business.
     */
    ObjectNode markNamespaceTerminating(StorageKey key, DeleteOptions options) {
        try {
            return store.guaranteedUpdate(key, options.preconditions(), current -> {
                ObjectNode meta = Meta.metadataForWrite(current);
                if (!Meta.deleting(current)) {
                    meta.put("deletionTimestamp", Timestamps.format(clock.now()));
                }
                JsonNode status = current.get("status");
                (status instanceof ObjectNode s ? s : current.putObject("status")).put("phase", "Terminating");
                if (options.dryRun()) {
                    throw new RemoveNow(current, null);
                }
                return current;
            });
        } catch (RemoveNow preview) {
            return preview.object;
        }
    }

    /**
     * A read-modify-write that removes the object instead when the write leaves a terminating object with no
     * finalizers (kube's {@code shouldDeleteDuringUpdate}): a terminating object whose grace period is over
     * (0, or none) and that has no {@code metadata.finalizers} (nor, for a namespace, {@code spec.finalizers}).
     * Exceptions thrown by {@code change} pass through untouched.
     *
     * @return the stored object, or, when it was removed, what the write would have stored (as kube answers)
     */
    ObjectNode update(StorageKey key, Preconditions preconditions, UnaryOperator<ObjectNode> change) {
        for (int attempt = 1; ; attempt++) {
            try {
                return store.guaranteedUpdate(key, preconditions, current -> {
                    Long grace = Meta.gracePeriod(current);
                    String uid = Meta.uid(current);
                    String resourceVersion = Meta.resourceVersion(current);
                    ObjectNode next = change.apply(current);
                    if (removable(key, grace, next)) {
                        throw new RemoveNow(next, new Preconditions(uid, resourceVersion));
                    }
                    return next;
                });
            } catch (RemoveNow remove) {
                try {
                    store.delete(key, remove.condition);
                    return remove.object;
                } catch (ConflictException changedMeanwhile) {
                    if (attempt >= MAX_ATTEMPTS) {
                        throw changedMeanwhile;
                    }
                } catch (NotFoundException removedMeanwhile) {
                    return remove.object; // another write removed it first: the same outcome
                }
            }
        }
    }

    private static boolean removable(StorageKey key, Long currentGrace, ObjectNode next) {
        if (!Meta.deleting(next) || !Meta.finalizers(next).isEmpty() || (currentGrace != null && currentGrace != 0)) {
            return false;
        }
        return !Meta.isNamespace(key)
                || Meta.strings(next.path("spec").path("finalizers")).isEmpty();
    }

    /** Carries a decision out of a guaranteed update, without writing: remove (or preview) this object. */
    private static final class RemoveNow extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final transient ObjectNode object;
        final transient Preconditions condition;

        RemoveNow(ObjectNode object, Preconditions condition) {
            super(null, null, false, false);
            this.object = object;
            this.condition = condition;
        }
    }
}
