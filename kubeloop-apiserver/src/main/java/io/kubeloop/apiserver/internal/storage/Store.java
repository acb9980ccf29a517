package io.kubeloop.apiserver.internal.storage;

import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import tools.jackson.databind.node.ObjectNode;

/**
 * The API server's storage: a revisioned, multi-version (MVCC) in-memory object store with a bounded event
 * history and watches, in the manner of etcd plus kube-apiserver's watch cache. Build one with
 * {@link #builder()}.
 *
 * <p><b>Revisions.</b> One counter for the whole store. Writes are totally ordered: each successful create,
 * update or delete takes the next revision, which becomes the stored object's {@code metadata.resourceVersion}
 * (a decimal string), so revisions strictly increase across all resources. A no-op write (an object equal to
 * the stored one, ignoring {@code metadata.resourceVersion}) takes no revision and emits no event. An empty
 * store is at revision 1, as etcd is, so the first write is revision 2 and no list ever reports revision 0.
 *
 * <p><b>Ownership.</b> The store copies what it is given (sharing unchanged subtrees with the previous
 * version) and never changes a stored object afterwards. Objects it returns are shared with the store and with
 * other callers: a caller must deep-copy before changing one.
 *
 * <p><b>History and compaction.</b> The store keeps every version and event after its
 * {@linkplain #compactedRevision() compacted revision}. It compacts automatically so that at most
 * {@link StoreBuilder#historyLimit(int) historyLimit} events are kept (like kube-apiserver's bounded watch
 * cache), and on request with {@link #compact(long)}. A list at, or a watch from, a revision below the
 * compacted revision fails with 410 Expired.
 *
 * <p><b>Concurrency.</b> Writers are serialized by one lock; reads ({@link #get}, {@link #list}) take no
 * lock a writer holds and see a consistent snapshot; watchers are fed by writers without ever blocking them.
 * All locks are {@code java.util.concurrent} locks, so virtual threads may call anything here.
 */
public interface Store extends AutoCloseable {

    /** A builder for the in-memory store. */
    static StoreBuilder builder() {
        return new StoreBuilder();
    }

    /**
     * Stores a new object.
     *
     * @return the stored object, with {@code metadata.resourceVersion} set to the new revision
     * @throws AlreadyExistsException if the key exists
     * @throws IllegalArgumentException if {@code object.metadata} is not a JSON object
     */
    ObjectNode create(StorageKey key, ObjectNode object);

    /**
     * Replaces an object.
     *
     * @param expectedRevision the revision the caller based its change on (the resourceVersion it sent), or 0
     *     for an unconditional update
     * @return the stored object: the new version, or the unchanged stored one if this was a no-op
     * @throws NotFoundException if the key does not exist
     * @throws ConflictException if {@code expectedRevision} is not 0 and not the current revision of the object
     */
    ObjectNode update(StorageKey key, ObjectNode object, long expectedRevision);

    /**
     * Deletes an object (immediately: finalizers and grace periods are the REST layer's business).
     *
     * @param preconditions checked against the current object; {@link Preconditions#NONE} for none
     * @return the object's last state, carrying the delete's new revision (as in the DELETED event)
     * @throws NotFoundException if the key does not exist
     * @throws ConflictException if a precondition fails
     */
    ObjectNode delete(StorageKey key, Preconditions preconditions);

    /**
     * Read-modify-write of one object, for patches and subresources. {@code update} gets a private deep copy
     * of the current object, which it may change and return (or return a new object). The result is committed
     * only if the object has not changed meanwhile; otherwise {@code update} runs again on the newer object.
     * The first attempts run without the write lock; the last runs under it and cannot conflict, so the call
     * always finishes. {@code update} must not write to this store; it may throw (for example a
     * {@link ConflictException} or a validation error), which aborts the call without writing.
     *
     * @return the stored object: the new version, or the unchanged stored one if the result was equal to it
     * @throws NotFoundException if the key does not exist
     * @throws ConflictException if a precondition fails
     */
    ObjectNode guaranteedUpdate(StorageKey key, Preconditions preconditions, UnaryOperator<ObjectNode> update);

