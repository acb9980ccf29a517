package io.kubeloop.cluster.internal.scheduler;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.kubeloop.client.codec.Decoding;
import io.kubeloop.client.errors.ConflictException;
import io.kubeloop.client.errors.KubernetesApiException;
import io.kubeloop.client.errors.NotFoundException;
import io.kubeloop.client.resource.PatchType;
import io.kubeloop.clock.Clock;
import io.kubeloop.cluster.ClusterTimings;
import io.kubeloop.controller.Controller;
import io.kubeloop.controller.ControllerClient;
import io.kubeloop.controller.EventFilter;
import io.kubeloop.controller.EventHandler;
import io.kubeloop.controller.EventRecorder;
import io.kubeloop.controller.ManagedRunnable;
import io.kubeloop.controller.Manager;
import io.kubeloop.controller.Reconciler;
import io.kubeloop.controller.Request;
import io.kubeloop.controller.Result;
import io.kubeloop.workqueue.RateLimiters;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The embedded cluster's kube-scheduler ({@code default-scheduler}): binds every pending pod that is its to a node
 * that fits, or marks it unschedulable as kube-scheduler does.
 *
 * <p>Its pods: {@code spec.nodeName} empty, {@code spec.schedulerName} {@code default-scheduler} (or empty), no
 * {@code schedulingGates}, not being deleted, not ended. A pod whose {@code spec.nodeName} is set by its author is
 * never the scheduler's.
 *
 * <p>One reconcile schedules one pod: {@link SchedulerCache#schedule} decides (filters, score) and assumes the pod on
 * its node under the cache's lock — cheap, in memory, no list of pods — then the binding is POSTed outside the lock,
 * so 16 workers keep 16 bindings in flight while decisions stay one at a time. A failed binding takes the
 * assumption back and is retried after the back-off (1 s doubling to 10 s of cluster time). Success: a Normal
 * {@code Scheduled} Event {@code Successfully assigned default/web-1 to node-2}. No fit: the condition
 * {@code PodScheduled=False} reason {@code Unschedulable} with kube's message, and a Warning {@code FailedScheduling}
 * Event with the same message.
 *
 * <p>Retries of an unschedulable pod (kube's scheduling queue, simplified): the pod waits for a cluster event that
 * may help — a Node added, or changed in what scheduling reads (allocatable, labels, taints, unschedulable,
 * readiness), or a bound pod deleted or ended — and at most 5 minutes of cluster time; an event that comes while
 * the pod's back-off runs (1 s after the first failure, doubling to 10 s) retries it when the back-off ends.
 *
 * <p>The scheduler's cache is kept by the {@link EventHandler}s of its Pod and Node watches, which update it and
 * then enqueue the pods the change may help, on one thread in event order: a reconcile never misses the node that
 * woke it.
 */
public final class Scheduler implements Reconciler<Pod> {

    private static final Logger log = LoggerFactory.getLogger(Scheduler.class);

    /** The scheduler's name: the pods' {@code spec.schedulerName} and the Events' source component. */
    public static final String NAME = "default-scheduler";

    /** The controller's name in the manager (metrics, logs, worker threads). */
    public static final String CONTROLLER_NAME = "scheduler";

    /** kube-scheduler's {@code podInitialBackoffDuration}. */
    static final Duration INITIAL_BACKOFF = Duration.ofSeconds(1);
    /** kube-scheduler's {@code podMaxBackoffDuration}. */
    static final Duration MAX_BACKOFF = Duration.ofSeconds(10);
    /** kube-scheduler's {@code podMaxInUnschedulablePodsDuration}: an unschedulable pod is retried at least this often. */
    static final Duration MAX_UNSCHEDULABLE = Duration.ofMinutes(5);

    /** Bindings in flight at once: each worker decides (one at a time, under the cache's lock) then binds. */
    static final int WORKERS = 16;

    /** kube's Event note limit ({@code record.maxNoteLength}... the Events API's 1 kB). */
    private static final int MAX_EVENT_MESSAGE = 1024;

    private final ControllerClient client;
    private final EventRecorder events;
    private final Clock clock;
    private final ClusterTimings timings;
    private final SchedulerCache cache = new SchedulerCache();
    private final Binder binder;

    /** A pod found unschedulable: its uid, failed attempts in a row and the end of its back-off (clock nanos). */
    private record Attempts(String uid, int count, long backoffUntil) {}

    /** The pods waiting for a cluster event, by request. */
    private final Map<Request, Attempts> unschedulable = new ConcurrentHashMap<>();

    private Scheduler(Manager manager, ClusterTimings timings) {
        this.client = manager.client();
        this.events = manager.eventRecorder(NAME);
        this.clock = manager.clock();
        this.timings = Objects.requireNonNull(timings, "timings");
        this.binder = new Binder(manager.kubernetesClient());
    }

    /**
     * Adds the scheduler to {@code manager} (which must watch all namespaces): a controller of pods named
     * {@value #CONTROLLER_NAME} with {@value #WORKERS} workers, watching Pods and Nodes, and a runnable that fills
     * the scheduler's cache from the informers once they have synced.
     */
    public static Controller register(Manager manager, ClusterTimings timings) {
        Objects.requireNonNull(manager, "manager");
        if (manager.namespace() != null && !manager.namespace().isEmpty()) {
            throw new IllegalArgumentException("the scheduler needs a manager of all namespaces (nodes fill up with "
                    + "pods of every namespace); this one watches only \"" + manager.namespace() + "\"");
        }
        Scheduler scheduler = new Scheduler(manager, timings);
        manager.add(scheduler.new CacheSeeder(manager));
        return manager.newControllerFor(Pod.class)
                .named(CONTROLLER_NAME)
                .withEventFilter(new EventFilter<Pod>() {
                    @Override
                    public boolean create(Pod pod, boolean isInInitialList) {
                        return isSchedulersPending(pod);
                    }

                    @Override
                    public boolean update(Pod oldPod, Pod newPod) {
                        // our own status writes (the Unschedulable condition) do not retry a pod; kube's isPodUpdated
                        return isSchedulersPending(newPod)
                                && (!isSchedulersPending(oldPod) || schedulingInputsChanged(oldPod, newPod));
                    }

                    @Override
                    public boolean delete(Pod pod, boolean finalStateUnknown) {
                        return false;
                    }
                })
                .watches(Pod.class, scheduler.new PodCacheUpdates())
                .watches(Node.class, scheduler.new NodeCacheUpdates())
                .workers(WORKERS)
                .rateLimiter(RateLimiters.exponentialFailure(timings.wall(INITIAL_BACKOFF), timings.wall(MAX_BACKOFF)))
                .complete(scheduler);
    }

    @Override
    public Result reconcile(Request request) {
        Optional<Pod> found = client.getReadOnly(Pod.class, request);
        if (found.isEmpty() || !isSchedulersPending(found.get())) {
            unschedulable.remove(request);
            return Result.done();
        }
        Pod pod = found.get();
        String uid = pod.getMetadata().getUid();
        Attempts attempts = unschedulable.get(request);
        if (attempts != null && !Objects.equals(attempts.uid(), uid)) {
            unschedulable.remove(request); // another pod of the same name
            attempts = null;
        }
        long now = clock.nanoTime();
        if (attempts != null && attempts.backoffUntil() - now > 0) {
            return Result.requeueAfter(Duration.ofNanos(attempts.backoffUntil() - now));
        }
        return switch (cache.schedule(pod)) {
            case SchedulerCache.Decision.AlreadyPlaced placed -> Result.done();
            case SchedulerCache.Decision.Fit fit -> bind(request, pod, fit.node());
            case SchedulerCache.Decision.Unfit unfit -> unschedulable(request, pod, unfit.message(), attempts, now);
        };
    }

    private Result bind(Request request, Pod pod, String node) {
        unschedulable.remove(request);
        String uid = pod.getMetadata().getUid();
        try {
            binder.bind(pod, node);
        } catch (NotFoundException e) {
            // deleted meanwhile, most likely: the next reconcile, after the back-off, reads the cache and knows
            cache.forget(uid);
            log.debug("binding pod {} to node {}: not found: {}", request, node, e.getMessage());
            return Result.requeue();
        } catch (ConflictException e) {
            cache.forget(uid); // bound meanwhile (by an earlier binding whose answer was lost, or someone else)
            log.debug("pod {} was bound already: {}", request, e.getMessage());
            return Result.done();
        } catch (KubernetesApiException | UncheckedIOException e) {
            cache.forget(uid);
            log.warn(
                    "binding pod {} to node {} failed, retrying after the back-off: {}", request, node, e.getMessage());
            events.event(
                    pod,
                    EventRecorder.WARNING,
                    "FailedScheduling",
                    truncate("running Bind plugin \"DefaultBinder\": " + e.getMessage()));
            throw e;
        }
        log.debug("bound pod {} to node {}", request, node);
        events.eventf(
                pod,
                EventRecorder.NORMAL,
                "Scheduled",
                "Successfully assigned %s/%s to %s",
                pod.getMetadata().getNamespace(),
                pod.getMetadata().getName(),
                node);
        return Result.done();
    }

    private Result unschedulable(Request request, Pod pod, String message, Attempts previous, long now) {
        int count = previous == null ? 1 : previous.count() + 1;
        unschedulable.put(
                request,
                new Attempts(
                        pod.getMetadata().getUid(),
                        count,
                        now + timings.wall(backoff(count)).toNanos()));
        log.debug("unable to schedule pod {}; no fit; waiting: {}", request, message);
        events.event(pod, EventRecorder.WARNING, "FailedScheduling", truncate(message));
        markUnschedulable(pod, message);
        return Result.requeueAfter(timings.wall(MAX_UNSCHEDULABLE));
    }

    /** kube's pod back-off: 1 s doubling per failed attempt, at most 10 s (cluster time). */
    static Duration backoff(int attempts) {
        Duration d = INITIAL_BACKOFF;
        for (int i = 1; i < attempts && d.compareTo(MAX_BACKOFF) < 0; i++) {
            d = d.multipliedBy(2);
        }
        return d.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : d;
    }

    /**
     * Sets {@code PodScheduled=False, reason Unschedulable} with {@code message} when the pod does not say so already
     * (kube's {@code updatePod}: a strategic merge patch of the condition; the transition time is kept while the
     * status stays False).
     */
    private void markUnschedulable(Pod pod, String message) {
        PodCondition existing = null;
        if (pod.getStatus() != null && pod.getStatus().getConditions() != null) {
            for (PodCondition c : pod.getStatus().getConditions()) {
                if ("PodScheduled".equals(c.getType())) {
                    existing = c;
                }
            }
        }
        boolean wasFalse = existing != null && "False".equals(existing.getStatus());
        if (wasFalse && "Unschedulable".equals(existing.getReason()) && message.equals(existing.getMessage())) {
            return;
        }
        String transition = wasFalse && existing.getLastTransitionTime() != null
                ? existing.getLastTransitionTime()
                : DateTimeFormatter.ISO_INSTANT.format(clock.now().truncatedTo(ChronoUnit.SECONDS));
        ObjectNode patch = Decoding.standard().mapper().createObjectNode();
        ObjectNode condition = patch.putObject("status").putArray("conditions").addObject();
        condition.put("type", "PodScheduled");
        condition.put("status", "False");
        condition.putNull("lastProbeTime");
        condition.put("lastTransitionTime", transition);
        condition.put("reason", "Unschedulable");
        condition.put("message", message);
        try {
            client.patchStatus(pod, PatchType.STRATEGIC, patch.toString());
        } catch (NotFoundException e) {
            // deleted meanwhile: nothing to report on
        }
    }

    private static String truncate(String message) {
        return message.length() <= MAX_EVENT_MESSAGE ? message : message.substring(0, MAX_EVENT_MESSAGE - 3) + "...";
    }

    /** Whether {@code pod} waits for this scheduler. */
    static boolean isSchedulersPending(Pod pod) {
        PodSpec spec = pod.getSpec();
        if (spec == null || pod.getMetadata().getDeletionTimestamp() != null || SchedulerCache.isTerminal(pod)) {
            return false;
        }
        String nodeName = spec.getNodeName();
        String schedulerName = spec.getSchedulerName();
        return (nodeName == null || nodeName.isEmpty())
                && (schedulerName == null || schedulerName.isEmpty() || NAME.equals(schedulerName))
                && (spec.getSchedulingGates() == null
                        || spec.getSchedulingGates().isEmpty());
    }

    private static boolean schedulingInputsChanged(Pod oldPod, Pod newPod) {
        return !Objects.equals(oldPod.getSpec(), newPod.getSpec())
                || !Objects.equals(
                        oldPod.getMetadata().getLabels(), newPod.getMetadata().getLabels());
    }

    private static boolean isBoundAndRunning(Pod pod) {
        String nodeName = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
        return nodeName != null && !nodeName.isEmpty() && !SchedulerCache.isTerminal(pod);
    }

    /**
     * Kube's queueing hints, simplified: wakes every unschedulable pod — at once if its back-off has run out, else
     * when it does.
     */
    private void wakeUnschedulable(EventHandler.Queue queue) {
        long now = clock.nanoTime();
        unschedulable.forEach(
                (request, attempts) -> queue.addAfter(request, Duration.ofNanos(attempts.backoffUntil() - now)));
    }

    /** Keeps the cache's pods; a bound pod's deletion or end wakes the unschedulable pods. */
    private final class PodCacheUpdates implements EventHandler<Pod> {
        @Override
        public void onCreate(Pod pod, boolean isInInitialList, Queue queue) {
            cache.podChanged(pod);
        }

        @Override
        public void onUpdate(Pod oldPod, Pod newPod, Queue queue) {
            cache.podChanged(newPod);
            if (isBoundAndRunning(oldPod) && !isBoundAndRunning(newPod)) {
                wakeUnschedulable(queue);
            }
        }

        @Override
        public void onDelete(Pod pod, boolean finalStateUnknown, Queue queue) {
            cache.podDeleted(pod);
            if (isBoundAndRunning(pod)) {
                wakeUnschedulable(queue);
            }
        }
    }

    /** Keeps the cache's nodes; a node's creation or a change of what scheduling reads wakes the unschedulable pods. */
    private final class NodeCacheUpdates implements EventHandler<Node> {
        @Override
        public void onCreate(Node node, boolean isInInitialList, Queue queue) {
            cache.nodeChanged(node);
            wakeUnschedulable(queue);
        }

        @Override
        public void onUpdate(Node oldNode, Node newNode, Queue queue) {
            cache.nodeChanged(newNode);
            if (schedulingInputsChanged(oldNode, newNode)) {
                wakeUnschedulable(queue);
            }
        }

        @Override
        public void onDelete(Node node, boolean finalStateUnknown, Queue queue) {
            cache.nodeDeleted(node);
        }

        /** Allocatable, labels, spec (taints, unschedulable) or the Ready condition's status changed. */
        private static boolean schedulingInputsChanged(Node a, Node b) {
            return !Objects.equals(a.getMetadata().getLabels(), b.getMetadata().getLabels())
                    || !Objects.equals(a.getSpec(), b.getSpec())
                    || !Objects.equals(
                            a.getStatus() == null ? null : a.getStatus().getAllocatable(),
                            b.getStatus() == null ? null : b.getStatus().getAllocatable())
                    || !Objects.equals(ready(a), ready(b));
        }

        private static String ready(Node n) {
            if (n.getStatus() == null || n.getStatus().getConditions() == null) {
                return null;
            }
            for (NodeCondition c : n.getStatus().getConditions()) {
                if ("Ready".equals(c.getType())) {
                    return c.getStatus();
                }
            }
            return null;
        }
    }

    /**
     * Fills the cache from the informers' caches once they have synced — before the scheduler's workers start (the
     * manager starts the runnables that need no leader election first) — so the first decisions see every node even
     * if the watches' handlers have not yet delivered their initial lists; closes the binder on shutdown.
     */
    private final class CacheSeeder implements ManagedRunnable {
        private final Manager manager;

        CacheSeeder(Manager manager) {
            this.manager = manager;
        }

        @Override
        public void start() {
            cache.seed(
                    manager.informerFactory().informerFor(Node.class).indexer().list(),
                    manager.informerFactory().informerFor(Pod.class).indexer().list());
        }

        @Override
        public void stop(Duration timeout) {
            binder.close();
        }

        @Override
        public boolean needsLeaderElection() {
            return false;
        }

        @Override
        public String toString() {
            return "scheduler cache";
        }
    }
}
