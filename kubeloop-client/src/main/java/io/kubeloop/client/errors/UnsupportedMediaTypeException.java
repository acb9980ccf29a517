package io.kubeloop.client.errors;

/**
 * 415 UnsupportedMediaType: the server does not accept the request's {@code Content-Type} (or patch type).
 */
public class UnsupportedMediaTypeException extends KubernetesApiException {

    private static final long serialVersionUID = 1L;

    UnsupportedMediaTypeException(ErrorParts parts) {
        super(parts);
    }
}
