package io.kubeloop.controller;

import io.fabric8.kubernetes.api.model.HasMetadata;

/**
 * Brings the world in line with the desired state of one object, named by a {@link Request}
 * (controller-runtime's {@code reconcile.Reconciler}). One method; the controller decides when to call it, from
 * how many workers, and what to do with its outcome:
 * <ul>
 *   <li>it returns a {@link Result}: done, requeue, or requeue after a duration;</li>
 *   <li>it throws: the key is retried with the controller's rate limiter (exponential back-off per key), unless
 *       the exception is — or is caused by — a {@link TerminalException}, which is not retried. A
 *       {@code RuntimeException} or {@code Error} is caught, logged and counted like any other failure and never
 *       kills a worker.</li>
 * </ul>
 * A key is never reconciled by two workers at once. Reconcile must be idempotent: it may be called for an object
 * that has not changed, or that no longer exists.
 *
 * @param <T> the type the controller is for ({@code forType}); the request names an object of that type
 */
@FunctionalInterface
public interface Reconciler<T extends HasMetadata> {

    /** Reconciles the object {@code request} names. */
    Result reconcile(Request request) throws Exception;
}
