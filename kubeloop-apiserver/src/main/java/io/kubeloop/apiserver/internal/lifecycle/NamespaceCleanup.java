package io.kubeloop.apiserver.internal.lifecycle;

import io.kubeloop.apiserver.internal.lifecycle.DeleteOptions.Propagation;
import io.kubeloop.apiserver.internal.storage.ConflictException;
import io.kubeloop.apiserver.internal.storage.NotFoundException;
import io.kubeloop.apiserver.internal.storage.Preconditions;
import io.kubeloop.apiserver.internal.storage.StorageKey;
import io.kubeloop.apiserver.internal.storage.Store;
import io.kubeloop.model.ResourceRegistry;
import io.kubeloop.model.ResourceType;
import java.util.List;
import java.util.function.Supplier;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * kube-controller-manager's namespace controller: for a terminating namespace, deletes everything in it
 * (Background propagation, each object's finalizers and grace period respected), and once nothing is left,
 * removes the {@code kubernetes} finalizer from {@code spec.finalizers}, which removes the namespace unless
 * it has {@code metadata.finalizers} of its own.
 *
 * <p>Idempotent: a pass over a namespace that still has terminating content deletes nothing twice and
 * leaves the namespace; the controller runs it again when something in the namespace is removed.
 */
final class NamespaceCleanup {

    private final Store store;
    private final Supplier<ResourceRegistry> registry;
    private final Deletion deletion;

    NamespaceCleanup(Store store, Supplier<ResourceRegistry> registry, Deletion deletion) {
        this.store = store;
        this.registry = registry;
        this.deletion = deletion;
    }

    /** One pass over {@code namespace}: true if the namespace is gone (or was not terminating: false). */
    boolean sync(String namespace) {
        StorageKey key = Meta.namespaceKey(namespace);
        JsonNode ns;
        try {
            ns = store.get(key);
        } catch (NotFoundException gone) {
            return true;
        }
        if (!Meta.deleting(ns)) {
            return false;
        }
        List<ResourceType> types =
                registry.get().types().stream().filter(ResourceType::namespaced).toList();
        for (ResourceType type : types) {
            for (ObjectNode item : store.list(type.group(), type.plural(), namespace, 0, null, 0, null)
                    .items()) {
                if (Meta.deleting(item)) {
                    continue; // already on its way: its finalizers or grace period decide when
                }
                try {
                    deletion.delete(
                            type,
                            Meta.key(type, item),
                            DeleteOptions.of(null, Propagation.Background, Preconditions.uid(Meta.uid(item))));
                } catch (NotFoundException | ConflictException goneOrReplaced) {
                    // deleted meanwhile, or recreated; a recreated object is found on the next pass
                }
            }
        }
        for (ResourceType type : types) {
            if (!store.list(type.group(), type.plural(), namespace, 0, null, 1, null)
                    .items()
                    .isEmpty()) {
                return false;
            }
        }
        String uid = Meta.uid(ns);
        try {
            deletion.update(key, Preconditions.uid(uid), n -> {
                JsonNode spec = n.get("spec");
                if (spec instanceof ObjectNode s && s.get("finalizers") instanceof ArrayNode finalizers) {
                    ArrayNode kept = n.arrayNode();
                    finalizers.forEach(f -> {
                        if (!f.asString().equals(Meta.KUBERNETES)) {
                            kept.add(f);
                        }
                    });
                    s.set("finalizers", kept);
                }
                return n;
            });
        } catch (NotFoundException | ConflictException goneOrReplaced) {
            return true;
        }
        try {
            store.get(key);
            return false;
        } catch (NotFoundException gone) {
            return true;
        }
    }
}
