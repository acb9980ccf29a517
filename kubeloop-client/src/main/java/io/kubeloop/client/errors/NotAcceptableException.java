package io.kubeloop.client.errors;

/**
 * 406 NotAcceptable: the server cannot answer in any media type the request's {@code Accept} allows.
 */
public class NotAcceptableException extends KubernetesApiException {

    private static final long serialVersionUID = 1L;

    NotAcceptableException(ErrorParts parts) {
        super(parts);
    }
}
