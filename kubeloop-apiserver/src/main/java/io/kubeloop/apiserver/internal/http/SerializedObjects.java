package io.kubeloop.apiserver.internal.http;

import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.SoftReference;
import java.lang.ref.WeakReference;
import java.util.concurrent.ConcurrentHashMap;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The JSON serialization of each stored object, made once and reused by every list, watcher and GET that sends
 * that object, as kube-apiserver's {@code cachingObject} does for watch events.
 *
 * <p>Keyed by the identity of the stored tree, never by {@code ObjectNode.equals} (deep and slow, and two equal
 * trees may still be different versions). Why the bytes are never stale: the store never changes a tree once
 * stored (a write stores a new tree, see {@code storage.Version}), so bytes made from a tree stay that tree's
 * bytes for as long as the tree lives. Only trees the store hands out may be given here; a tree that is still
 * being changed must not be.
 *
 * <p>Memory: a key is weak, so an entry goes with its tree once the store and every reader have dropped it (a
 * superseded or compacted version); the bytes are softly held, so the GC may clear them under memory pressure,
 * and they are made again on next use. A server with many objects thus does not keep a second copy of them for
 * good. Entries whose tree is gone are removed on later calls.
 *
 * <p>Thread-safe and lock-free: two threads that miss at once both serialize and one result wins; both are
 * the same bytes.
 */
final class SerializedObjects {

    private final JsonMapper json;
    private final ConcurrentHashMap<Object, SoftReference<SerializedObject>> entries = new ConcurrentHashMap<>();
    /** Keys whose tree has been collected, to be removed from {@link #entries}. */
    private final ReferenceQueue<ObjectNode> collected = new ReferenceQueue<>();

    SerializedObjects(JsonMapper json) {
        this.json = json;
    }

    /** The serialization of {@code stored}, a tree the store handed out. */
    SerializedObject of(ObjectNode stored) {
        removeCollected();
        SoftReference<SerializedObject> ref = entries.get(new Probe(stored));
        SerializedObject serialized = ref == null ? null : ref.get();
        if (serialized == null) {
            serialized = SerializedObject.of(json, stored);
            entries.put(new Key(stored, collected), new SoftReference<>(serialized));
        }
        return serialized;
    }

    private void removeCollected() {
        for (Reference<? extends ObjectNode> gone; (gone = collected.poll()) != null; ) {
            entries.remove(gone);
        }
    }

    /**
     * A map key: a weak reference to a tree, equal to another key or {@link Probe} of the same tree. Once its tree
     * is collected it equals only itself, which is how {@link #removeCollected} finds its entry.
     */
    private static final class Key extends WeakReference<ObjectNode> {
        private final int hash;

        Key(ObjectNode tree, ReferenceQueue<ObjectNode> queue) {
            super(tree, queue);
            this.hash = System.identityHashCode(tree);
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object other) {
            if (this == other) {
                return true;
            }
            ObjectNode tree = get();
            return tree != null
                    && (other instanceof Key k ? k.get() == tree : other instanceof Probe p && p.tree == tree);
        }
    }

    /** A lookup key: a strong reference to the tree looked up, equal to the {@link Key} of the same tree. */
    private record Probe(ObjectNode tree) {
        @Override
        public int hashCode() {
            return System.identityHashCode(tree);
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Key k && k.get() == tree;
        }
    }
}
