package io.kubeloop.controller.internal.client;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.codec.Decoding;
import io.kubeloop.client.resource.DeleteOptions;
import io.kubeloop.client.resource.MergePatches;
import io.kubeloop.client.resource.PatchOptions;
import io.kubeloop.client.resource.PatchType;
import io.kubeloop.client.resource.ResourceClient;
import io.kubeloop.clock.Clock;
import io.kubeloop.controller.ControllerClient;
import io.kubeloop.controller.ObjectReader;
import io.kubeloop.informer.SharedInformerFactory;
import io.kubeloop.informer.cache.Indexers;
import io.kubeloop.model.selector.FieldSelector;
import io.kubeloop.model.selector.LabelSelector;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The {@link ControllerClient} of a manager: reads through {@link CachedTypes} (the shared informers), copies unless
 * asked not to, waits for its own writes when {@link OwnWrites} is on, and writes through the
 * {@link KubernetesClient}'s resource clients.
 */
public final class CachingControllerClient implements ControllerClient {

    private static final JsonMapper JSON = Decoding.standard().mapper();

    private final KubernetesClient client;
    private final CachedTypes cache;
    /** Null when read-your-own-writes is off. */
    private final OwnWrites ownWrites;

    private final ObjectReader apiReader;

    /**
     * @param namespace the manager's namespace, null for all
     * @param readYourOwnWritesTimeout null: read-your-own-writes off
     */
    public CachingControllerClient(
            KubernetesClient client,
            SharedInformerFactory informers,
            String namespace,
            Clock clock,
            Duration cacheSyncTimeout,
            boolean failOnMissingInformer,
            Duration readYourOwnWritesTimeout) {
        this.client = Objects.requireNonNull(client, "client");
        this.cache = new CachedTypes(client, informers, namespace, clock, cacheSyncTimeout, failOnMissingInformer);
        this.ownWrites = readYourOwnWritesTimeout == null ? null : new OwnWrites(clock, readYourOwnWritesTimeout);
        this.apiReader = new ApiServerReader(client);
    }

    // ---- reads ------------------------------------------------------------------------------------------------

    @Override
    public <T extends HasMetadata> Optional<T> get(Class<T> type, String namespace, String name) {
        return getReadOnly(type, namespace, name).map(o -> Copies.copy(o, type));
    }

    @Override
    public <T extends HasMetadata> Optional<T> getReadOnly(Class<T> type, String namespace, String name) {
        Objects.requireNonNull(namespace, "namespace (\"\" for a cluster-scoped object)");
        Objects.requireNonNull(name, "name");
        CachedTypes.Cached<T> cached = cache.synced(type);
        requireCovered(cached, namespace);
        String key = cached.resource.namespaced()
                ? namespace.isEmpty() ? requireNamespace(cached) : namespace + "/" + name
                : name;
        if (ownWrites != null) {
            ownWrites.awaitObject(cached, key);
        }
        return cached.informer.indexer().getByKey(key);
    }

    /**
     * A manager limited to one namespace caches only that namespace: reading another from the cache would answer
     * "nothing there" when the truth is "not looked at" (controller-runtime refuses such a read too).
     */
    private static void requireCovered(CachedTypes.Cached<?> cached, String namespace) {
        if (!namespace.isEmpty() && !cached.covers(namespace)) {
            throw new IllegalArgumentException("the manager caches " + cached.resource.qualifiedName()
                    + " of namespace " + cached.namespace + " only, not of " + namespace
                    + ": read other namespaces with apiReader()");
        }
    }

    private static String requireNamespace(CachedTypes.Cached<?> cached) {
        throw new IllegalArgumentException(cached.resource.kind() + " is namespaced: get(" + cached.type.getSimpleName()
                + ".class, namespace, name) needs the namespace");
    }

    @Override
    public <T extends HasMetadata> List<T> list(
            Class<T> type, String namespace, LabelSelector labels, FieldSelector fields) {
        return Copies.copyAll(listReadOnly(type, namespace, labels, fields), type);
    }

