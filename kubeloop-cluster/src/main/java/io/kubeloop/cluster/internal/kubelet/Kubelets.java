package io.kubeloop.cluster.internal.kubelet;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.codec.Decoding;
import io.kubeloop.client.errors.ConflictException;
import io.kubeloop.client.errors.InvalidException;
import io.kubeloop.client.errors.NotFoundException;
import io.kubeloop.client.resource.DeleteOptions;
import io.kubeloop.client.resource.PatchOptions;
import io.kubeloop.client.resource.PatchType;
import io.kubeloop.client.resource.ResourceClient;
import io.kubeloop.clock.Clock;
import io.kubeloop.cluster.ClusterTimings;
import io.kubeloop.cluster.SimulatedNode;
import io.kubeloop.informer.ResourceEventHandler;
import io.kubeloop.informer.SharedIndexInformer;
import io.kubeloop.informer.Transforms;
import io.kubeloop.informer.reflector.ListerWatchers;
import io.kubeloop.workqueue.RateLimiters;
import io.kubeloop.workqueue.RateLimitingQueue;
import io.kubeloop.workqueue.WorkQueue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The simulated kubelets of the embedded cluster: one per node, all sharing one pod informer (all namespaces, bound
 * pods only, indexed by {@code spec.nodeName}), one work queue and a few worker threads. A kubelet registers its
 * Node, renews its Lease in {@code kube-node-lease}, posts node status, and runs the pods bound to its node through
 * their lifecycle, reporting their status as kubelet 1.32 does; see kubeloop-cluster/README.md, "Nodes and the
 * simulated kubelet".
 *
 * <p>Scale: no thread per node or pod. Heartbeats and pod transitions are timers on the clock that only enqueue a
 * key; workers (virtual threads) do the API calls, never two for the same key at once. Nodes' heartbeats are spread
 * over the interval (a golden-ratio offset per node), so 1,000 nodes renew about 100 Leases per second evenly.
 *
 * <p>Time: every Kubernetes duration (lease interval, back-off, grace period, annotations) is cluster time, scheduled
 * as {@link ClusterTimings#wall(Duration)} on the clock; timestamps written into objects are {@code clock.now()}.
 */
public final class Kubelets implements AutoCloseable {

    static final Logger log = LoggerFactory.getLogger(SimulatedNode.class);

    /** Enough concurrent API calls to keep the server busy; they block cheaply (virtual threads). */
    private static final int WORKERS = 32;

    private static final String NODE_INDEX = "spec.nodeName";
    private static final double GOLDEN = 0.6180339887498949;

    private final KubernetesClient client;
    private final Clock clock;
    private final ClusterTimings timings;
    private final ResourceClient<Pod> pods;
    private final ResourceClient<Node> nodeClient;
    private final ResourceClient<Lease> leaseClient;
    private final JsonMapper mapper = Decoding.standard().mapper();

    private final SharedIndexInformer<Pod> informer;
    private final RateLimitingQueue<Object> queue;
    private final List<Thread> workers = new ArrayList<>();

    /** Nodes by name, in the order they were added. */
    private final Map<String, NodeKubelet> nodes = new ConcurrentHashMap<>();

    private final List<NodeKubelet> ordered = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** The simulated pods by namespace/name (each only touched by its key's worker). */
    private final Map<String, PodRuntime> runtimes = new ConcurrentHashMap<>();

    private final ReentrantLock addLock = new ReentrantLock();
    private final AtomicInteger numbers = new AtomicInteger();
    /** The pending timer of each periodic node task. */
    private final Map<Object, Clock.Scheduled> tickers = new ConcurrentHashMap<>();

    private volatile boolean closed;

    private record LeaseTask(NodeKubelet node) {}

    private record StatusTask(NodeKubelet node) {}

    private Kubelets(KubernetesClient client, Clock clock, ClusterTimings timings) {
        this.client = client;
        this.clock = clock;
        this.timings = timings;
        this.pods = client.resources(Pod.class).inAnyNamespace();
        this.nodeClient = client.resources(Node.class);
        this.leaseClient = client.resources(Lease.class).inNamespace(NodeKubelet.LEASE_NAMESPACE);
        this.queue = WorkQueue.<Object>builder()
                .name("kubelets")
                .clock(clock)
                .rateLimiter(RateLimiters.exponentialFailure(Duration.ofMillis(5), Duration.ofSeconds(10)))
                .buildRateLimiting();
        this.informer = SharedIndexInformer.builder(
                        ListerWatchers.forClient(pods, o -> o.toBuilder()
                                .fieldSelector("spec.nodeName!=")
                                .build()),
                        Pod.class)
                .name("kubelet-pods")
                .clock(clock)
                .indexers(Map.of(NODE_INDEX, p -> List.of(nodeName(p))))
                .transform(Transforms.stripManagedFields())
                .build();
    }

    /**
     * Registers {@code nodes} and starts their kubelets; returns once the pod informer has synced (the Nodes are
     * registered right after, by the workers).
     *
     * @param client an admin client of the API server (the kubelets write Nodes, Leases, pod status, and delete pods)
     * @param clock the API server's clock
     */
    public static Kubelets start(
            KubernetesClient client, Clock clock, ClusterTimings timings, List<NodeTemplate> nodes) {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(timings, "timings");
        Objects.requireNonNull(nodes, "nodes");
        Kubelets k = new Kubelets(client, clock, timings);
        k.run();
        for (NodeTemplate t : nodes) {
            k.addNode(t);
        }
        return k;
    }

    private void run() {
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod pod, boolean initial) {
                route(pod);
            }

            @Override
            public void onUpdate(Pod old, Pod pod) {
                route(pod);
            }

            @Override
            public void onDelete(Pod pod, boolean finalStateUnknown) {
                route(pod);
            }
        });
        informer.start();
        for (int i = 0; i < WORKERS; i++) {
            workers.add(Thread.ofVirtual().name("kubelet-worker-" + i).start(() -> queue.runWorker(this::sync)));
        }
        if (!SharedIndexInformer.waitForCacheSync(Clock.system(), Duration.ofSeconds(60), informer::hasSynced)) {
            close();
            throw new IllegalStateException("the kubelets' pod informer did not sync within 60 s");
        }
    }

    private void route(Pod pod) {
        String key = key(pod);
        if (nodes.containsKey(nodeName(pod)) || runtimes.containsKey(key)) {
            queue.add(key);
        }
    }

    /**
     * Adds a node and starts its kubelet, which registers the Node.
     *
     * @throws IllegalArgumentException if a node of that name is already simulated
     */
    public SimulatedNode addNode(NodeTemplate template) {
        Objects.requireNonNull(template, "template");
        if (closed) {
            throw new IllegalStateException("the kubelets are closed");
        }
        NodeKubelet node;
        addLock.lock();
        try {
            if (nodes.containsKey(template.name())) {
                throw new IllegalArgumentException("node " + template.name() + " is already simulated");
            }
            int number = numbers.incrementAndGet();
            if (number > 1023) {
                throw new IllegalArgumentException(
                        "at most 1,023 nodes: the pod network 10.244.0.0/14 has one /24 per node");
            }
            node = new NodeKubelet(this, template, number);
            nodes.put(template.name(), node);
            ordered.add(node);
        } finally {
            addLock.unlock();
        }
        queue.add(new StatusTask(node));
        tick(new LeaseTask(node), timings.wall(timings.nodeLeaseRenewInterval()), node.number);
        tick(new StatusTask(node), timings.wall(timings.nodeStatusUpdateFrequency()), node.number);
        // pods already bound to it (a node added after its pods, or a cluster restarted)
        for (Pod p : informer.indexer().byIndex(NODE_INDEX, template.name())) {
            queue.add(key(p));
        }
        return node;
    }

    /**
     * When node number {@code number} first runs a periodic task of {@code period}: after {@code period × (1 +
     * frac(number × golden ratio))}, so that the nodes' heartbeats spread evenly over the interval.
     */
    static Duration firstTick(Duration period, int number) {
        double phase = (number * GOLDEN) % 1.0;
        return Duration.ofNanos(period.toNanos() + (long) (period.toNanos() * phase));
    }

    /** Enqueues {@code task} every {@code period}, first after {@link #firstTick}. */
    private void tick(Object task, Duration period, int number) {
        Duration first = firstTick(period, number);
        Runnable[] self = new Runnable[1];
        self[0] = () -> {
            if (closed) {
                return;
            }
            queue.add(task);
            tickers.put(task, clock.schedule(self[0], period));
        };
        tickers.put(task, clock.schedule(self[0], first));
    }

    /** The simulated nodes, in the order they were added. */
    public List<SimulatedNode> nodes() {
        return List.copyOf(ordered);
    }

    /**
     * The node named {@code name}.
     *
     * @throws NoSuchElementException if no such node is simulated
     */
    public SimulatedNode node(String name) {
        NodeKubelet n = nodes.get(name);
        if (n == null) {
            throw new NoSuchElementException("no simulated node named \"" + name + "\"; nodes are "
                    + ordered.stream().map(NodeKubelet::name).toList());
        }
        return n;
    }

    /**
     * Makes the containers of a running pod crash, as its kubelet would report a container killed by a signal:
     * terminated, exit code 137, reason Error; they restart per the pod's restartPolicy, with CrashLoopBackOff's
     * back-off.
     *
     * @throws NoSuchElementException if no simulated kubelet runs that pod
     */
    public void crashContainer(String namespace, String pod) {
        String key = namespace + "/" + pod;
        PodRuntime rt = runtimes.get(key);
        if (rt == null) {
            throw new NoSuchElementException("no simulated kubelet runs pod " + key
                    + " (it does not exist, is not bound to a simulated node, or its kubelet has not seen it yet)");
        }
        rt.crashRequested = true;
        queue.add(key);
    }

    @Override
    public void close() {
        closed = true;
        tickers.values().forEach(Clock.Scheduled::cancel);
        runtimes.values().forEach(rt -> {
            if (rt.timer != null) {
                rt.timer.cancel();
            }
        });
        queue.shutDown();
        informer.stop();
        // workers skip what is still queued (sync sees closed); give the calls in flight a moment to end cleanly
        long deadline = System.nanoTime() + Duration.ofSeconds(2).toNanos();
        for (Thread w : workers) {
            try {
                w.join(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        workers.forEach(Thread::interrupt);
    }

    // ---- used by NodeKubelet

    Clock clock() {
        return clock;
    }

    ClusterTimings timings() {
        return timings;
    }

    ResourceClient<Node> nodeClient() {
        return nodeClient;
    }

    ResourceClient<Lease> leases() {
        return leaseClient;
    }

    void enqueueLease(NodeKubelet node) {
        queue.add(new LeaseTask(node));
    }

    /** A stopped or partitioned kubelet is back: it registers, renews, and reports every pod afresh. */
    void resumed(NodeKubelet node) {
        queue.add(new StatusTask(node));
        queue.add(new LeaseTask(node));
        for (Pod p : informer.indexer().byIndex(NODE_INDEX, node.name())) {
            queue.add(key(p));
        }
        for (String key : node.podKeys) {
            queue.add(key);
        }
    }

    // ---- the workers

    private void sync(Object item) {
        if (closed) {
            return;
        }
        switch (item) {
            case String key -> syncPod(key);
            case LeaseTask t -> t.node().renewLease();
            case StatusTask t -> t.node().syncStatus();
            default -> throw new IllegalStateException("unknown work item " + item);
        }
    }

    private void syncPod(String key) {
        Pod cached = informer.indexer().getByKey(key).orElse(null);
        PodRuntime rt = runtimes.get(key);
        NodeKubelet node = rt != null ? rt.node : cached == null ? null : nodes.get(nodeName(cached));
        if (node == null || node.state() == SimulatedNode.State.STOPPED) {
            return;
        }
        long now = clock.nanoTime();
        if (node.state() == SimulatedNode.State.PARTITIONED) {
            // the machine runs on, but its kubelet hears nothing from the API server and reports nothing
            if (rt != null) {
                rt.advance(now);
                schedule(rt, now);
            }
            return;
        }
        if (rt != null
                && (cached == null
                        || !rt.uid.equals(cached.getMetadata().getUid())
                        || !rt.node.name().equals(nodeName(cached)))) {
            forget(rt);
            rt = null;
            node = cached == null ? null : nodes.get(nodeName(cached));
            if (node == null || node.state() != SimulatedNode.State.RUNNING) {
                if (node != null) {
                    queue.add(key); // handled when that node runs
                }
                return;
            }
        }
        if (cached == null) {
            return;
        }
        boolean fresh = rt == null;
        if (fresh) {
            String phase =
                    cached.getStatus() == null ? null : cached.getStatus().getPhase();
            if ("Succeeded".equals(phase) || "Failed".equals(phase)) {
                // a finished pod this kubelet never ran (a restarted cluster): nothing runs; delete it if asked
                if (cached.getMetadata().getDeletionTimestamp() != null) {
                    deletePod(cached);
                }
                return;
            }
            rt = new PodRuntime(key, node, cached, now, clock.now());
            runtimes.put(key, rt);
            node.podKeys.add(key);
            for (String problem : rt.sim.problems()) {
                log.warn("pod {}: ignoring annotation {}", key, problem);
            }
        }
        if (rt.deletedByKubelet) {
            return;
        }
        rt.observe(cached, now);
        if (!fresh) {
            // not on the first sync: a new pod is first reported as it is before its sandbox exists
            // (ContainerCreating), as the kubelet's first status is; the next sync, right after, goes on
            rt.advance(now);
        }
        JsonNode apiStatus = apiStatus(cached, rt.lastSent == null);
        ObjectNode desired = rt.status(apiStatus, clock.now());
        if (differs(desired, rt.lastSent != null ? rt.lastSent : apiStatus)) {
            writeStatus(rt, cached, desired);
        }
        if (rt.killed) {
            deletePod(cached);
            rt.deletedByKubelet = true;
            node.releasePodIp(rt);
        }
        schedule(rt, now);
    }

    /**
     * The pod's status as the API holds it, as JSON: whole when it is the base of the comparison (nothing written
     * yet), else only what the kubelet takes from it (the others' conditions, and PodScheduled's time), which is cheap.
     */
    private JsonNode apiStatus(Pod pod, boolean whole) {
        if (pod.getStatus() == null) {
            return JsonNodeFactory.instance.objectNode();
        }
        if (whole) {
            return mapper.valueToTree(pod.getStatus());
        }
        ObjectNode s = JsonNodeFactory.instance.objectNode();
        var conditions = s.putArray("conditions");
        for (var c : pod.getStatus().getConditions()) {
            if (!PodRuntime.KUBELET_CONDITIONS.contains(c.getType())
                    || c.getType().equals("PodScheduled")) {
                conditions.add(mapper.<JsonNode>valueToTree(c));
            }
        }
        return s;
    }

    private static final List<String> MANAGED = List.of(
            "phase",
            "conditions",
            "hostIP",
            "hostIPs",
            "podIP",
            "podIPs",
            "startTime",
            "initContainerStatuses",
            "containerStatuses");

    private static boolean differs(ObjectNode desired, JsonNode base) {
        for (String f : MANAGED) {
            if (!Objects.equals(desired.get(f), base.get(f))) {
                return true;
            }
        }
        return false;
    }

    /** A JSON merge patch of the status (lists replace whole), with the pod's uid as precondition. */
    private void writeStatus(PodRuntime rt, Pod pod, ObjectNode desired) {
        ObjectNode patch = JsonNodeFactory.instance.objectNode();
        patch.putObject("metadata").put("uid", rt.uid);
        ObjectNode status = desired.deepCopy();
        if (rt.lastSent != null) {
            rt.lastSent.propertyNames().forEach(f -> {
                if (!status.has(f)) {
                    status.putNull(f);
                }
            });
        }
        patch.set("status", status);
        try {
            pods.inNamespace(pod.getMetadata().getNamespace())
                    .patchStatus(pod.getMetadata().getName(), PatchType.MERGE, patch.toString(), PatchOptions.none());
            rt.lastSent = desired;
        } catch (NotFoundException | ConflictException | InvalidException goneOrReplaced) {
            // deleted or replaced meanwhile: the informer brings the news
            log.debug("pod {}: status not written: {}", rt.key, goneOrReplaced.getMessage());
        }
    }

    private void deletePod(Pod pod) {
        try {
            pods.inNamespace(pod.getMetadata().getNamespace())
                    .delete(
                            pod.getMetadata().getName(),
                            DeleteOptions.defaults()
                                    .withGracePeriodSeconds(0L)
                                    .withPreconditions(pod.getMetadata().getUid(), null));
        } catch (NotFoundException | ConflictException goneOrReplaced) {
            log.debug("pod {}: already gone or replaced", key(pod));
        }
    }

    private void schedule(PodRuntime rt, long now) {
        long due = rt.deletedByKubelet ? PodRuntime.NEVER : rt.nextDue();
        if (due == rt.timerDue) {
            return;
        }
        if (rt.timer != null) {
            rt.timer.cancel();
            rt.timer = null;
        }
        rt.timerDue = due;
        // the delay counts from the clock's reading now, not the sync's start: time may have moved meanwhile
        long current = Math.max(now, clock.nanoTime());
        if (due <= current) {
            rt.timerDue = PodRuntime.NEVER;
            queue.add(rt.key); // due now: no timer (a fake clock would run it only at its next step)
        } else if (due != PodRuntime.NEVER && !closed) {
            String key = rt.key;
            rt.timer = clock.schedule(() -> queue.add(key), Duration.ofNanos(due - current));
        }
    }

    private void forget(PodRuntime rt) {
        if (rt.timer != null) {
            rt.timer.cancel();
        }
        rt.node.releasePodIp(rt);
        rt.node.podKeys.remove(rt.key);
        runtimes.remove(rt.key, rt);
    }

    static String key(Pod pod) {
        return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
    }

    private static String nodeName(Pod pod) {
        return pod.getSpec() == null || pod.getSpec().getNodeName() == null
                ? ""
                : pod.getSpec().getNodeName();
    }
}
