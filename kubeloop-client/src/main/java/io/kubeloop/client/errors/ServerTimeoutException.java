package io.kubeloop.client.errors;

/**
 * 500 ServerTimeout: the server could not finish the request in time and suggests a retry, usually with {@link
 * #retryAfterSeconds()}.
 */
public class ServerTimeoutException extends KubernetesApiException {

    private static final long serialVersionUID = 1L;

    ServerTimeoutException(ErrorParts parts) {
        super(parts);
    }
}
