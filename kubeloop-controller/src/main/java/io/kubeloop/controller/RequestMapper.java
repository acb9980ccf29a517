package io.kubeloop.controller;

import java.util.Collection;

/**
 * Maps an object of a watched type to the requests of the controller's own type that it affects
 * (controller-runtime's {@code handler.MapFunc}, behind {@code EnqueueRequestsFromMapFunc}). Given to
 * {@link ControllerBuilder#watches}.
 *
 * <p>Called on the informer's dispatcher thread for every event that passes the watch's filter: for an update with
 * both the old and the new object (the union of the two results is enqueued, each request once), for a deletion
 * with the last known state. Keep it fast and free of I/O — read the cache if you must — and return an empty
 * collection (never null) when nothing is affected. A mapper that throws is logged and its event dropped.
 *
 * @param <S> the watched type
 */
@FunctionalInterface
public interface RequestMapper<S> {

    /** The requests {@code object} affects. */
    Collection<Request> map(S object);
}
