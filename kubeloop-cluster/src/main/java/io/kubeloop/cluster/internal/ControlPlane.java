package io.kubeloop.cluster.internal;

import io.kubeloop.client.KubernetesClient;
import io.kubeloop.clock.Clock;
import io.kubeloop.cluster.ClusterTimings;
import io.kubeloop.cluster.EmbeddedCluster;
import io.kubeloop.cluster.internal.deployment.DeploymentController;
import io.kubeloop.cluster.internal.endpoints.EndpointSliceController;
import io.kubeloop.cluster.internal.endpoints.EndpointsController;
import io.kubeloop.cluster.internal.nodelifecycle.NodeLifecycleController;
import io.kubeloop.cluster.internal.nodelifecycle.PodGarbageCollector;
import io.kubeloop.cluster.internal.nodelifecycle.TaintEvictionController;
import io.kubeloop.cluster.internal.replicaset.ReplicaSetController;
import io.kubeloop.cluster.internal.scheduler.Scheduler;
import io.kubeloop.controller.Manager;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded cluster's kube-controller-manager and kube-scheduler: ONE {@link Manager} (all namespaces, no metrics
 * or probe ports, no leader election) on which every control-plane component registers its controllers and loops.
 *
 * <p>Invariants: at most one manager runs at a time; {@link #restart()} closes the running one (its in-flight
 * reconciles finish within {@link #SHUTDOWN}) before a new one with empty caches and queues starts, as when
 * kube-controller-manager's pod is restarted. A controller that fails logs and is retried by the runtime; a
 * component that fails to register is logged and left out, and the others run: nothing here stops the server.
 * Thread-safe.
 */
public final class ControlPlane implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedCluster.class);

    /** How long a stopping manager lets in-flight reconciles finish. */
    static final Duration SHUTDOWN = Duration.ofSeconds(5);

    /** One control-plane component: a {@code register(Manager, ClusterTimings)} of an internal package. */
    @FunctionalInterface
    interface Component {
        void register(Manager manager, ClusterTimings timings);
    }

    /** A component and the name it is logged by. */
    private record Named(String name, Component component) {}

    /**
     * Every component, in registration order (which is the order their runnables start). Adding a component is one
     * line here.
     */
    private static final List<Named> COMPONENTS = List.of(
            new Named("scheduler", Scheduler::register),
            new Named("replicaset-controller", ReplicaSetController::register),
            new Named("deployment-controller", DeploymentController::register),
            new Named("node-controller", NodeLifecycleController::register),
            new Named("taint-eviction-controller", TaintEvictionController::register),
            new Named("pod-garbage-collector", PodGarbageCollector::register),
            new Named("endpoint-controller", EndpointsController::register),
            new Named("endpointslice-controller", EndpointSliceController::register));

    private final KubernetesClient client;
    private final Clock clock;
    private final ClusterTimings timings;
    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by {@code lock}; null once closed. */
    private Manager manager;
    /** Guarded by {@code lock}. */
    private boolean closed;
    /** Guarded by {@code lock}: how many managers were started, the first included. */
    private int generation;

    private ControlPlane(KubernetesClient client, Clock clock, ClusterTimings timings) {
        this.client = client;
        this.clock = clock;
        this.timings = timings;
    }

    /**
     * Registers every component on a new manager and starts it; returns once the caches synced and the controllers
     * run.
     *
     * @param client the control plane's own admin client (closed by the caller, after this)
     * @param clock the server's clock, on which every timer and requeue runs
     */
    public static ControlPlane start(KubernetesClient client, Clock clock, ClusterTimings timings) {
        ControlPlane plane = new ControlPlane(
                Objects.requireNonNull(client, "client"),
                Objects.requireNonNull(clock, "clock"),
                Objects.requireNonNull(timings, "timings"));
        plane.lock.lock();
        try {
            plane.manager = plane.startManager();
        } finally {
            plane.lock.unlock();
        }
        return plane;
    }

    /** Guarded by {@code lock}. */
    private Manager startManager() {
        Manager m = Manager.builder(client)
                .clock(clock)
                .metricsPort(-1)
                .healthProbePort(-1)
                .gracefulShutdownTimeout(SHUTDOWN)
                .build();
        int registered = 0;
        for (Named c : COMPONENTS) {
            try {
                c.component().register(m, timings);
                registered++;
            } catch (RuntimeException e) {
                log.error("control plane: {} failed to register and does not run", c.name(), e);
            }
        }
        m.start();
        generation++;
        log.info(
                "control plane started ({} of {} components{})",
                registered,
                COMPONENTS.size(),
                generation == 1 ? "" : ", restart " + (generation - 1));
        return m;
    }

    /**
     * Stops the controllers and starts them again with empty caches and queues: what a restarted
     * kube-controller-manager does, and what shows whether an operator's objects survive it.
     *
     * @throws IllegalStateException the control plane is closed
     */
    public void restart() {
        lock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("the control plane is closed");
            }
            Manager old = manager;
            manager = null;
            old.close();
            manager = startManager();
        } finally {
            lock.unlock();
        }
    }

    /** How many times the controllers were started: 1, plus one per {@link #restart()}. */
    public int generation() {
        lock.lock();
        try {
            return generation;
        } finally {
            lock.unlock();
        }
    }

    /** Whether a manager runs and is live; {@code null} if so, else why not. */
    public String problems() {
        lock.lock();
        try {
            if (manager == null) {
                return closed ? "closed" : "not running";
            }
            return manager.livenessProblems();
        } finally {
            lock.unlock();
        }
    }

    /** Stops the controllers. Idempotent. */
    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            if (manager != null) {
                manager.close();
                manager = null;
            }
        } finally {
            lock.unlock();
        }
    }
}