    @Override
    public <T extends HasMetadata> List<T> listReadOnly(
            Class<T> type, String namespace, LabelSelector labels, FieldSelector fields) {
        Objects.requireNonNull(namespace, "namespace (\"\" for all namespaces)");
        Objects.requireNonNull(labels, "labels");
        Objects.requireNonNull(fields, "fields");
        CachedTypes.Cached<T> cached = cache.synced(type);
        FieldSelector converted = FieldSelectors.convert(cached.resource, fields);
        requireCovered(cached, namespace);
        String ns = cached.resource.namespaced() ? namespace : "";
        if (ownWrites != null) {
            ownWrites.awaitList(cached, ns);
        }
        // metadata.namespace=x narrows to one namespace through the namespace index, as the server's watch cache
        // narrows a list.
        String exactNamespace = converted.requiresExactMatch("metadata.namespace");
        if (ns.isEmpty() && exactNamespace != null) {
            ns = exactNamespace;
        }
        List<T> objects = cached.informer.lister().namespace(ns).list(labels);
        return FieldSelectors.select(cached.resource, converted, objects);
    }

    @Override
    public <T extends HasMetadata> List<T> listByIndex(
            Class<T> type, String namespace, String indexName, String value) {
        return Copies.copyAll(listByIndexReadOnly(type, namespace, indexName, value), type);
    }

    @Override
    public <T extends HasMetadata> List<T> listByIndexReadOnly(
            Class<T> type, String namespace, String indexName, String value) {
        Objects.requireNonNull(namespace, "namespace (\"\" for all namespaces)");
        Objects.requireNonNull(indexName, "indexName");
        Objects.requireNonNull(value, "value");
        CachedTypes.Cached<T> cached = cache.synced(type);
        if (!cached.informer.indexer().indexers().containsKey(indexName)) {
            throw new IllegalArgumentException("the cache of " + type.getSimpleName() + " has no index \"" + indexName
                    + "\" (it has " + cached.informer.indexer().indexers().keySet()
                    + "): add it with manager.informerFactory().informerFor(" + type.getSimpleName()
                    + ".class).addIndexers(...)");
        }
        requireCovered(cached, namespace);
        String ns = cached.resource.namespaced() ? namespace : "";
        if (ownWrites != null) {
            ownWrites.awaitList(cached, ns);
        }
        List<T> objects = cached.informer.indexer().byIndex(indexName, value);
        if (ns.isEmpty() || indexName.equals(Indexers.NAMESPACE_INDEX)) {
            return objects;
        }
        List<T> inNamespace = new ArrayList<>();
        for (T object : objects) {
            if (object.getMetadata() != null && ns.equals(object.getMetadata().getNamespace())) {
                inNamespace.add(object);
            }
        }
        return inNamespace;
    }

    @Override
    public ObjectReader apiReader() {
        return apiReader;
    }

    // ---- writes -----------------------------------------------------------------------------------------------

    @Override
    public <T extends HasMetadata> T create(T object) {
        return wrote(object, resources(object).create(object));
    }

    @Override
    public <T extends HasMetadata> T update(T object) {
        return wrote(object, resources(object).update(object));
    }

    @Override
    public <T extends HasMetadata> T updateStatus(T object) {
        return wrote(object, resources(object).updateStatus(object));
    }

    @Override
    public <T extends HasMetadata> T patch(T object, PatchType patchType, String body, PatchOptions options) {
        return wrote(object, resources(object).patch(nameOf(object), patchType, body, options));
    }

    @Override
    public <T extends HasMetadata> T patchStatus(T object, PatchType patchType, String body, PatchOptions options) {
        return wrote(object, resources(object).patchStatus(nameOf(object), patchType, body, options));
    }

    @Override
    public <T extends HasMetadata> T patch(T original, T modified) {
        ObjectNode patch = mergePatch(original, modified, false);
        if (patch == null) {
            return modified;
        }
        return wrote(
                modified,
                resources(modified)
                        .patch(nameOf(modified), PatchType.MERGE, JSON.writeValueAsString(patch), PatchOptions.none()));
    }

    @Override
    public <T extends HasMetadata> T patchStatus(T original, T modified) {
        ObjectNode patch = mergePatch(original, modified, true);
        if (patch == null) {
            return modified;
        }
        return wrote(
                modified,
                resources(modified)
                        .patchStatus(
                                nameOf(modified),
                                PatchType.MERGE,
                                JSON.writeValueAsString(patch),
                                PatchOptions.none()));
    }

