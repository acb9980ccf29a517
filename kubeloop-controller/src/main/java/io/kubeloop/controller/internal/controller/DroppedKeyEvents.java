package io.kubeloop.controller.internal.controller;

import io.fabric8.kubernetes.api.model.HasMetadata;

/**
 * Where a controller reports, as a Kubernetes Event on the object, that it gave up on a key after its maximum number
 * of retries. Backed by the manager's EventRecorder (made at the first drop).
 */
@FunctionalInterface
public interface DroppedKeyEvents {

    /** Records a Warning Event with {@code reason} and {@code message} on {@code regarding}; never throws or blocks. */
    void warning(HasMetadata regarding, String reason, String message);
}
