package io.kubeloop.apiserver.internal.storage;

/**
 * A list or watch asked for a revision that compaction has already dropped: 410 Gone, reason Expired.
 *
 * <p>The message is kube-apiserver's for the situation: {@link #LIST_MESSAGE} for a list at an exact revision,
 * {@link #CONTINUE_MESSAGE} for a later page of a paged list, and {@code too old resource version: N (M)}
 * for a watch, where N is the requested and M the {@linkplain #oldestRevision() oldest available} revision.
 */
public final class ExpiredException extends StorageException {

    private static final long serialVersionUID = 1L;

    public static final String LIST_MESSAGE = "The resourceVersion for the provided list is too old.";
    public static final String CONTINUE_MESSAGE = "The provided continue parameter is too old to display a "
            + "consistent list result. You can start a new list without the continue parameter.";

    private final long requestedRevision;
    private final long oldestRevision;

    private ExpiredException(String message, long requestedRevision, long oldestRevision) {
        super(message, null);
        this.requestedRevision = requestedRevision;
        this.oldestRevision = oldestRevision;
    }

    static ExpiredException forList(long requested, long oldest) {
        return new ExpiredException(LIST_MESSAGE, requested, oldest);
    }

    static ExpiredException forContinue(long requested, long oldest) {
        return new ExpiredException(CONTINUE_MESSAGE, requested, oldest);
    }

    static ExpiredException forWatch(long requested, long oldest) {
        return new ExpiredException("too old resource version: " + requested + " (" + oldest + ")", requested, oldest);
    }

    /** The revision the client asked for. */
    public long requestedRevision() {
        return requestedRevision;
    }

    /** The store's {@linkplain Store#compactedRevision() compacted revision} when the request failed. */
    public long oldestRevision() {
        return oldestRevision;
    }

    @Override
    public int code() {
        return 410;
    }

    @Override
    public String reason() {
        return "Expired";
    }
}
