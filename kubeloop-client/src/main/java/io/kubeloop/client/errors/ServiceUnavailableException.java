package io.kubeloop.client.errors;

/**
 * 503 ServiceUnavailable: the server, or a proxy in front of it, cannot serve now (starting up, overloaded,
 * shutting down). Reads may be retried after {@link #retryAfterSeconds()} or a short delay.
 */
public class ServiceUnavailableException extends KubernetesApiException {

    private static final long serialVersionUID = 1L;

    ServiceUnavailableException(ErrorParts parts) {
        super(parts);
    }
}
