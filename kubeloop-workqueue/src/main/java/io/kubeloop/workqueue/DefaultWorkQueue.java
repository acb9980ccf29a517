package io.kubeloop.workqueue;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The one implementation behind {@link WorkQueue}, {@link DelayingQueue} and {@link RateLimitingQueue}.
 *
 * <p>Two locks, never nested the other way round: {@code lock} guards the queue proper, {@code delayLock}
 * guards the waiting heap and the timer thread. The timer thread may take {@code lock} while holding
 * {@code delayLock} (to add items that became ready); nothing takes {@code delayLock} while holding
 * {@code lock}.
 *
 * <p>Invariants under {@code lock}:
 * <ul>
 *   <li>every item in {@code queue} is in {@code dirty} and not in {@code processing};</li>
 *   <li>{@code queue} holds no item twice;</li>
 *   <li>an item in both {@code dirty} and {@code processing} is re-queued by {@code done}.</li>
 * </ul>
 */
final class DefaultWorkQueue<T> implements RateLimitingQueue<T> {

    private final String name;
    private final Clock clock;
    private final RateLimiter<T> rateLimiter;
    private final QueueMetrics<T> metrics;
    private final ThreadFactory timerThreadFactory;

    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled when an item is queued, and (all) on shutdown. */
    private final Condition itemQueued = lock.newCondition();
    /** Signalled (all) when the queue becomes empty with nothing processing, and on shutdown. */
    private final Condition drained = lock.newCondition();
    private final ArrayDeque<T> queue = new ArrayDeque<>();
    private final HashSet<T> dirty = new HashSet<>();
    private final HashSet<T> processing = new HashSet<>();
    /** Written under {@code lock}; read without it as a fast path. */
    private volatile boolean shuttingDown;
    /** Guarded by {@code lock}: a {@link #shutDownWithDrain} is waiting. */
    private boolean drain;

    private final ReentrantLock delayLock = new ReentrantLock();
    /** Signalled when the earliest ready time moves earlier, and on shutdown. */
    private final Condition waitingChanged = delayLock.newCondition();
    /** Guarded by {@code delayLock}. */
    private final WaitingHeap<T> waiting = new WaitingHeap<>();
    /** Guarded by {@code delayLock}: started on the first positive delay, at most once. */
    private Thread timer;
    /** Guarded by {@code delayLock}. */
    private boolean timerStopped;

    DefaultWorkQueue(String name, Clock clock, RateLimiter<T> rateLimiter, QueueMetrics<T> metrics,
            ThreadFactory timerThreadFactory) {
        this.name = name;
        this.clock = clock;
        this.rateLimiter = rateLimiter;
        this.metrics = metrics;
        this.timerThreadFactory = timerThreadFactory;
    }

    // ---- WorkQueue

    @Override
    public void add(T item) {
        Objects.requireNonNull(item, "item");
        lock.lock();
        try {
            if (shuttingDown || !dirty.add(item)) {
                return;
            }
            metrics.add(item);
            if (processing.contains(item)) {
                return; // re-queued by done()
            }
            queue.addLast(item);
            itemQueued.signal();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public T get() throws InterruptedException {
        lock.lock();
        try {
            while (queue.isEmpty() && !shuttingDown) {
                itemQueued.await();
            }
            T item = queue.pollFirst();
            if (item == null) {
                return null; // shutting down and empty
            }
            processing.add(item);
            dirty.remove(item);
            metrics.get(item);
            return item;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void done(T item) {
        lock.lock();
        try {
            if (!processing.remove(item)) {
                return;
            }
            metrics.done(item);
            if (dirty.contains(item)) {
                queue.addLast(item);
                itemQueued.signal();
            } else if (isDrained()) {
                drained.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int len() {
        lock.lock();
        try {
            return queue.size();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void shutDown() {
        lock.lock();
        try {
            drain = false;
            markShuttingDown();
        } finally {
            lock.unlock();
        }
        stopTimer();
    }

    @Override
    public boolean shutDownWithDrain(Duration timeout) throws InterruptedException {
        Objects.requireNonNull(timeout, "timeout");
        long deadline = deadlineAfter(timeout);
        lock.lock();
        try {
            drain = true;
            markShuttingDown();
            // A later shutDown() clears drain and releases us, as in client-go.
            while (drain && !isDrained() && deadline - clock.nanoTime() > 0) {
                clock.awaitUntil(lock, drained, deadline);
            }
            return isDrained();
        } finally {
            drain = false;
            lock.unlock();
            stopTimer();
        }
    }

    /** Caller holds {@code lock}. */
    private boolean isDrained() {
        return queue.isEmpty() && processing.isEmpty();
    }

    @Override
    public boolean shuttingDown() {
        return shuttingDown;
    }

    /** Caller holds {@code lock}. */
    private void markShuttingDown() {
        if (!shuttingDown) {
            shuttingDown = true;
            metrics.shutDown();
        }
        itemQueued.signalAll();
        drained.signalAll();
    }

    // ---- DelayingQueue

    @Override
    public void addAfter(T item, Duration delay) {
        Objects.requireNonNull(item, "item");
        Objects.requireNonNull(delay, "delay");
        if (shuttingDown) {
            return;
        }
        metrics.retry();
        if (delay.isNegative() || delay.isZero()) {
            add(item);
            return;
        }
        long readyAt = deadlineAfter(delay);
        delayLock.lock();
        try {
            if (timerStopped) {
                return;
            }
            if (waiting.offer(item, readyAt)) {
                waitingChanged.signal();
            }
            if (timer == null) {
                timer = timerThreadFactory.newThread(this::runTimer);
                timer.start();
            }
        } finally {
            delayLock.unlock();
        }
    }

    /** The timer thread: moves waiting items to the queue when their time comes. */
    private void runTimer() {
        List<T> ready = new ArrayList<>();
        delayLock.lock();
        try {
            while (!timerStopped) {
                long now = clock.nanoTime();
                while (!waiting.isEmpty() && waiting.peekReadyAt() - now <= 0) {
                    ready.add(waiting.poll());
                }
                if (!ready.isEmpty()) {
                    ready.forEach(this::add);
                    ready.clear();
                    continue;
                }
                long deadline = waiting.isEmpty() ? Long.MAX_VALUE : waiting.peekReadyAt();
                clock.awaitUntil(delayLock, waitingChanged, deadline);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            waiting.clear();
            delayLock.unlock();
        }
    }

    private void stopTimer() {
        delayLock.lock();
        try {
            timerStopped = true;
            waiting.clear();
            waitingChanged.signalAll();
        } finally {
            delayLock.unlock();
        }
    }

    /** How many items wait for their delay to pass. */
    int waitingCount() {
        delayLock.lock();
        try {
            return waiting.size();
        } finally {
            delayLock.unlock();
        }
    }

    /** Subtraction-safe: compare the result with {@code deadline - clock.nanoTime() > 0}. */
    private long deadlineAfter(Duration d) {
        return clock.nanoTime() + ItemExponentialFailureRateLimiter.saturatedNanos(d);
    }

    // ---- RateLimitingQueue

    @Override
    public void addRateLimited(T item) {
        addAfter(item, rateLimiter.when(item));
    }

    @Override
    public void forget(T item) {
        rateLimiter.forget(item);
    }

    @Override
    public int numRequeues(T item) {
        return rateLimiter.numRequeues(item);
    }

    @Override
    public String toString() {
        return "WorkQueue[" + (name.isEmpty() ? "unnamed" : name) + "]";
    }
}