    /**
     * The current object.
     *
     * @throws NotFoundException if the key does not exist
     */
    ObjectNode get(StorageKey key);

    /**
     * Lists one resource, in key order, as it was at one revision.
     *
     * @param namespace one namespace, {@code ""} for cluster-scoped objects, or null for all namespaces
     * @param atRevision the exact revision to list at, or 0 for the current one
     * @param filter which objects to return (label and field selectors), or null for all; called without any
     *     store lock, must not change its argument
     * @param limit at most this many items, or 0 for no limit
     * @param continueKey null for the first page, else the {@link ListResult#continueKey()} of the previous page
     *     (then {@code atRevision} must be that page's revision, to keep the snapshot consistent)
     * @throws ExpiredException if {@code atRevision} has been compacted (with the continue-token message when a
     *     {@code continueKey} is given)
     * @throws TooLargeResourceVersionException if {@code atRevision} is above the current revision
     * @throws IllegalArgumentException if {@code continueKey} is malformed or outside the listed range
     */
    ListResult list(
            String group,
            String resource,
            String namespace,
            long atRevision,
            Predicate<ObjectNode> filter,
            int limit,
            String continueKey);

    /**
     * Watches one resource from a revision: delivers every change with a revision strictly after
     * {@code fromRevision} ("start at exact"), first from the history, then as writes happen. A future
     * {@code fromRevision} simply waits for those revisions.
     *
     * <p>With a filter, changes follow kube-apiserver's watch cache: an object that starts matching is ADDED,
     * one that stops matching is DELETED (carrying its previous, still matching, content with the new
     * revision), one that matches before and after is MODIFIED, and others are not sent.
     *
     * <p>If {@code fromRevision} is below the compacted revision, the watch does not throw: it delivers one
     * ERROR event with the 410 Expired Status {@code too old resource version: N (M)} and ends, as
     * kube-apiserver's watch cache does.
     *
     * @param namespace one namespace, {@code ""} for cluster-scoped objects, or null for all namespaces
     * @param filter which objects the watcher wants, or null for all; runs on the writer's thread under the
     *     write lock, so it must be fast, must not block and must not change its argument
     * @param bufferSize how many events may wait for the consumer before the watch is terminated (at least 1)
     */
    StoreWatch watch(
            String group,
            String resource,
            String namespace,
            long fromRevision,
            Predicate<ObjectNode> filter,
            int bufferSize);

    /**
     * "Get state and start at most recent", atomically: at the current revision R, delivers a synthetic ADDED
     * event for every matching object (in key order), then one BOOKMARK event at R, then every change after R,
     * exactly as {@link #watch} from R would. No write can fall between the initial state and the changes.
     * The initial objects are collected (as references, without copying) before this method returns.
     */
    StoreWatch listAndWatch(
            String group, String resource, String namespace, Predicate<ObjectNode> filter, int bufferSize);

    /** The revision of the latest write (1 for an empty store). */
    long currentRevision();

    /**
     * The oldest revision the store can still list at or watch from: every revision from here to
     * {@link #currentRevision()} is available. The {@code M} of {@code too old resource version: N (M)}.
     * 0 until the store first compacts.
     */
    long compactedRevision();

    /**
     * Discards history up to {@code revision}: versions superseded at or before it, objects deleted at or
     * before it, and the events up to it. Lists at and watches from older revisions then fail with 410.
     * Compacting to a revision at or below the compacted revision does nothing.
     *
     * @throws IllegalArgumentException if {@code revision} is above the current revision
     */
    void compact(long revision);

    /** Closes the store and ends every watch ({@link StoreWatch.EndReason#STORE_CLOSED}). Then every
     * operation throws {@link IllegalStateException}. */
    @Override
    void close();
}
