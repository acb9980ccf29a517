package io.kubeloop.workqueue;

import static io.kubeloop.workqueue.QueueNode.NEW;
import static io.kubeloop.workqueue.QueueNode.PROCESSING;
import static io.kubeloop.workqueue.QueueNode.PROCESSING_DIRTY;
import static io.kubeloop.workqueue.QueueNode.QUEUED;

import io.kubeloop.clock.Clock;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * The one implementation behind {@link WorkQueue}, {@link DelayingQueue} and {@link RateLimitingQueue}, and,
 * with a {@link PriorityReadyList}, behind {@link PriorityWorkQueue} ({@link DefaultPriorityWorkQueue}).
 *
 * <p><b>Design.</b> client-go (and the official Java client) keep a FIFO list plus two hash sets, dirty
 * and processing, so one add–get–done cycle costs about seven hash operations and three allocations. Here
 * every item that needs processing or is being processed has one {@link QueueNode} in one map; the node
 * <em>is</em> the FIFO link (an intrusive list) and carries the item's state, so a cycle costs three map
 * operations and two small allocations, an add of an item that is already waiting allocates nothing, and
 * the lock is held for a few dozen instructions. The map is a plain {@code HashMap}: its tree bins keep
 * lookups logarithmic even when item hash codes collide on purpose (object names are chosen by users).
 *
 * <p><b>Item states</b> (client-go's sets in brackets):
 * <pre>
 *   (absent) --add--> QUEUED [dirty, in queue] --get--> PROCESSING [processing]
 *   PROCESSING --add--> PROCESSING_DIRTY [dirty + processing] --done--> QUEUED
 *   PROCESSING --done--> (absent)
 * </pre>
 *
 * <p>The order in which ready items are handed out is the {@link ReadyList}'s: FIFO for client-go's queue,
 * priority bands with aging for the priority queue. Everything else — states, single flight, delays,
 * shutdown, drain, metrics — is this class's, the same for both. Every item has a priority (0 unless a
 * priority queue's caller gives one): a re-add raises a dirty item's priority to the higher of the two.
 *
 * <p><b>Invariants</b>, under {@code lock}:
 * <ul>
 *   <li>{@code nodes} holds exactly the items that are dirty or being processed;</li>
 *   <li>a node is linked in the ready list {@code ready} if and only if its state is {@code QUEUED}, so no
 *       item is queued twice or handed to two workers;</li>
 *   <li>with metrics on, a node is linked in the in-flight list ({@code inFlightChain}, ordered by start
 *       time) if and only if it is being processed, and {@code startedSum} is the sum of their start
 *       times (modulo 2^64, which is exact for differences).</li>
 * </ul>
 *
 * <p>Two locks, never nested the other way round: {@code lock} guards the queue, {@code delayLock} the
 * waiting heap and the timer thread. The timer thread takes {@code lock} (through {@link #add}) while
 * holding {@code delayLock}; nothing takes {@code delayLock} while holding {@code lock}.
 */
class DefaultWorkQueue<T> implements RateLimitingQueue<T> {

    private final String name;
    private final Clock clock;
    private final RateLimiter<T> rateLimiter;
    private final QueueMetrics metrics;
    private final ThreadFactory timerThreadFactory;

    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled when a node is queued while a getter waits, and (all) on shutdown. */
    private final Condition itemQueued = lock.newCondition();
    /** Signalled (all) when {@code nodes} becomes empty while a drain waits, and on shutdown. */
    private final Condition drained = lock.newCondition();

    private final HashMap<T, QueueNode<T>> nodes = new HashMap<>();
    private final ReadyList<T> ready;
    /** {@code ready::newNode}, made once: {@code computeIfAbsent} then allocates no function per add. */
    private final Function<T, QueueNode<T>> newNode;
    /** Getters blocked in {@link #get()}: a queued item signals only when someone waits. */
    private int waitingGetters;

    private final NodeChain<T> inFlightChain = new NodeChain<>();
    private long startedSum;
    private int inFlight;
    /** Written under {@code lock}; read without it as a fast path. */
    private volatile boolean shuttingDown;
    /** How many {@link #shutDownWithDrain} calls are waiting. */
    private int drainWaiters;
    /** Incremented by every {@link #shutDown()}: a drain that sees it change has been released. */
    private long shutDownCalls;

    private final ReentrantLock delayLock = new ReentrantLock();
    /** Signalled when the earliest ready time moves earlier, and on shutdown. */
    private final Condition waitingChanged = delayLock.newCondition();
    /** Guarded by {@code delayLock}. */
    private final WaitingHeap<T> waiting = new WaitingHeap<>();
    /** Guarded by {@code delayLock}: started on the first positive delay, at most once. */
    private Thread timer;
    /** Guarded by {@code delayLock}. */
    private boolean timerStopped;

    /**
     * @param ready the order of ready items: a fresh {@link FifoReadyList} or {@link PriorityReadyList}
     * @param depthByPriority whether {@code workqueue_depth} has a {@code priority} tag
     */
    DefaultWorkQueue(
            String name,
            Clock clock,
            RateLimiter<T> rateLimiter,
            MeterRegistry meterRegistry,
            ThreadFactory timerThreadFactory,
            ReadyList<T> ready,
            boolean depthByPriority) {
        this.name = name;
        this.clock = clock;
        this.rateLimiter = rateLimiter;
        this.timerThreadFactory = timerThreadFactory;
        this.ready = ready;
        this.newNode = ready::newNode;
        this.metrics = meterRegistry != null && !name.isEmpty()
                ? new MicrometerQueueMetrics(name, meterRegistry, this::inFlightAges, depthByPriority)
                : QueueMetrics.NOOP;
    }

    // ---- WorkQueue

    @Override
    public void add(T item) {
        add(item, 0);
    }

    /**
     * {@link #add(Object)} at {@code priority}: a new item is queued at it, a dirty item is raised to it if
     * it is higher (moving to the back of that priority, if queued).
     */
    public void add(T item, int priority) {
        Objects.requireNonNull(item, "item");
        lock.lock();
        try {
            if (shuttingDown) {
                return;
            }
            QueueNode<T> node = nodes.computeIfAbsent(item, newNode);
            switch (node.state) {
                case NEW -> {
                    node.priority = priority;
                    markDirty(node);
                    enqueue(node);
                }
                case PROCESSING -> {
                    node.priority = priority; // the re-add's, not the one it is being processed at
                    markDirty(node);
                    node.state = PROCESSING_DIRTY; // done() queues it again
                }
                case QUEUED -> {
                    if (priority > node.priority) {
                        metrics.reprioritize(node.priority, priority);
                        ready.raise(node, priority);
                    }
                }
                default -> { // PROCESSING_DIRTY
                    if (priority > node.priority) {
                        metrics.reprioritize(node.priority, priority);
                        node.priority = priority;
                    }
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Caller holds {@code lock}. */
    private void markDirty(QueueNode<T> node) {
        if (metrics.enabled()) {
            node.dirtySince = clock.nanoTime();
            metrics.add(node.priority);
        }
    }

    /** Caller holds {@code lock}. */
    private void enqueue(QueueNode<T> node) {
        node.state = QUEUED;
        ready.add(node);
        if (waitingGetters > 0) {
            itemQueued.signal();
        }
    }

    @Override
    public T get() throws InterruptedException {
        lock.lock();
        try {
            while (ready.isEmpty() && !shuttingDown) {
                waitingGetters++;
                try {
                    itemQueued.await();
                } finally {
                    waitingGetters--;
                }
            }
            QueueNode<T> node = ready.poll();
            if (node == null) {
                return null; // shutting down and empty
            }
            node.state = PROCESSING;
            if (metrics.enabled()) {
                startProcessing(node);
            }
            return node.item;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void done(T item) {
        Objects.requireNonNull(item, "item");
        lock.lock();
        try {
            QueueNode<T> node = nodes.get(item);
            if (node == null || node.state == QUEUED) {
                return; // not being processed
            }
            if (metrics.enabled()) {
                finishProcessing(node);
            }
            if (node.state == PROCESSING_DIRTY) {
                enqueue(node);
            } else {
                nodes.remove(item);
                if (drainWaiters > 0 && nodes.isEmpty()) {
                    drained.signalAll();
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Metrics: caller holds {@code lock}; appends {@code node} to the in-flight list. */
    private void startProcessing(QueueNode<T> node) {
        long now = clock.nanoTime();
        metrics.get(now - node.dirtySince, node.priority);
        node.startedAt = now;
        inFlightChain.append(node);
        startedSum += now;
        inFlight++;
    }

    /** Metrics: caller holds {@code lock}; unlinks {@code node} from the in-flight list. */
    private void finishProcessing(QueueNode<T> node) {
        metrics.done(clock.nanoTime() - node.startedAt);
        inFlightChain.unlink(node);
        startedSum -= node.startedAt;
        inFlight--;
    }

    /** Metrics: the summed and the longest age of the items being processed, read by the gauges. */
    private QueueMetrics.InFlightAges inFlightAges() {
        lock.lock();
        try {
            long now = clock.nanoTime();
            QueueNode<T> oldest = inFlightChain.oldest;
            if (oldest == null) {
                return new QueueMetrics.InFlightAges(0, 0);
            }
            return new QueueMetrics.InFlightAges(inFlight * now - startedSum, now - oldest.startedAt);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int len() {
        lock.lock();
        try {
            return ready.size();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void shutDown() {
        lock.lock();
        try {
            shutDownCalls++; // releases every waiting shutDownWithDrain, as in client-go
            markShuttingDown();
            metrics.shutDown();
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
            markShuttingDown();
            long released = shutDownCalls;
            drainWaiters++;
            try {
                // Each drain honours its own deadline; only shutDown() ends all of them early.
                while (released == shutDownCalls && !nodes.isEmpty() && deadline - clock.nanoTime() > 0) {
                    clock.awaitUntil(lock, drained, deadline);
                }
            } finally {
                drainWaiters--;
            }
            boolean empty = nodes.isEmpty();
            if (drainWaiters == 0) {
                metrics.shutDown();
            }
            return empty;
        } finally {
            lock.unlock();
            stopTimer();
        }
    }

    @Override
    public boolean shuttingDown() {
        return shuttingDown;
    }

    /** Caller holds {@code lock}. */
    private void markShuttingDown() {
        shuttingDown = true;
        itemQueued.signalAll();
        drained.signalAll();
    }

    // ---- DelayingQueue

    @Override
    public void addAfter(T item, Duration delay) {
        addAfter(item, delay, 0);
    }

    /** {@link #addAfter(Object, Duration)} to be added at {@code priority}; see {@link #add(Object, int)}. */
    public void addAfter(T item, Duration delay, int priority) {
        Objects.requireNonNull(item, "item");
        Objects.requireNonNull(delay, "delay");
        if (shuttingDown) {
            return;
        }
        metrics.retry();
        if (delay.isNegative() || delay.isZero()) {
            add(item, priority);
            return;
        }
        long readyAt = deadlineAfter(delay);
        if (waiting.covers(item, readyAt, priority)) {
            return; // already waiting to be ready no later: the common case of a failing key retried often
        }
        delayLock.lock();
        try {
            if (timerStopped) {
                return;
            }
            if (waiting.offer(item, readyAt, priority)) {
                waitingChanged.signal();
            }
            if (timer == null || !timer.isAlive()) {
                // First delay, or the old timer died (an Error): never leave waiting items without one.
                timer = timerThreadFactory.newThread(this::runTimer);
                timer.start();
            }
        } finally {
            delayLock.unlock();
        }
    }

    /**
     * The timer thread: moves waiting items to the queue when their time comes. It runs until
     * {@link #stopTimer()}: an interrupt does not end it (waiting items must not be stranded), and an
     * exception from an item's {@code hashCode} or {@code equals} goes to the thread's uncaught-exception
     * handler and costs only that item.
     */
    private void runTimer() {
        List<WaitingHeap.Entry<T>> due = new ArrayList<>();
        delayLock.lock();
        try {
            while (!timerStopped) {
                long now = clock.nanoTime();
                while (!waiting.isEmpty() && waiting.peekReadyAt() - now <= 0) {
                    due.add(waiting.poll());
                }
                if (!due.isEmpty()) {
                    due.forEach(this::addFromTimer);
                    due.clear();
                    continue;
                }
                long deadline = waiting.isEmpty() ? Long.MAX_VALUE : waiting.peekReadyAt();
                try {
                    clock.awaitUntil(delayLock, waitingChanged, deadline);
                } catch (InterruptedException ignored) {
                    // Only stopTimer() ends this thread; the loop re-checks timerStopped.
                }
            }
        } finally {
            waiting.clear();
            delayLock.unlock();
        }
    }

    private void addFromTimer(WaitingHeap.Entry<T> entry) {
        try {
            add(entry.item, entry.priority);
        } catch (RuntimeException e) {
            Thread t = Thread.currentThread();
            t.getUncaughtExceptionHandler().uncaughtException(t, e);
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

    /** Subtraction-safe: compare the result with {@code deadline - clock.nanoTime() > 0}. */
    private long deadlineAfter(Duration d) {
        return clock.nanoTime() + ItemExponentialFailureRateLimiter.saturatedNanos(d);
    }

    // ---- RateLimitingQueue

    @Override
    public void addRateLimited(T item) {
        addRateLimited(item, 0);
    }

    /** {@link #addRateLimited(Object)} to be added at {@code priority}; see {@link #add(Object, int)}. */
    public void addRateLimited(T item, int priority) {
        addAfter(item, rateLimiter.when(item), priority);
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
