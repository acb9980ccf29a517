package io.kubeloop.apiserver.internal.crd;

import io.fabric8.kubernetes.api.model.Status;

/** Ends a write that {@link CustomResources} refuses, with the kube-apiserver {@code Status} to answer. */
public final class RejectedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient Status status;

    RejectedException(Status status) {
        super(status.getMessage(), null, false, false);
        this.status = status;
    }

    public Status status() {
        return status;
    }
}
