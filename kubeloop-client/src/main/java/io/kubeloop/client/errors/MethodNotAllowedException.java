package io.kubeloop.client.errors;

/**
 * 405 MethodNotAllowed: the resource does not support this verb.
 */
public class MethodNotAllowedException extends KubernetesApiException {

    private static final long serialVersionUID = 1L;

    MethodNotAllowedException(ErrorParts parts) {
        super(parts);
    }
}
