package io.kubeloop.informer;

import io.kubeloop.clock.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The handlers of one informer and the rules of who gets what (client-go's {@code sharedProcessor}).
 *
 * <p>Invariants (all under {@code lock}):
 * <ul>
 *   <li>A listener's dispatcher is started in exactly one place, {@link #startListener}: by {@link #run} for the
 *       listeners registered before, by {@link #add} for those registered after (client-go's 2026 deadlock
 *       fixes, §6.9).</li>
 *   <li>{@link #distribute} hands a notification to every listener, or for a sync (an update with an unchanged
 *       resourceVersion) only to those whose syncing flag the latest resync tick set. Handing over never blocks,
 *       so holding the lock across it is cheap.</li>
 *   <li>After {@link #stop} no listener is registered or started again.</li>
 * </ul>
 *
 * @param <T> the object type
 */
final class SharedProcessor<T> {

    private final Clock clock;
    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by {@code lock}, in registration order. */
    private final List<ProcessorListener<T>> listeners = new ArrayList<>();
    /** Guarded by {@code lock}: null until {@link #run}. */
    private ThreadFactory threads;
    /** Guarded by {@code lock}. */
    private boolean stopped;

    SharedProcessor(Clock clock) {
        this.clock = clock;
    }

    /** Registers a listener; starts it when the processor runs. False when the processor has stopped. */
    boolean add(ProcessorListener<T> listener) {
        lock.lock();
        try {
            if (stopped) {
                return false;
            }
            listeners.add(listener);
            if (threads != null) {
                startListener(listener);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Unregisters and closes a listener (without interrupting a call in progress); false if not registered. */
    boolean remove(ProcessorListener<T> listener) {
        lock.lock();
        try {
            if (!listeners.remove(listener)) {
                return false;
            }
        } finally {
            lock.unlock();
        }
        listener.close(false);
        return true;
    }

    boolean contains(ProcessorListener<T> listener) {
        lock.lock();
        try {
            return listeners.contains(listener);
        } finally {
            lock.unlock();
        }
    }

    /** Starts the dispatchers of the listeners registered so far, and of every later one. */
    void run(ThreadFactory threadFactory) {
        lock.lock();
        try {
            if (stopped || threads != null) {
                return;
            }
            threads = threadFactory;
            listeners.forEach(this::startListener);
        } finally {
            lock.unlock();
        }
    }

    private void startListener(ProcessorListener<T> listener) {
        listener.start(threads);
    }

    /**
     * Hands {@code notification} to every listener, or, when {@code sync}, only to the listeners the latest
     * resync tick found due (all listeners before the first tick, as in client-go).
     */
    void distribute(Notification<T> notification, boolean sync) {
        lock.lock();
        try {
            for (ProcessorListener<T> l : listeners) {
                if (!sync || l.syncing()) {
                    l.add(notification);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * client-go's {@code shouldResync}, called at every tick of the reflector's resync timer: sets every
     * listener's syncing flag to whether it is due now (and schedules its next resync when it is).
     *
     * @return whether any listener is due, i.e. whether the DeltaFIFO should resync
     */
    boolean shouldResync() {
        lock.lock();
        try {
            long now = clock.nanoTime();
            boolean any = false;
            for (ProcessorListener<T> l : listeners) {
                any |= l.tick(now);
            }
            return any;
        } finally {
            lock.unlock();
        }
    }

    /** The informer's check period was lowered before start: re-derive every listener's effective period. */
    void resyncCheckPeriodChanged(Duration check) {
        lock.lock();
        try {
            for (ProcessorListener<T> l : listeners) {
                l.setResyncPeriod(ResyncPeriods.effective(l.requestedResync(), check));
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Closes every listener (pending notifications are dropped), interrupts their dispatchers and returns the
     * dispatcher threads to join.
     */
    List<Thread> stop() {
        List<ProcessorListener<T>> all;
        lock.lock();
        try {
            stopped = true;
            all = List.copyOf(listeners);
            listeners.clear();
        } finally {
            lock.unlock();
        }
        List<Thread> threadsToJoin = new ArrayList<>();
        for (ProcessorListener<T> l : all) {
            Thread t = l.close(true);
            if (t != null) {
                threadsToJoin.add(t);
            }
        }
        return threadsToJoin;
    }
}
