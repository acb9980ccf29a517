package io.kubeloop.client.errors;

/**
 * 413 RequestEntityTooLarge: the request body is over the server's limit (3 MiB by default in kube-apiserver).
 */
public class RequestEntityTooLargeException extends KubernetesApiException {

    private static final long serialVersionUID = 1L;

    RequestEntityTooLargeException(ErrorParts parts) {
        super(parts);
    }
}
