package io.kubeloop.controller;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.Set;

/**
 * A running controller, read-only: what {@link ControllerBuilder#complete} built and registered with its
 * {@link Manager} (controller-runtime's {@code Controller}). It watches its types through the manager's shared
 * informers, turns their events into {@link Request}s on one work queue, and hands each request to its
 * {@link Reconciler} on one of its worker threads — never the same request to two workers at once.
 *
 * <p>The manager starts it after the caches have synced and stops it on shutdown or on the loss of the leader lease;
 * a controller stopped that way starts again (a fresh queue, filled again with every cached object of its
 * {@link #forType()}) when the manager is elected again.
 */
public interface Controller {

    /**
     * The controller's name, unique in its manager: the {@code controller} label of its metrics, the MDC
     * {@code controller} key of its logs and the prefix of its worker threads' names.
     */
    String name();

    /** The type the controller reconciles: requests name objects of this type. */
    Class<? extends HasMetadata> forType();

    /** The types whose controlling owner (of the {@link #forType()}) is enqueued ({@link ControllerBuilder#owns}). */
    Set<Class<? extends HasMetadata>> ownedTypes();

    /** Every type the controller watches: the {@link #forType()}, the owned types and the mapped ones. */
    Set<Class<? extends HasMetadata>> watchedTypes();

    /**
     * Whether its reconciler only reads objects of {@link #forType()} ({@link ControllerBuilder#readOnly()}):
     * {@link Manager#rbac(String)} then grants no writes on that type and its {@code /status}. Default false.
     */
    default boolean readOnly() {
        return false;
    }

    /** How many workers reconcile at most at once (controller-runtime's {@code MaxConcurrentReconciles}). */
    int workers();

    /**
     * How many requests wait for a worker now (0 from the moment a stop begins: they will not be taken). For
     * information only.
     */
    int queueDepth();
}
