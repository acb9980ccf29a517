package io.kubeloop.informer;

import java.time.Duration;

/**
 * The handle of one handler added to a {@link SharedIndexInformer}. Adding the same handler object twice gives
 * two independent registrations.
 */
public interface ResourceEventHandlerRegistration {

    /** The handler's name in logs, thread names and the {@code handler} tag of its metrics. */
    String name();

    /**
     * The resync period in effect for this handler: what it asked for, raised to 1 s and to the informer's resync
     * check period; zero when it is never resynced (it asked for none, or the informer has no resync at all).
     */
    Duration resyncPeriod();

    /**
     * True once the informer has synced <em>and</em> this handler has returned from every initial-list
     * {@code onAdd} it was given (for a handler added after start, the replay of the cache). Unlike the
     * informer's {@code hasSynced}, this says the handler itself has seen the initial state.
     */
    boolean hasSynced();

    /**
     * Removes the handler: it gets no further notifications and its pending ones are dropped. Asynchronous: a call
     * already in progress runs to its end. Idempotent; a no-op after the informer stopped.
     */
    void remove();

    /** Whether the handler is still registered (not removed, informer not stopped). */
    boolean isActive();
}
