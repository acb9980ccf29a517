package io.kubeloop.controller;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kubeloop.client.resource.DeleteOptions;
import io.kubeloop.client.resource.PatchOptions;
import io.kubeloop.client.resource.PatchType;
import io.kubeloop.model.selector.FieldSelector;
import io.kubeloop.model.selector.LabelSelector;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The client a reconciler works with ({@link Manager#client()}): reads from the manager's shared informer cache,
 * writes to the API server (controller-runtime's default manager client).
 *
 * <p><b>Reads</b> come from the cache: no request, no rate limit, but the state as the cache last saw it.
 * <ul>
 *   <li>{@link #get}, {@link #list} and {@link #listByIndex} return <b>deep copies</b> the caller may change (as
 *       controller-runtime does): the cache's objects are shared with every controller and must never change.</li>
 *   <li>{@link #getReadOnly}, {@link #listReadOnly} and {@link #listByIndexReadOnly} return the <b>cached objects
 *       themselves</b>, without copying: faster and allocation-free, for reads that only look. Never mutate
 *       them: every other reader would see the change, the cache would no longer match the server, and with
 *       compact decoding shared parts throw {@link UnsupportedOperationException}. The cache mutation detector
 *       ({@code -Dkubeloop.cacheMutationDetector=true}, see kubeloop-informer) catches such a change in tests.</li>
 *   <li>Reading a type no controller watches starts its informer once (logged at INFO: the type is then cached
 *       for the manager's whole scope, every namespace unless the manager has one) and waits for it to sync, at
 *       most the manager's cache sync timeout; with {@code Manager.Builder.failOnMissingInformer(true)} such a read
 *       fails at once instead.</li>
 *   <li>With {@code Manager.Builder.readYourOwnWrites(true)}, a read of an object this client wrote waits (bounded)
 *       until the cache holds that write; otherwise a read right after a write may return the state before it.</li>
 *   <li>{@link #apiReader()} reads the API server instead, for the rare read that must be current.</li>
 * </ul>
 *
 * <p><b>Writes</b> go to the API server and return the object as stored; the type, namespace and name come from the
 * object. A stale {@code metadata.resourceVersion} is a {@link io.kubeloop.client.errors.ConflictException} (409),
 * which a controller requeues. Every other failure is the API's typed exception
 * ({@code io.kubeloop.client.errors}).
 *
 * <pre>{@code
 * ControllerClient client = manager.client();
 * Optional<Deployment> found = client.get(Deployment.class, request);         // a copy: change it freely
 * Deployment d = found.orElseThrow();
 * d.getSpec().setReplicas(3);
 * client.update(d);                                                          // 409 if changed meanwhile
 * client.createOrUpdate(configMap, cm -> cm.setData(Map.of("k", "v")));     // CREATED, UPDATED or UNCHANGED
 * }</pre>
 *
 * <p>Thread-safe. Typed classes only (built-in model classes and custom resource classes); for
 * {@code GenericKubernetesResource} reads use {@code informerFactory().genericInformerFor(...)}.
 */
public interface ControllerClient extends ObjectReader {

    // ---- reads from the cache -------------------------------------------------------------------------------

    /**
     * The cached object itself, shared with the cache and every other reader: <b>never mutate it</b>. Waits as
     * {@link #get} does.
     */
    <T extends HasMetadata> Optional<T> getReadOnly(Class<T> type, String namespace, String name);

    /** {@link #getReadOnly(Class, String, String)} for the object {@code request} names. */
    default <T extends HasMetadata> Optional<T> getReadOnly(Class<T> type, Request request) {
        return getReadOnly(type, request.namespace(), request.name());
    }

    /** {@link #list(Class, String)} without copying: <b>never mutate</b> the objects. */
    default <T extends HasMetadata> List<T> listReadOnly(Class<T> type, String namespace) {
        return listReadOnly(type, namespace, LabelSelector.everything(), FieldSelector.everything());
    }

    /** {@link #list(Class, String, LabelSelector, FieldSelector)} without copying: <b>never mutate</b> the objects. */
    <T extends HasMetadata> List<T> listReadOnly(
            Class<T> type, String namespace, LabelSelector labels, FieldSelector fields);

    /**
     * Copies of the objects of {@code type} in {@code namespace} ({@code ""}: all) stored under {@code value} in
     * the cache's index {@code indexName}. Add indexes to the type's informer before the manager starts:
     * {@code manager.informerFactory().informerFor(Pod.class).addIndexers(Map.of("node", ...))}.
     *
     * @throws IllegalArgumentException the informer has no index of that name
     */
    <T extends HasMetadata> List<T> listByIndex(Class<T> type, String namespace, String indexName, String value);

    /** {@link #listByIndex} without copying: <b>never mutate</b> the objects. */
    <T extends HasMetadata> List<T> listByIndexReadOnly(
            Class<T> type, String namespace, String indexName, String value);

    /** The reader that reads the API server itself, uncached (the same as {@link Manager#apiReader()}). */
    ObjectReader apiReader();

    // ---- writes to the API server ---------------------------------------------------------------------------

    /** Creates {@code object} ({@code generateName} honoured); returns it as stored. */
    <T extends HasMetadata> T create(T object);

    /**
     * Replaces {@code object}; its {@code metadata.resourceVersion}, when set, makes the write conditional (stale:
     * {@code ConflictException}). The status is not written (see {@link #updateStatus}).
     */
    <T extends HasMetadata> T update(T object);

    /** Replaces the status of {@code object} through the status subresource; the rest is ignored. */
    <T extends HasMetadata> T updateStatus(T object);

    /** Patches the object {@code object} names with {@code body} in the {@code patchType} format. */
    default <T extends HasMetadata> T patch(T object, PatchType patchType, String body) {
        return patch(object, patchType, body, PatchOptions.none());
    }

    /**
     * Patches the object {@code object} names with {@code body} ({@link PatchType#APPLY} needs
     * {@code options.fieldManager()}; {@link #apply} builds the body from an object).
     */
    <T extends HasMetadata> T patch(T object, PatchType patchType, String body, PatchOptions options);

    /**
     * Sends what changed from {@code original} to {@code modified} as a JSON merge patch (controller-runtime's
     * {@code MergeFromWithOptimisticLock}): with {@code original}'s resourceVersion as a precondition, so a change by
     * anyone else since {@code original} was read is a {@code ConflictException} instead of being overwritten.
     * Status changes are left out (see {@link #patchStatus(HasMetadata, HasMetadata)}). Returns the object as
     * stored; when nothing changed, sends nothing and returns {@code modified}.
     */
    <T extends HasMetadata> T patch(T original, T modified);

    /** Patches the status of the object {@code object} names, through the status subresource. */
    default <T extends HasMetadata> T patchStatus(T object, PatchType patchType, String body) {
        return patchStatus(object, patchType, body, PatchOptions.none());
    }

    /** Patches the status of the object {@code object} names, through the status subresource. */
    <T extends HasMetadata> T patchStatus(T object, PatchType patchType, String body, PatchOptions options);

    /**
     * Sends what changed in the status from {@code original} to {@code modified} as a JSON merge patch of the
     * status subresource, with {@code original}'s resourceVersion as a precondition. Sends nothing when the status
     * did not change and returns {@code modified}.
     */
    <T extends HasMetadata> T patchStatus(T original, T modified);

    /**
     * Server-side apply of {@code object} by {@code fieldManager}: the server creates it when missing, sets and
     * owns the fields it holds, and drops the fields this manager owned and no longer sends. Build a fresh object
     * with only the fields you mean to own. {@code force} takes over fields other managers own (otherwise 409).
     */
    <T extends HasMetadata> T apply(T object, String fieldManager, boolean force);

    /** Server-side apply of {@code object}'s status by {@code fieldManager}, through the status subresource. */
    <T extends HasMetadata> T applyStatus(T object, String fieldManager, boolean force);

    /** Deletes the object {@code object} names, with the server's default options. */
    default <T extends HasMetadata> Optional<T> delete(T object) {
        return delete(object, DeleteOptions.defaults());
    }

    /**
     * Deletes the object {@code object} names (propagation, grace period, uid and resourceVersion preconditions in
     * {@code options}). Returns the server's answer: the object's last state, the object still present with a
     * {@code deletionTimestamp} (finalizers or a foreground deletion hold it), or empty.
     *
     * @throws io.kubeloop.client.errors.NotFoundException the object does not exist
     * @throws io.kubeloop.client.errors.ConflictException a precondition failed
     */
    <T extends HasMetadata> Optional<T> delete(T object, DeleteOptions options);

    // ---- helpers --------------------------------------------------------------------------------------------

    /**
     * controller-runtime's {@code CreateOrUpdate}: reads the object {@code object} names from the cache. Missing:
     * {@code mutate} is applied to {@code object}, which is created ({@link OperationResult#CREATED}). Present:
     * {@code mutate} is applied to a copy of the cached object; when that changed anything, the copy is written
     * with {@link #update} ({@link OperationResult#UPDATED}, conditional on the cached resourceVersion: a stale cache
     * is a {@code ConflictException}), else nothing is sent ({@link OperationResult#UNCHANGED}).
     *
     * @param mutate sets the desired state; must not change the name or namespace
     * @throws IllegalArgumentException {@code mutate} changed the name or namespace
     */
    <T extends HasMetadata> OperationResult createOrUpdate(T object, Consumer<? super T> mutate);

    /**
     * controller-runtime's {@code CreateOrPatch}: as {@link #createOrUpdate}, but an existing object is changed with
     * JSON merge patches of what {@code mutate} changed — one for the object and, when the status changed, one for
     * the status subresource — each with the cached resourceVersion as a precondition (controller-runtime sends
     * them without, so a stale cache could silently undo a concurrent change; here it is a
     * {@code ConflictException}).
     *
     * @return {@link OperationResult#CREATED}, {@link OperationResult#UPDATED}, {@link OperationResult#UPDATED_STATUS}
     *     (object and status), {@link OperationResult#UPDATED_STATUS_ONLY} or {@link OperationResult#UNCHANGED}
     */
    <T extends HasMetadata> OperationResult createOrPatch(T object, Consumer<? super T> mutate);

    /** What {@link #createOrUpdate} and {@link #createOrPatch} did (controller-runtime's {@code OperationResult}). */
    enum OperationResult {
        /** The object existed and was already as desired: nothing was sent. */
        UNCHANGED,
        /** The object did not exist and was created. */
        CREATED,
        /** The object existed and was updated (or patched). */
        UPDATED,
        /** {@link #createOrPatch} patched the object and its status. */
        UPDATED_STATUS,
        /** {@link #createOrPatch} patched only the status. */
        UPDATED_STATUS_ONLY
    }
}
