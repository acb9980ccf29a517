package io.kubeloop.informer.cache;

/**
 * An object has no key: it is not a Kubernetes object (no metadata, no name). Recoverable: the caller logs it
 * with the object's description and carries on (client-go's {@code KeyError}).
 */
public final class KeyException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public KeyException(String message) {
        super(message);
    }
}
