package io.kubeloop.apiserver.internal.storage;

import tools.jackson.databind.node.ObjectNode;

/**
 * One write: the state of one key from {@link #revision} on, linked to the key's previous version.
 *
 * <p>A version is at once an MVCC record (the newest version of a key is its value in the store's index, and
 * {@link #prev} leads to older ones) and an entry of the global event history (the {@link RevisionLog} holds
 * the versions in revision order). A tombstone ({@link #deleted}) records a delete; its {@link #object} is the
 * deleted object's last state carrying the delete's revision, which is what a DELETED event shows.
 *
 * <p>Invariants: every field but {@link #prev} is final and {@link #object} is never changed; revisions along a
 * {@code prev} chain strictly decrease. {@link #prev} is written only under the store's write lock: once when a
 * newer version is linked above an existing head (never, that is, after publication), and then only cut to
 * null by compaction, for versions at or below the physically compacted revision. So a reader positioned at a
 * revision that compaction has not passed never follows a cut link.
 */
final class Version {

    final StorageKey key;
    final long revision;
    final ObjectNode object;
    final boolean deleted;
    volatile Version prev;

    Version(StorageKey key, long revision, ObjectNode object, boolean deleted, Version prev) {
        this.key = key;
        this.revision = revision;
        this.object = object;
        this.deleted = deleted;
        this.prev = prev;
    }

    /** The version of the key that was current at {@code revision}, or null if the key did not exist then. */
    static Version visibleAt(Version head, long revision) {
        Version v = head;
        while (v != null && v.revision > revision) {
            v = v.prev;
        }
        return v == null || v.deleted ? null : v;
    }

    /** The object this version replaced, or null if the key did not exist before (a create). */
    ObjectNode previousObject() {
        Version p = prev;
        return p == null || p.deleted ? null : p.object;
    }

    /** The event type of this write as an unfiltered watcher sees it. */
    StoreEvent.Type eventType() {
        if (deleted) {
            return StoreEvent.Type.DELETED;
        }
        return previousObject() == null ? StoreEvent.Type.ADDED : StoreEvent.Type.MODIFIED;
    }

    @Override
    public String toString() {
        return "Version[" + key + "@" + revision + (deleted ? ", deleted" : "") + "]";
    }
}