    /**
     * The merge patch from {@code original} to {@code modified}, of the status only or of everything but it, with
     * {@code original}'s resourceVersion as a precondition; null when nothing changed.
     */
    private static ObjectNode mergePatch(HasMetadata original, HasMetadata modified, boolean status) {
        Objects.requireNonNull(original, "original");
        Objects.requireNonNull(modified, "modified");
        ObjectNode before = JSON.valueToTree(original);
        ObjectNode after = JSON.valueToTree(modified);
        ObjectNode patch;
        if (status) {
            JsonNode b = before.get("status");
            JsonNode a = after.get("status");
            ObjectNode statusOnly = JSON.createObjectNode();
            if (b instanceof ObjectNode bs && a instanceof ObjectNode as) {
                ObjectNode diff = MergePatches.diff(bs, as);
                if (!diff.isEmpty()) {
                    statusOnly.set("status", diff);
                }
            } else if (!Objects.equals(b, a)) {
                statusOnly.set("status", a == null ? JSON.nullNode() : a);
            }
            patch = statusOnly;
        } else {
            patch = MergePatches.diff(before, after);
            patch.remove("status"); // the status subresource's; the server would ignore it
        }
        if (patch.get("metadata") instanceof ObjectNode meta) {
            meta.remove("resourceVersion");
            if (meta.isEmpty()) {
                patch.remove("metadata");
            }
        }
        if (patch.isEmpty()) {
            return null;
        }
        String resourceVersion = OwnWrites.resourceVersionOf(original);
        if (resourceVersion != null && !resourceVersion.isEmpty()) {
            patch.withObjectProperty("metadata").put("resourceVersion", resourceVersion);
        }
        return patch;
    }

    @Override
    public <T extends HasMetadata> T apply(T object, String fieldManager, boolean force) {
        return wrote(object, resources(object).serverSideApply(object, fieldManager, force));
    }

    @Override
    public <T extends HasMetadata> T applyStatus(T object, String fieldManager, boolean force) {
        return wrote(object, resources(object).serverSideApplyStatus(object, fieldManager, force));
    }

    @Override
    public <T extends HasMetadata> Optional<T> delete(T object, DeleteOptions options) {
        Objects.requireNonNull(options, "options");
        Optional<T> answer = resources(object).delete(nameOf(object), options);
        if (ownWrites != null && !options.dryRun()) {
            CachedTypes.Cached<T> cached = cache.ifPresent(typeOf(object));
            if (cached != null) {
                ownWrites.deleted(cached, object, answer);
            }
        }
        return answer;
    }

    /** Records a write for read-your-own-writes (when on and the type is read through the cache). */
    private <T extends HasMetadata> T wrote(T sent, T stored) {
        if (ownWrites != null && stored != null) {
            CachedTypes.Cached<T> cached = cache.ifPresent(typeOf(sent));
            if (cached != null) {
                ownWrites.wrote(cached, stored);
            }
        }
        return stored;
    }

    // ---- createOrUpdate / createOrPatch ------------------------------------------------------------------------

    @Override
    public <T extends HasMetadata> OperationResult createOrUpdate(T object, Consumer<? super T> mutate) {
        Mutation<T> m = createOrMutate(object, mutate);
        if (m == null) {
            return OperationResult.CREATED;
        }
        T before = m.before();
        T current = m.current();
        if (JSON.valueToTree(before).equals(JSON.valueToTree(current))) {
            return OperationResult.UNCHANGED;
        }
        update(current);
        return OperationResult.UPDATED;
    }

