package io.kubeloop.client.errors;

/**
 * 404 NotFound: the object, or the route (an unknown resource type gives {@code the server could not find the
 * requested resource}), does not exist. {@code status().getDetails()} names the object when there is one.
 */
public class NotFoundException extends KubernetesApiException {

    private static final long serialVersionUID = 1L;

    NotFoundException(ErrorParts parts) {
        super(parts);
    }
}
