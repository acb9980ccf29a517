package io.kubeloop.apiserver.internal.registry;

import io.fabric8.kubernetes.api.model.Status;

/** Refuses a write with a kube-apiserver {@code Status} (400 for undecodable input, 422 for invalid objects). */
public final class AdmissionException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient Status status;

    public AdmissionException(Status status) {
        super(status.getMessage(), null, false, false);
        this.status = status;
    }

    public Status status() {
        return status;
    }
}
