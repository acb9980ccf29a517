package io.kubeloop.apiserver.internal.rbac;

import io.fabric8.kubernetes.api.model.Status;

/** Ends a request inside this package with a Status: a refusal, or a bad review body. */
final class StatusException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient Status status;

    StatusException(Status status) {
        super(status.getMessage(), null, false, false);
        this.status = status;
    }

    Status status() {
        return status;
    }
}
