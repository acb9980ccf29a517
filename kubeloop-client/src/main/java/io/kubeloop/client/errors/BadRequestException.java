package io.kubeloop.client.errors;

/**
 * 400 BadRequest: the request was malformed, e.g. a bad label selector, a bad continue token, a strict decoding
 * error or a namespace that does not match the object's.
 */
public class BadRequestException extends KubernetesApiException {

    private static final long serialVersionUID = 1L;

    BadRequestException(ErrorParts parts) {
        super(parts);
    }
}
