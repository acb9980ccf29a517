package io.kubeloop.client.watch;

import io.fabric8.kubernetes.api.model.Status;
import io.kubeloop.client.codec.UndecodableObject;
import io.kubeloop.model.WatchEventType;
import java.util.Objects;

/**
 * One event of a watch stream, as the API server sent it: a {@link Change} (ADDED, MODIFIED, DELETED) carrying
 * the object decoded to the watch's type, a {@link Bookmark} carrying only a resourceVersion, an
 * {@link Error} carrying the server's {@code Status} (a 410 Expired when the watch started from a compacted
 * resourceVersion), or — only on a watch that skips undecodable objects — an {@link Undecodable} in place of a
 * change whose object does not decode to the type. Switch over the four records:
 *
 * <pre>{@code
 * switch (event) {
 *     case WatchEvent.Change<Pod> c -> cache.apply(c.type(), c.object());
 *     case WatchEvent.Bookmark<Pod> b -> lastSyncResourceVersion = b.resourceVersion();
 *     case WatchEvent.Error<Pod> e -> throw toException(e.status());
 *     case WatchEvent.Undecodable<Pod> u -> cache.forget(u.object().key());
 * }
 * }</pre>
 *
 * @param <T> the type objects are decoded to
 */
public sealed interface WatchEvent<T> {

    /** The event type as the server wrote it. */
    WatchEventType type();

    /**
     * An ADDED, MODIFIED or DELETED event; a DELETED event carries the object's last state with its final
     * resourceVersion.
     */
    record Change<T>(WatchEventType type, T object) implements WatchEvent<T> {
        public Change {
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(object, "object");
            if (type != WatchEventType.ADDED && type != WatchEventType.MODIFIED && type != WatchEventType.DELETED) {
                throw new IllegalArgumentException("a change is ADDED, MODIFIED or DELETED, not " + type);
            }
        }
    }

    /**
     * An ADDED, MODIFIED or DELETED event whose object does not decode to the watch's type, delivered in its place
     * by a watch with {@code undecodableObjects(SKIP)}: what is known of the object (namespace, name,
     * resourceVersion, uid, read from its metadata alone) and the decoding error, never its content. The
     * resourceVersion, when known, is as good as any event's for watching again.
     */
    record Undecodable<T>(WatchEventType type, UndecodableObject object) implements WatchEvent<T> {
        public Undecodable {
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(object, "object");
            if (type != WatchEventType.ADDED && type != WatchEventType.MODIFIED && type != WatchEventType.DELETED) {
                throw new IllegalArgumentException("an undecodable change is ADDED, MODIFIED or DELETED, not " + type);
            }
        }
    }

    /**
     * A BOOKMARK: every event up to {@code resourceVersion} has been delivered on this stream.
     *
     * @param initialEventsEnd the bookmark carries the annotation {@code k8s.io/initial-events-end: "true"},
     *     which ends the initial ADDED events of a streaming list ({@code sendInitialEvents=true})
     */
    record Bookmark<T>(String resourceVersion, boolean initialEventsEnd) implements WatchEvent<T> {
        public Bookmark {
            Objects.requireNonNull(resourceVersion, "resourceVersion");
        }

        @Override
        public WatchEventType type() {
            return WatchEventType.BOOKMARK;
        }
    }

    /**
     * An ERROR event: the server ends the watch with this Status (for a too old resourceVersion, code 410 and
     * reason Expired). The stream normally ends right after it.
     */
    record Error<T>(Status status) implements WatchEvent<T> {
        public Error {
            Objects.requireNonNull(status, "status");
        }

        @Override
        public WatchEventType type() {
            return WatchEventType.ERROR;
        }
    }
}
