package io.kubeloop.client.errors;

/**
 * 409 Conflict: the write carried a stale {@code resourceVersion} ("the object has been modified; please apply
 * your changes to the latest version and try again"), a precondition failed, or server-side apply found field-
 * manager conflicts. Read the object again and retry; also any 409 whose reason is not AlreadyExists.
 */
public class ConflictException extends KubernetesApiException {

    private static final long serialVersionUID = 1L;

    ConflictException(ErrorParts parts) {
        super(parts);
    }
}
