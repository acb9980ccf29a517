package io.kubeloop.client.errors;

/**
 * 504 Timeout: the server gave up waiting, e.g. {@code Timeout: Too large resource version} for a read at a
 * resourceVersion it has not reached yet; the request may still complete. Named after kube's reason {@code
 * Timeout}; not {@link java.util.concurrent.TimeoutException}.
 */
public class TimeoutException extends KubernetesApiException {

    private static final long serialVersionUID = 1L;

    TimeoutException(ErrorParts parts) {
        super(parts);
    }
}
