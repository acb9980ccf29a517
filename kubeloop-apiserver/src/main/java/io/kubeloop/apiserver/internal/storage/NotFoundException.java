package io.kubeloop.apiserver.internal.storage;

/** The object does not exist: 404 NotFound, {@code pods "x" not found}. */
public final class NotFoundException extends StorageException {

    private static final long serialVersionUID = 1L;

    public NotFoundException(StorageKey key) {
        super(key.qualifiedResource() + " \"" + key.name() + "\" not found", key);
    }

    @Override
    public int code() {
        return 404;
    }

    @Override
    public String reason() {
        return "NotFound";
    }
}
