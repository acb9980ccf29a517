package io.kubeloop.apiserver.internal.storage;

/** A create found the object already there: 409 AlreadyExists, {@code pods "x" already exists}. */
public final class AlreadyExistsException extends StorageException {

    private static final long serialVersionUID = 1L;

    public AlreadyExistsException(StorageKey key) {
        super(key.qualifiedResource() + " \"" + key.name() + "\" already exists", key);
    }

    @Override
    public int code() {
        return 409;
    }

    @Override
    public String reason() {
        return "AlreadyExists";
    }
}
