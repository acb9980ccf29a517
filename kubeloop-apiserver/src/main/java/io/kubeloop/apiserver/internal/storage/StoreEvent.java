package io.kubeloop.apiserver.internal.storage;

import java.util.Objects;
import tools.jackson.databind.node.ObjectNode;

/**
 * One event of a {@link StoreWatch}.
 *
 * <ul>
 *   <li>{@link Type#ADDED}, {@link Type#MODIFIED}, {@link Type#DELETED}: {@code object} is the object as stored
 *       (shared with the store: never change it, deep-copy it first) and {@code revision} is the write's
 *       revision, which is also the object's {@code metadata.resourceVersion}. A DELETED object is the last
 *       state of the object carrying the delete's revision. The synthetic ADDED events of
 *       {@link Store#listAndWatch} carry each object's own revision.</li>
 *   <li>{@link Type#BOOKMARK}: sent once by {@link Store#listAndWatch}, after the initial objects: every object
 *       as of {@code revision} has been sent. {@code object} is null (the REST layer builds the bookmark object,
 *       e.g. with the {@code k8s.io/initial-events-end} annotation, or drops it if the client did not ask for
 *       bookmarks).</li>
 *   <li>{@link Type#ERROR}: the last event of a watch that failed; {@code object} is the kube-apiserver
 *       {@code Status} to send (e.g. 410 Expired, {@code too old resource version: N (M)}) and {@code revision}
 *       is 0.</li>
 * </ul>
 */
public record StoreEvent(Type type, ObjectNode object, long revision) {

    public enum Type {
        ADDED,
        MODIFIED,
        DELETED,
        BOOKMARK,
        ERROR
    }

    public StoreEvent {
        Objects.requireNonNull(type, "type");
        if (object == null && type != Type.BOOKMARK) {
            throw new NullPointerException("object of a " + type + " event");
        }
    }

    @Override
    public String toString() {
        return "StoreEvent[" + type + "@" + revision
                + (object == null ? "" : " " + ObjectTrees.metadataString(object, "name")) + "]";
    }
}
