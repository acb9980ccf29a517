package io.kubeloop.client.errors;

/**
 * 500 InternalError: the server failed; {@code Internal error occurred: ...}. A 500 whose reason is
 * ServerTimeout is a {@link ServerTimeoutException} instead.
 */
public class InternalErrorException extends KubernetesApiException {

    private static final long serialVersionUID = 1L;

    InternalErrorException(ErrorParts parts) {
        super(parts);
    }
}
