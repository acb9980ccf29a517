package io.kubeloop.cluster.internal.nodelifecycle;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.kubeloop.client.errors.NotFoundException;
import io.kubeloop.client.resource.DeleteOptions;
import io.kubeloop.clock.Clock;
import io.kubeloop.cluster.ClusterTimings;
import io.kubeloop.controller.ControllerClient;
import io.kubeloop.controller.Manager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kube-controller-manager's pod garbage collector (pkg/controller/podgc), every {@code wall(20 s)}:
 * <ul>
 *   <li><b>terminated pods</b> (phase Succeeded or Failed) beyond {@code --terminated-pod-gc-threshold} (12,500) are
 *       deleted, evicted ones first, then the oldest;</li>
 *   <li><b>orphaned pods</b>, bound to a node that does not exist, are force-deleted (grace 0) once the node has been
 *       missing from the cache for 40 s (kube's quarantine) and the API server confirms it is gone; they get phase
 *       Failed and the {@code DisruptionTarget} condition (reason {@code DeletionByPodGC}) first;</li>
 *   <li><b>terminating pods on an out-of-service node</b> (NotReady with the {@code node.kubernetes.io/out-of-service}
 *       taint) and <b>terminating pods never scheduled</b> are force-deleted.</li>
 * </ul>
 * A pod not yet terminal is patched to phase Failed before its deletion (no kubelet will ever do it).
 */
public final class PodGarbageCollector {

    private static final Logger log = LoggerFactory.getLogger(PodGarbageCollector.class);

    static final int DEFAULT_TERMINATED_POD_THRESHOLD = 12_500;
    static final Duration GC_CHECK_PERIOD = Duration.ofSeconds(20);
    static final Duration QUARANTINE = Duration.ofSeconds(40);

    private final ControllerClient client;
    private final Clock clock;
    private final ClusterTimings timings;
    private final int terminatedPodThreshold;
    private final SerialLoop loop;

    /** Only the loop's thread: nodes missing from the cache, and since when (nanoTime). kube's quarantine queue. */
    private final Map<String, Long> missingSince = new HashMap<>();

    private PodGarbageCollector(Manager manager, ClusterTimings timings, int terminatedPodThreshold) {
        this.client = manager.client();
        this.clock = manager.clock();
        this.timings = timings;
        this.terminatedPodThreshold = terminatedPodThreshold;
        this.loop = new SerialLoop("pod-garbage-collector", clock, timings.wall(GC_CHECK_PERIOD), this::gc, log);
    }

    /** Adds the pod garbage collector to {@code manager}, with kube's threshold of 12,500 terminated pods. */
    public static PodGarbageCollector register(Manager manager, ClusterTimings timings) {
        return register(manager, timings, DEFAULT_TERMINATED_POD_THRESHOLD);
    }

    /** With another {@code --terminated-pod-gc-threshold}; 0 or less keeps every terminated pod. */
    static PodGarbageCollector register(Manager manager, ClusterTimings timings, int terminatedPodThreshold) {
        Objects.requireNonNull(manager, "manager");
        Objects.requireNonNull(timings, "timings");
        PodGarbageCollector gc = new PodGarbageCollector(manager, timings, terminatedPodThreshold);
        manager.informerFactory().informerFor(Pod.class);
        manager.informerFactory().informerFor(Node.class);
        manager.add(gc.loop);
        return gc;
    }

    /** How many passes have completed (tests step the clock and wait for the next one). */
    long completedPasses() {
        return loop.completedRuns();
    }

    private void gc() {
        List<Pod> pods = client.listReadOnly(Pod.class, "");
        List<Node> nodes = client.listReadOnly(Node.class, "");
        if (terminatedPodThreshold > 0) {
            gcTerminated(pods);
        }
        gcTerminating(pods, nodes);
        gcOrphaned(pods, nodes);
        gcUnscheduledTerminating(pods);
    }

    private void gcTerminated(List<Pod> pods) {
        List<Pod> terminated =
                new ArrayList<>(pods.stream().filter(Pods::isTerminated).toList());
        int deleteCount = terminated.size() - terminatedPodThreshold;
        if (deleteCount <= 0) {
            return;
        }
        log.info("Garbage collecting pods numPods={}", deleteCount);
        terminated.sort(BY_EVICTION_AND_CREATION);
        for (int i = 0; i < deleteCount; i++) {
            markFailedAndDelete(terminated.get(i), null);
        }
    }

    /** kube's {@code byEvictionAndCreationTimestamp}: evicted pods first, then the oldest, then by name. */
    private static final Comparator<Pod> BY_EVICTION_AND_CREATION = Comparator.comparing((Pod p) -> !evicted(p))
            .thenComparing(p -> Objects.requireNonNullElse(
                    NodeTaints.parse(p.getMetadata().getCreationTimestamp()), java.time.Instant.EPOCH))
            .thenComparing(p -> p.getMetadata().getName());

    private static boolean evicted(Pod pod) {
        return pod.getStatus() != null
                && "Failed".equals(pod.getStatus().getPhase())
                && "Evicted".equals(pod.getStatus().getReason());
    }

    private void gcTerminating(List<Pod> pods, List<Node> nodes) {
        Map<String, Node> byName = new HashMap<>();
        nodes.forEach(n -> byName.put(n.getMetadata().getName(), n));
        List<Pod> terminating = new ArrayList<>();
        for (Pod pod : pods) {
            if (pod.getMetadata().getDeletionTimestamp() == null || NodeTaints.empty(Pods.nodeName(pod))) {
                continue;
            }
            Node node = byName.get(Pods.nodeName(pod));
            if (node == null) {
                continue; // the orphan rule handles it
            }
            NodeCondition ready = NodeTaints.condition(node, "Ready");
            boolean isReady = ready != null && "True".equals(ready.getStatus());
            boolean outOfService =
                    NodeTaints.taints(node).stream().anyMatch(t -> NodeTaints.OUT_OF_SERVICE.equals(t.getKey()));
            if (!isReady && outOfService) {
                terminating.add(pod);
            }
        }
        if (terminating.isEmpty()) {
            return;
        }
        log.info(
                "Garbage collecting pods that are terminating on node tainted with node.kubernetes.io/out-of-service numPods={}",
                terminating.size());
        terminating.sort(BY_EVICTION_AND_CREATION);
        terminating.forEach(p -> markFailedAndDelete(p, null));
    }

    private void gcOrphaned(List<Pod> pods, List<Node> nodes) {
        Set<String> existing = new HashSet<>();
        nodes.forEach(n -> existing.add(n.getMetadata().getName()));
        long now = clock.nanoTime();
        for (Pod pod : pods) {
            String node = Pods.nodeName(pod);
            if (!NodeTaints.empty(node) && !existing.contains(node)) {
                missingSince.putIfAbsent(node, now);
            }
        }
        long quarantine = timings.wall(QUARANTINE).toNanos();
        Set<String> deleted = new HashSet<>();
        for (var it = missingSince.entrySet().iterator(); it.hasNext(); ) {
            var e = it.next();
            if (existing.contains(e.getKey())) {
                it.remove();
                continue;
            }
            if (now - e.getValue() < quarantine) {
                continue;
            }
            it.remove(); // checked now; added again (with a new quarantine) if its pods remain
            try {
                if (client.apiReader().get(Node.class, "", e.getKey()).isEmpty()) {
                    deleted.add(e.getKey());
                }
            } catch (RuntimeException ex) {
                log.error("Error while getting node node=\"{}\": {}", e.getKey(), ex.toString());
            }
        }
        for (Pod pod : pods) {
            if (!deleted.contains(Pods.nodeName(pod))) {
                continue;
            }
            log.info(
                    "Found orphaned Pod assigned to the Node, deleting pod=\"{}/{}\" node=\"{}\"",
                    pod.getMetadata().getNamespace(),
                    pod.getMetadata().getName(),
                    Pods.nodeName(pod));
            PodCondition condition = new PodCondition();
            condition.setType("DisruptionTarget");
            condition.setStatus("True");
            condition.setReason("DeletionByPodGC");
            condition.setMessage("PodGC: node no longer exists");
            if (markFailedAndDelete(pod, condition)) {
                log.info(
                        "Forced deletion of orphaned Pod succeeded pod=\"{}/{}\"",
                        pod.getMetadata().getNamespace(),
                        pod.getMetadata().getName());
            }
        }
    }

    private void gcUnscheduledTerminating(List<Pod> pods) {
        for (Pod pod : pods) {
            if (pod.getMetadata().getDeletionTimestamp() == null || !NodeTaints.empty(Pods.nodeName(pod))) {
                continue;
            }
            log.info(
                    "Found unscheduled terminating Pod not assigned to any Node, deleting pod=\"{}/{}\"",
                    pod.getMetadata().getNamespace(),
                    pod.getMetadata().getName());
            if (markFailedAndDelete(pod, null)) {
                log.info(
                        "Forced deletion of unscheduled terminating Pod succeeded pod=\"{}/{}\"",
                        pod.getMetadata().getNamespace(),
                        pod.getMetadata().getName());
            }
        }
    }

    /** kube's {@code markFailedAndDeletePodWithCondition}; false (logged) when it failed. */
    private boolean markFailedAndDelete(Pod cached, PodCondition condition) {
        String key =
                cached.getMetadata().getNamespace() + "/" + cached.getMetadata().getName();
        log.info("PodGC is force deleting Pod pod=\"{}\"", key);
        try {
            Pod pod = cached;
            String phase =
                    cached.getStatus() == null ? null : cached.getStatus().getPhase();
            if (!"Succeeded".equals(phase) && !"Failed".equals(phase)) {
                Pod modified = new PodBuilder(cached).build();
                if (modified.getStatus() == null) {
                    modified.setStatus(new io.fabric8.kubernetes.api.model.PodStatus());
                }
                modified.getStatus().setPhase("Failed");
                if (condition != null) {
                    Pods.setCondition(modified.getStatus(), condition, clock.now());
                }
                pod = client.patchStatus(cached, modified);
            }
            client.delete(pod, DeleteOptions.defaults().withGracePeriodSeconds(0L));
            return true;
        } catch (NotFoundException gone) {
            return true;
        } catch (RuntimeException e) {
            log.error("Failed to delete pod pod=\"{}\": {}", key, e.toString());
            return false;
        }
    }
}
