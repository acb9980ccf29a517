package io.kubeloop.apiserver.internal.http;

import io.fabric8.kubernetes.api.model.Status;

/** Ends a request with a kube-apiserver {@code Status}; thrown anywhere below the router. */
final class ApiException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final Status status;

    ApiException(Status status) {
        super(status.getMessage(), null, false, false);
        this.status = status;
    }

    Status status() {
        return status;
    }
}
