package io.kubeloop.apiserver.internal.lifecycle;

import io.fabric8.kubernetes.api.model.Status;
import java.util.Objects;

/**
 * A lifecycle rule refused a request; {@link #status()} is the kube-apiserver {@code Status} to answer with
 * (for example 422 when a terminating object gains a finalizer, 403 when a terminating namespace gains content).
 */
public final class LifecycleException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient Status status;

    LifecycleException(Status status) {
        super(status.getMessage(), null, false, false);
        this.status = Objects.requireNonNull(status, "status");
    }

    /** The Status to send; its {@code code} is the HTTP status. */
    public Status status() {
        return status;
    }
}
