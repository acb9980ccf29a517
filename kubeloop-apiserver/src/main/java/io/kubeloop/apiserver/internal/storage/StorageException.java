package io.kubeloop.apiserver.internal.storage;

import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * A store operation that failed for a reason the client must see, carrying what the REST layer needs for a
 * kube-apiserver {@code Status}: the HTTP {@link #code()}, the {@link #reason()}, the exact message
 * ({@link #getMessage()}), and, for errors about one object, its group, resource and name.
 *
 * <p>{@link #toStatus()} builds that {@code Status} object, ready to serialise.
 */
public abstract sealed class StorageException extends RuntimeException
        permits NotFoundException,
                AlreadyExistsException,
                ConflictException,
                ExpiredException,
                TooLargeResourceVersionException {

    private static final long serialVersionUID = 1L;

    private final transient StorageKey key;

    StorageException(String message, StorageKey key) {
        super(message, null, false, false);
        this.key = key;
    }

    /** The HTTP status code kube-apiserver answers with: 404, 409, 410 or 504. */
    public abstract int code();

    /** The {@code Status.reason}: NotFound, AlreadyExists, Conflict, Expired or Timeout. */
    public abstract String reason();

    /** The object the error is about, or null if it concerns a list or a watch. */
    public StorageKey key() {
        return key;
    }

    /**
     * The kube-apiserver {@code Status} for this error: {@code kind}, {@code apiVersion}, {@code metadata},
     * {@code status: Failure}, {@code message}, {@code reason}, {@code details} (when there are any) and
     * {@code code}. A fresh object; the caller may change it.
     */
    public ObjectNode toStatus() {
        ObjectNode status = JsonNodeFactory.instance.objectNode();
        status.put("kind", "Status");
        status.put("apiVersion", "v1");
        status.putObject("metadata");
        status.put("status", "Failure");
        status.put("message", getMessage());
        status.put("reason", reason());
        ObjectNode details = details();
        if (details != null) {
            status.set("details", details);
        }
        status.put("code", code());
        return status;
    }

    /** The {@code Status.details}, or null for none. By default the object's name, group and resource. */
    ObjectNode details() {
        if (key == null) {
            return null;
        }
        ObjectNode details = JsonNodeFactory.instance.objectNode();
        details.put("name", key.name());
        if (!key.group().isEmpty()) {
            details.put("group", key.group());
        }
        details.put("kind", key.resource());
        return details;
    }
}
