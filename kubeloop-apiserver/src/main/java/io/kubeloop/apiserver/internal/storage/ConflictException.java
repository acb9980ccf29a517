package io.kubeloop.apiserver.internal.storage;

/**
 * A write lost a race or failed a precondition: 409 Conflict, with kube-apiserver's message
 * {@code Operation cannot be fulfilled on pods "x": <detail>}.
 *
 * <p>The REST layer may throw it too, e.g. from inside a {@link Store#guaranteedUpdate} function.
 */
public final class ConflictException extends StorageException {

    private static final long serialVersionUID = 1L;

    /** The detail of a stale resourceVersion, as kube-apiserver words it. */
    public static final String OBJECT_MODIFIED =
            "the object has been modified; please apply your changes to the latest version and try again";

    private final String detail;

    public ConflictException(StorageKey key, String detail) {
        super(
                "Operation cannot be fulfilled on " + key.qualifiedResource() + " \"" + key.name() + "\": " + detail,
                key);
        this.detail = detail;
    }

    /** A stale resourceVersion: {@link #OBJECT_MODIFIED}. */
    public static ConflictException objectModified(StorageKey key) {
        return new ConflictException(key, OBJECT_MODIFIED);
    }

    /** The part of the message after the object's name. */
    public String detail() {
        return detail;
    }

    @Override
    public int code() {
        return 409;
    }

    @Override
    public String reason() {
        return "Conflict";
    }
}
