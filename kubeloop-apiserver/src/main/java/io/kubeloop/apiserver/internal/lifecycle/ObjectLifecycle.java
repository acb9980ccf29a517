package io.kubeloop.apiserver.internal.lifecycle;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.api.model.StatusDetails;
import io.kubeloop.apiserver.internal.storage.NotFoundException;
import io.kubeloop.apiserver.internal.storage.Preconditions;
import io.kubeloop.apiserver.internal.storage.StorageKey;
import io.kubeloop.apiserver.internal.storage.Store;
import io.kubeloop.clock.Clock;
import io.kubeloop.model.ResourceRegistry;
import io.kubeloop.model.ResourceType;
import io.kubeloop.model.StatusReason;
import io.kubeloop.model.Statuses;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The lifecycle of stored objects, as kube-apiserver and kube-controller-manager run it: what a DELETE does
 * (finalizers, {@code deletionTimestamp}, pod grace periods, propagation policies), what a write may not do
 * to a terminating object, creation refused in a terminating namespace, and the background controller
 * (garbage collector, namespace controller, the kubelet's removal of a pod after its grace period).
 *
 * <p>The REST layer calls {@link #delete}, {@link #update}, {@link #checkWrite} and {@link #admitCreate};
 * {@link #close()} stops the controller. Internal to kubeloop; use
 * {@link io.kubeloop.apiserver.EmbeddedApiServer}.
 */
public final class ObjectLifecycle implements AutoCloseable {

    /** Namespaces kube-apiserver refuses to delete. */
    private static final Set<String> IMMORTAL_NAMESPACES = Set.of("default", "kube-system", "kube-public");

    private final Store store;
    private final Deletion deletion;
    private final NamespaceCleanup namespaces;
    private final LifecycleController controller;

    private ObjectLifecycle(Store store, Clock clock, Supplier<ResourceRegistry> registry) {
        this.store = store;
        this.deletion = new Deletion(store, clock);
        this.namespaces = new NamespaceCleanup(store, registry, deletion);
        this.controller = new LifecycleController(store, clock, registry, deletion, namespaces);
    }

    /** Starts the background controller on {@code store}; {@link #close()} stops it. */
    public static ObjectLifecycle start(Store store, Clock clock, Supplier<ResourceRegistry> registry) {
        return new ObjectLifecycle(
                Objects.requireNonNull(store, "store"),
                Objects.requireNonNull(clock, "clock"),
                Objects.requireNonNull(registry, "registry"));
    }

    /**
     * DELETE of one object. Without finalizers or a grace period the object is removed and its last state
     * returned; otherwise it gets a {@code deletionTimestamp} and is returned as it now is. A namespace turns
     * Terminating and its contents are deleted at once, so an empty namespace is gone on return.
     *
     * @throws io.kubeloop.apiserver.internal.storage.NotFoundException if there is no such object
     * @throws io.kubeloop.apiserver.internal.storage.ConflictException if a precondition fails
     * @throws LifecycleException 403 for a namespace that may not be deleted
     */
    public ObjectNode delete(ResourceType type, StorageKey key, DeleteOptions options) {
        if (!Meta.isNamespace(type)) {
            return deletion.delete(type, key, options);
        }
        if (IMMORTAL_NAMESPACES.contains(key.name())) {
            store.get(key); // 404 first, as kube answers for a missing one
            throw new LifecycleException(forbidden(type, key.name(), "this namespace may not be deleted", null));
        }
        ObjectNode terminating = deletion.markNamespaceTerminating(key, options);
        if (!options.dryRun()) {
            namespaces.sync(key.name());
        }
        return terminating;
    }

    /**
     * A read-modify-write that removes the object instead of storing it when the result is a terminating
     * object with no finalizers left (and its grace period over). Exceptions from {@code change} pass through.
     *
     * @return the stored object, or, when the write removed it, what the write would have stored
     */
    public ObjectNode update(StorageKey key, UnaryOperator<ObjectNode> change) {
        return deletion.update(key, Preconditions.NONE, change);
    }

    /**
     * The rules a client's write must keep, checked on the object about to be stored ({@code next}, changed in
     * place): {@code deletionTimestamp} and {@code deletionGracePeriodSeconds} stay as stored; a terminating
     * object gains no finalizer; a namespace's {@code spec.finalizers} stay as stored.
     *
     * @throws LifecycleException 422 Invalid when a terminating object would gain a finalizer
     */
    public void checkWrite(ResourceType type, ObjectNode current, ObjectNode next) {
        ObjectNode meta = Meta.metadataForWrite(next);
        JsonNode currentMeta = Meta.metadata(current);
        for (String owned : List.of("deletionTimestamp", "deletionGracePeriodSeconds")) {
            if (currentMeta.has(owned)) {
                meta.set(owned, currentMeta.get(owned));
            } else {
                meta.remove(owned);
            }
        }
        if (Meta.deleting(current)) {
            List<String> added = new ArrayList<>(Meta.finalizers(next));
            added.removeAll(Meta.finalizers(current));
            if (!added.isEmpty()) {
                throw new LifecycleException(Statuses.invalid(
                        type.group(),
                        type.kind(),
                        currentMeta.path("name").asString(""),
                        List.of(new Statuses.FieldError(
                                "Forbidden",
                                "metadata.finalizers",
                                "no new finalizers can be added if the object is being "
                                        + "deleted, found new finalizers " + goStrings(added)))));
            }
        }
        if (Meta.isNamespace(type)) {
            JsonNode finalizers = current.path("spec").get("finalizers");
            JsonNode spec = next.get("spec");
            ObjectNode nextSpec = spec instanceof ObjectNode s ? s : next.putObject("spec");
            if (finalizers == null) {
                nextSpec.remove("finalizers");
            } else {
                nextSpec.set("finalizers", finalizers);
            }
        }
    }

    /**
     * Before a create: the NamespaceLifecycle admission check (403 Forbidden in a terminating namespace), and
     * for a namespace what kube's namespace strategy sets ({@code kubernetes} added to
     * {@code spec.finalizers}, {@code status} reset to {@code phase: Active}). Also makes sure the controller follows {@code type} (for resources
     * registered after the start).
     *
     * @param object the object about to be stored, with its final name; changed in place
     */
    public void admitCreate(ResourceType type, String namespace, ObjectNode object) {
        controller.follow(type);
        if (Meta.isNamespace(type)) {
            JsonNode spec = object.get("spec");
            ObjectNode nsSpec = spec instanceof ObjectNode s ? s : object.putObject("spec");
            List<String> finalizers = Meta.strings(nsSpec.path("finalizers"));
            if (!finalizers.contains(Meta.KUBERNETES)) {
                finalizers.add(Meta.KUBERNETES);
            }
            tools.jackson.databind.node.ArrayNode array = nsSpec.putArray("finalizers");
            finalizers.forEach(array::add);
            object.putObject("status").put("phase", "Active");
            return;
        }
        if (!type.namespaced()) {
            return;
        }
        String name = Meta.metadata(object).path("name").asString("");
        JsonNode ns;
        try {
            ns = store.get(Meta.namespaceKey(namespace));
        } catch (NotFoundException missing) {
            return; // the caller answers 404 for a missing namespace
        }
        if (Meta.deleting(ns)) {
            StatusCause cause = new StatusCause();
            cause.setReason("NamespaceTerminating");
            cause.setMessage("namespace " + namespace + " is being terminated");
            cause.setField("metadata.namespace");
            throw new LifecycleException(forbidden(
                    type,
                    name,
                    "unable to create new content in namespace " + namespace + " because it is being terminated",
                    cause));
        }
    }

    private static Status forbidden(ResourceType type, String name, String why, StatusCause cause) {
        Status status = Statuses.failure(
                StatusReason.Forbidden,
                Statuses.qualified(type.group(), type.plural()) + " \"" + name + "\" is forbidden: " + why);
        StatusDetails details = new StatusDetails();
        details.setName(name);
        details.setGroup(type.group());
        details.setKind(type.plural());
        if (cause != null) {
            details.setCauses(List.of(cause));
        }
        status.setDetails(details);
        return status;
    }

    /** Go's {@code %#v} of a []string, as kube's message prints it: {@code []string{"a", "b"}}. */
    private static String goStrings(List<String> values) {
        StringBuilder sb = new StringBuilder("[]string{");
        for (int i = 0; i < values.size(); i++) {
            sb.append(i == 0 ? "" : ", ").append('"').append(values.get(i)).append('"');
        }
        return sb.append('}').toString();
    }

    /** Stops the background controller (idempotent); the store is the caller's to close. */
    @Override
    public void close() {
        controller.close();
    }
}
