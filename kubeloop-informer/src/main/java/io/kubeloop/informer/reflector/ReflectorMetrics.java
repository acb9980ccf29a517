package io.kubeloop.informer.reflector;

import io.micrometer.core.instrument.MeterRegistry;

/**
 * What a reflector records. {@link #NOOP} when no registry was given (client-go records no reflector metrics by
 * default); {@link MicrometerReflectorMetrics} otherwise.
 */
interface ReflectorMetrics {

    ReflectorMetrics NOOP = new ReflectorMetrics() {};

    static ReflectorMetrics of(String name, MeterRegistry registry) {
        return registry == null ? NOOP : new MicrometerReflectorMetrics(name, registry);
    }

    /** A list (all its pages) succeeded with {@code items} objects after {@code nanos}, at wall time {@code epochMillis}. */
    default void listed(int items, long nanos, long epochMillis) {}

    /** One watch event; {@code type} is ADDED, MODIFIED, DELETED, BOOKMARK or ERROR. */
    default void watchEvent(String type, long epochMillis) {}

    /** A relist that was not the first list; reason: expired, too_large, error, very_short_watch, ... */
    default void relist(String reason) {}

    /** A watch ended and another one will be opened; reason: timeout, server_closed, idle, error, ... */
    default void watchRestart(String reason) {}

    /** A failed list or watch request; verb: list or watch. */
    default void apiFailure(String verb) {}

    /** An object (of a list or a watch event) that does not decode, counted once per object and resourceVersion. */
    default void decodeError() {}

    /** The reflector stopped: drop meters that refer to it. */
    default void close() {}
}
