package io.kubeloop.client.errors;

/**
 * 409 AlreadyExists: a create named an object that exists already.
 */
public class AlreadyExistsException extends KubernetesApiException {

    private static final long serialVersionUID = 1L;

    AlreadyExistsException(ErrorParts parts) {
        super(parts);
    }
}