    @Override
    public <T extends HasMetadata> OperationResult createOrPatch(T object, Consumer<? super T> mutate) {
        Mutation<T> m = createOrMutate(object, mutate);
        if (m == null) {
            return OperationResult.CREATED;
        }
        T before = m.before();
        T current = m.current();
        String name = nameOf(current);
        ObjectNode objectPatch = mergePatch(before, current, false);
        ObjectNode statusPatch = mergePatch(before, current, true);
        OperationResult result = OperationResult.UNCHANGED;
        String resourceVersion = OwnWrites.resourceVersionOf(before);
        if (objectPatch != null) {
            T patched = wrote(
                    current,
                    resources(current)
                            .patch(name, PatchType.MERGE, JSON.writeValueAsString(objectPatch), PatchOptions.none()));
            resourceVersion = OwnWrites.resourceVersionOf(patched);
            result = OperationResult.UPDATED;
        }
        if (statusPatch != null) {
            // The status patch is conditional on the object as this call left it: its own object patch is no
            // conflict, anyone else's write in between is.
            if (resourceVersion != null && !resourceVersion.isEmpty()) {
                statusPatch.withObjectProperty("metadata").put("resourceVersion", resourceVersion);
            }
            wrote(
                    current,
                    resources(current)
                            .patchStatus(
                                    name, PatchType.MERGE, JSON.writeValueAsString(statusPatch), PatchOptions.none()));
            result = result == OperationResult.UPDATED
                    ? OperationResult.UPDATED_STATUS
                    : OperationResult.UPDATED_STATUS_ONLY;
        }
        return result;
    }

    /** The cached object (a copy) before and after the mutate function. */
    private record Mutation<T>(T before, T current) {}

    /**
     * createOrUpdate's and createOrPatch's first half: creates {@code object}, mutated, when the cache has no such
     * object (returns null); otherwise returns the cached copy as it was and as the mutate function left it.
     */
    private <T extends HasMetadata> Mutation<T> createOrMutate(T object, Consumer<? super T> mutate) {
        Objects.requireNonNull(mutate, "mutate");
        Class<T> type = typeOf(object);
        String namespace = namespaceOf(object);
        String name = nameOf(object);
        Optional<T> existing = get(type, namespace, name);
        if (existing.isEmpty()) {
            mutateKeepingKey(object, mutate, namespace, name);
            create(object);
            return null;
        }
        T current = existing.get();
        T before = Copies.copy(current, type);
        mutateKeepingKey(current, mutate, namespace, name);
        return new Mutation<>(before, current);
    }

    private static <T extends HasMetadata> void mutateKeepingKey(
            T object, Consumer<? super T> mutate, String namespace, String name) {
        mutate.accept(object);
        if (!namespace.equals(namespaceOf(object)) || !name.equals(nameOf(object))) {
            throw new IllegalArgumentException("the mutate function changed the object's key from "
                    + key(namespace, name) + " to " + key(namespaceOf(object), nameOf(object))
                    + "; it must not change the name or namespace");
        }
    }

    private static String key(String namespace, String name) {
        return namespace.isEmpty() ? name : namespace + "/" + name;
    }

    // ---- objects to resource clients ---------------------------------------------------------------------------

    @SuppressWarnings("unchecked")
    private static <T extends HasMetadata> Class<T> typeOf(T object) {
        Objects.requireNonNull(object, "object");
        return (Class<T>) object.getClass();
    }

    /** The resource client of {@code object}'s type, in its namespace (all namespaces when it has none). */
    @SuppressWarnings("unchecked")
    private <T extends HasMetadata> ResourceClient<T> resources(T object) {
        ResourceClient<T> resources;
        if (object instanceof GenericKubernetesResource g) {
            if (g.getApiVersion() == null || g.getKind() == null) {
                throw new IllegalArgumentException(
                        "a GenericKubernetesResource needs apiVersion and kind to be written");
            }
            resources = (ResourceClient<T>) client.genericResources(g.getApiVersion(), g.getKind());
        } else {
            resources = client.resources(typeOf(object));
        }
        String namespace = namespaceOf(object);
        return namespace.isEmpty() || !resources.type().namespaced()
                ? resources.inAnyNamespace()
                : resources.inNamespace(namespace);
    }

    private static String namespaceOf(HasMetadata object) {
        ObjectMeta meta = object.getMetadata();
        String namespace = meta == null ? null : meta.getNamespace();
        return namespace == null ? "" : namespace;
    }

    private static String nameOf(HasMetadata object) {
        Objects.requireNonNull(object, "object");
        ObjectMeta meta = object.getMetadata();
        String name = meta == null ? null : meta.getName();
        if (name == null || name.isEmpty()) {
            String kind = object.getKind() != null
                    ? object.getKind()
                    : object.getClass().getSimpleName();
            throw new IllegalArgumentException("the " + kind + " has no metadata.name");
        }
        return name;
    }

    @Override
    public String toString() {
        return "ControllerClient{" + client + (ownWrites != null ? ", read-your-own-writes" : "") + "}";
    }
}
