package io.kubeloop.controller;

import java.time.Duration;

/**
 * Turns the events of a watched type into requests with full control (controller-runtime's
 * {@code handler.TypedEventHandler} / {@code handler.Funcs}): the handler sees which event it is — a creation, an
 * update with the old and the new object, a deletion — and enqueues what it wants, now or after a delay. Given to
 * {@link ControllerBuilder#watches(Class, EventHandler)}.
 *
 * <p>Use it where a {@link RequestMapper} is not enough: a controller that keeps bookkeeping in step with the cache
 * (kube-controller-manager's <em>expectations</em>: "I created 3 pods, do not act again until the cache has seen
 * them") must record an observation <em>before</em> the request it enqueues can be reconciled, and must know whether
 * the event was a creation or a deletion. Kube's ReplicaSet controller is the model: its pod handler lowers the
 * expectations of the pod's controller, then enqueues it; a pod that became ready is enqueued again after
 * {@code minReadySeconds}.
 *
 * <p>Contract:
 * <ul>
 *   <li>Every method defaults to doing nothing; override those you need.</li>
 *   <li>Called on the informer's dispatcher thread, one event at a time per watch, after the cache holds the change:
 *       keep it fast, never block, never change the objects (they are the cache's). Read the cache if you must.</li>
 *   <li>{@link Queue#add} enqueues at the priority the event deserves (low for the initial list and resyncs, normal
 *       otherwise), exactly as the built-in watches do; a request added while the controller is stopped is dropped
 *       (a restart replays the caches).</li>
 *   <li>The watch's {@link EventFilter}, if any, runs first: a rejected event never reaches the handler.</li>
 *   <li>A handler that throws is logged at ERROR with the object; the dispatcher carries on.</li>
 * </ul>
 *
 * <pre>{@code
 * manager.newControllerFor(ReplicaSet.class)
 *         .watches(Pod.class, new EventHandler<Pod>() {
 *             public void onDelete(Pod pod, boolean finalStateUnknown, EventHandler.Queue queue) {
 *                 OwnerReferences.controllerOf(pod).ifPresent(ref -> {
 *                     expectations.deletionObserved(pod);  // before the enqueue: the reconcile must see it
 *                     queue.add(new Request(pod.getMetadata().getNamespace(), ref.getName()));
 *                 });
 *             }
 *         })
 *         .complete(reconciler);
 * }</pre>
 *
 * @param <S> the watched type
 */
public interface EventHandler<S> {

    /** A creation, or an object of the initial list ({@code isInInitialList}: also a cache replayed on a restart). */
    default void onCreate(S object, boolean isInInitialList, Queue queue) {}

    /** An update; a periodic resync when both objects have the same resourceVersion. */
    default void onUpdate(S oldObject, S newObject, Queue queue) {}

    /**
     * A deletion; {@code finalStateUnknown}: inferred from a relist, and {@code object} is the last state the cache
     * knew (client-go's {@code DeletedFinalStateUnknown}, unwrapped).
     */
    default void onDelete(S object, boolean finalStateUnknown, Queue queue) {}

    /** The controller's work queue as a handler sees it during one event. */
    interface Queue {

        /** Enqueues {@code request} for a reconcile now (once however often it is added before a worker takes it). */
        void add(Request request);

        /** Enqueues {@code request} after {@code delay} on the manager's clock ({@code delay} ≤ 0: now). */
        void addAfter(Request request, Duration delay);
    }
}
