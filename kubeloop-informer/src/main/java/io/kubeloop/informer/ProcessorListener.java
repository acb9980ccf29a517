package io.kubeloop.informer;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kubeloop.clock.Clock;
import io.kubeloop.informer.cache.DeletedFinalStateUnknown;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One handler of a {@link SharedIndexInformer}: an unbounded buffer of notifications and a dispatcher thread that
 * calls the handler with them, one at a time, in order (client-go's {@code processorListener}).
 *
 * <p>Invariants:
 * <ul>
 *   <li>{@link #add} never waits for the handler: it appends to the buffer under a lock held only for the append,
 *       so a slow or stuck handler grows its own buffer and delays nothing else — not the process loop, not the
 *       DeltaFIFO, not the watch, not the other handlers.</li>
 *   <li>The dispatcher is the only thread that calls the handler; notifications reach it in {@code add} order.</li>
 *   <li>A handler's exception is logged with the handler, the event type and the object's key, counted, and
 *       the dispatcher carries on with the next notification.</li>
 *   <li>After {@link #close} nothing more is delivered: the buffer is dropped and the dispatcher ends after the
 *       call it is in, if any (client-go drops pending notifications too).</li>
 *   <li>{@code pendingInitial} counts initial-list adds added and not yet returned from the handler; the
 *       registration has synced when the informer has synced and it is zero.</li>
 * </ul>
 *
 * @param <T> the object type
 */
final class ProcessorListener<T> {

    private static final Logger log = LoggerFactory.getLogger(SharedIndexInformer.class);

    /** At most this many notifications move from the buffer to the dispatcher per lock acquisition. */
    static final int BATCH = 256;

    private final String informerName;
    private final String name;
    private final ResourceEventHandler<? super T> handler;
    private final Clock clock;
    private final InformerMetrics.HandlerMetrics metrics;

    /** The period the handler asked for (raised to the 1 s minimum), before the informer's check period. */
    private final Duration requestedResync;

    // Guarded by the SharedProcessor's lock: resync bookkeeping.
    /** Zero: never resynced. */
    private Duration resyncPeriod;

    private long nextResyncNanos;
    /** Whether the latest resync tick found this listener due; true from registration to the first tick. */
    private boolean syncing = true;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    /** Guarded by {@code lock}. Unbounded; starts at client-go's 1024. */
    private final ArrayDeque<Notification<T>> buffer = new ArrayDeque<>(1024);
    /** Written under {@code lock}; read without it between two handler calls. */
    private volatile boolean closed;
    /**
     * Notifications added and not yet handled: the buffer plus the dispatcher's current batch (the buffer-length
     * gauge reads it without the lock). Zeroed by close.
     */
    private final AtomicInteger pending = new AtomicInteger();
    /** Guarded by {@code lock}. */
    private Thread dispatcher;

    private final AtomicLong pendingInitial = new AtomicLong();

    ProcessorListener(
            String informerName,
            String name,
            ResourceEventHandler<? super T> handler,
            Duration requestedResync,
            Duration resyncPeriod,
            Clock clock,
            InformerMetrics metrics) {
        this.informerName = informerName;
        this.name = name;
        this.handler = handler;
        this.requestedResync = requestedResync;
        this.resyncPeriod = resyncPeriod;
        this.clock = clock;
        this.nextResyncNanos = clock.nanoTime() + resyncPeriod.toNanos();
        this.metrics = metrics.handler(name, this::bufferLength);
    }

    String name() {
        return name;
    }

    Duration requestedResync() {
        return requestedResync;
    }

    // ---- resync (called under the SharedProcessor's lock)

    Duration resyncPeriod() {
        return resyncPeriod;
    }

    void setResyncPeriod(Duration period) {
        this.resyncPeriod = period;
    }

    boolean syncing() {
        return syncing;
    }

    /**
     * Whether this listener is due at {@code nowNanos}; remembers the answer as the syncing flag until the next
     * tick and, when due, schedules the next resync one period later.
     */
    boolean tick(long nowNanos) {
        syncing = !resyncPeriod.isZero() && nowNanos - nextResyncNanos >= 0;
        if (syncing) {
            nextResyncNanos = nowNanos + resyncPeriod.toNanos();
        }
        return syncing;
    }

    // ---- the buffer

    /** Appends a notification; never blocks. Ignored after {@link #close}. */
    void add(Notification<T> notification) {
        boolean initial = notification instanceof Notification.Add<T> a && a.initial();
        lock.lock();
        try {
            if (closed) {
                return;
            }
            if (initial) {
                pendingInitial.incrementAndGet();
            }
            buffer.addLast(notification);
            pending.incrementAndGet();
            if (buffer.size() == 1) {
                notEmpty.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Notifications waiting for the handler (including the one it is handling). */
    int bufferLength() {
        return Math.max(0, pending.get());
    }

    /** True when every initial-list add handed to this listener has returned from the handler. */
    boolean initialListDelivered() {
        return pendingInitial.get() == 0;
    }

    /** Starts the dispatcher thread; called exactly once, by the SharedProcessor under its lock. */
    void start(ThreadFactory threads) {
        lock.lock();
        try {
            if (closed || dispatcher != null) {
                return;
            }
            Thread t = threads.newThread(this::run);
            if (t == null) {
                throw new IllegalStateException("informer " + informerName + ": the thread factory returned null");
            }
            t.setName("informer[" + informerName + "]-handler[" + name + "]");
            dispatcher = t;
            t.start();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Stops delivery: drops the buffer; the dispatcher ends after the handler call it is in. With
     * {@code interrupt} the dispatcher thread is also interrupted (informer stop), so a handler blocked in an
     * interruptible wait is released. Idempotent.
     *
     * @return the dispatcher thread, to join; null when it never started
     */
    Thread close(boolean interrupt) {
        lock.lock();
        try {
            closed = true;
            buffer.clear();
            pending.set(0);
            pendingInitial.set(0);
            notEmpty.signalAll();
            if (dispatcher == null) {
                metrics.close(); // a started dispatcher closes them when it ends
            } else if (interrupt) {
                dispatcher.interrupt();
            }
            return dispatcher;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes up to {@link #BATCH} notifications per lock acquisition, so that a busy handler and the process loop do
     * not meet on the lock for every notification; checks {@code closed} before each call.
     */
    private void run() {
        ArrayDeque<Notification<T>> batch = new ArrayDeque<>(BATCH);
        try {
            while (true) {
                lock.lock();
                try {
                    while (buffer.isEmpty() && !closed) {
                        try {
                            notEmpty.await();
                        } catch (InterruptedException e) {
                            // Only close() interrupts us (and sets closed first); anything else is spurious.
                        }
                    }
                    if (closed) {
                        return;
                    }
                    for (int i = 0; i < BATCH && !buffer.isEmpty(); i++) {
                        batch.addLast(buffer.pollFirst());
                    }
                } finally {
                    lock.unlock();
                }
                for (Notification<T> next = batch.pollFirst(); next != null; next = batch.pollFirst()) {
                    if (closed) {
                        return;
                    }
                    dispatch(next);
                    if (!closed) {
                        pending.decrementAndGet();
                    }
                }
            }
        } finally {
            metrics.close();
        }
    }

    private void dispatch(Notification<T> notification) {
        boolean timed = metrics.timed();
        long start = timed ? clock.nanoTime() : 0;
        try {
            switch (notification) {
                case Notification.Add<T> a -> handler.onAdd(a.object(), a.initial());
                case Notification.Update<T> u -> handler.onUpdate(u.oldObject(), u.newObject());
                case Notification.Delete<T> d -> handler.onDelete(d.object());
            }
        } catch (VirtualMachineError fatal) {
            throw fatal;
        } catch (Throwable e) {
            metrics.failed();
            if (closed) {
                log.debug(
                        "informer {}: handler {} threw on {} of {} while the informer was stopping",
                        informerName,
                        name,
                        notification.type(),
                        keyOf(notification),
                        e);
            } else {
                log.error(
                        "informer {}: handler {} threw on {} of {}; the handler carries on with the next "
                                + "notification",
                        informerName,
                        name,
                        notification.type(),
                        keyOf(notification),
                        e);
            }
        } finally {
            if (timed) {
                metrics.handled(clock.nanoTime() - start);
            }
            if (notification instanceof Notification.Add<T> a && a.initial()) {
                pendingInitial.updateAndGet(n -> n > 0 ? n - 1 : 0);
            }
        }
    }

    /** The object's namespace/name for a log line; never throws. */
    static String keyOf(Notification<?> notification) {
        Object o =
                switch (notification) {
                    case Notification.Add<?> a -> a.object();
                    case Notification.Update<?> u -> u.newObject();
                    case Notification.Delete<?> d -> d.object();
                };
        return describe(o);
    }

    static String describe(Object o) {
        if (o instanceof DeletedFinalStateUnknown<?> tombstone) {
            return tombstone.key() + " (tombstone)";
        }
        if (o instanceof HasMetadata h && h.getMetadata() != null) {
            String ns = h.getMetadata().getNamespace();
            String n = h.getMetadata().getName();
            return (ns == null || ns.isEmpty() ? "" : ns + "/") + n;
        }
        return String.valueOf(o);
    }

    @Override
    public String toString() {
        return "handler " + name + " of informer " + informerName;
    }
}
