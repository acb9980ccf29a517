package io.kubeloop.cluster.internal.nodelifecycle;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.kubeloop.client.errors.NotFoundException;
import io.kubeloop.clock.Clock;
import io.kubeloop.cluster.ClusterTimings;
import io.kubeloop.controller.Controller;
import io.kubeloop.controller.ControllerClient;
import io.kubeloop.controller.EventFilter;
import io.kubeloop.controller.EventRecorder;
import io.kubeloop.controller.Manager;
import io.kubeloop.controller.Request;
import io.kubeloop.controller.Result;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kube-controller-manager's taint eviction controller (pkg/controller/tainteviction, {@code taint-eviction-controller}
 * since 1.29): deletes the pods of a node with NoExecute taints — at once when a taint is not tolerated, else when the
 * shortest {@code tolerationSeconds} of the tolerations used has passed; a deletion still pending is cancelled when the
 * taints go (or become tolerated forever). Before deleting, the pod gets the {@code DisruptionTarget} condition
 * (reason {@code DeletionByTaintManager}); the deletion is an ordinary one, with the pod's grace period, so a pod on a
 * dead node stays Terminating.
 *
 * <p>When the count starts: kube starts it when its taint manager sees the pod on the tainted node, in memory, so a
 * restarted kube-controller-manager starts counting again. Here each taint's count starts at its {@code timeAdded}
 * (refined to the moment this controller saw the taint appear, since {@code timeAdded} has whole seconds), or when the
 * pod was bound to the node ({@code PodScheduled}) if that is later: the same deadlines as kube's while the control
 * plane runs, and the same again after {@code restartControllers()}. Cluster time: the deadline is
 * {@code start + wall(tolerationSeconds)} on the clock.
 */
public final class TaintEvictionController {

    private static final Logger log = LoggerFactory.getLogger(TaintEvictionController.class);

    static final String COMPONENT = "taint-eviction-controller";

    private final ControllerClient client;
    private final Clock clock;
    private final ClusterTimings timings;
    private final EventRecorder recorder;

    /** Pods whose deletion is scheduled ({@code namespace/name} → deadline): kube's TimedWorkerQueue. */
    private final ConcurrentHashMap<String, Instant> scheduled = new ConcurrentHashMap<>();

    /** Per node: when this controller first saw each of its NoExecute taints (key|effect|timeAdded). */
    private final ConcurrentHashMap<String, Map<String, Instant>> taintsSeen = new ConcurrentHashMap<>();

    private TaintEvictionController(Manager manager, ClusterTimings timings) {
        this.client = manager.client();
        this.clock = manager.clock();
        this.timings = timings;
        this.recorder = manager.eventRecorder(COMPONENT);
    }

    /** Adds the taint eviction controller to {@code manager}. */
    public static Controller register(Manager manager, ClusterTimings timings) {
        Objects.requireNonNull(manager, "manager");
        Objects.requireNonNull(timings, "timings");
        TaintEvictionController c = new TaintEvictionController(manager, timings);
        Pods.indexByNode(manager);
        ControllerClient client = manager.client();
        return manager.newControllerFor(Pod.class)
                .named(COMPONENT)
                .workers(4)
                .withEventFilter(new EventFilter<Pod>() {
                    @Override
                    public boolean create(Pod pod, boolean isInInitialList) {
                        return !NodeTaints.empty(Pods.nodeName(pod));
                    }

                    @Override
                    public boolean update(Pod oldPod, Pod newPod) {
                        // kube's PodUpdated: only a new node or new tolerations change the decision
                        return !Objects.equals(Pods.nodeName(oldPod), Pods.nodeName(newPod))
                                || !Objects.equals(
                                        oldPod.getSpec().getTolerations(),
                                        newPod.getSpec().getTolerations());
                    }
                })
                .watches(
                        Node.class,
                        node -> Pods.onNode(client, node.getMetadata().getName()).stream()
                                .map(Request::of)
                                .toList(),
                        new EventFilter<Node>() {
                            @Override
                            public boolean create(Node node, boolean isInInitialList) {
                                return !NodeTaints.noExecute(node).isEmpty();
                            }

                            @Override
                            public boolean update(Node oldNode, Node newNode) {
                                return !NodeTaints.noExecute(oldNode).equals(NodeTaints.noExecute(newNode));
                            }
                        })
                .complete(c::reconcile);
    }

    private Result reconcile(Request request) {
        String key = request.namespace() + "/" + request.name();
        Pod pod = client.getReadOnly(Pod.class, request).orElse(null);
        if (pod == null) {
            scheduled.remove(key);
            return Result.done();
        }
        if (pod.getMetadata().getDeletionTimestamp() != null) {
            scheduled.remove(key); // being deleted already (by us or anyone): nothing left to do
            return Result.done();
        }
        String nodeName = Pods.nodeName(pod);
        Node node = NodeTaints.empty(nodeName)
                ? null
                : client.getReadOnly(Node.class, "", nodeName).orElse(null);
        if (node == null && !NodeTaints.empty(nodeName)) {
            taintsSeen.remove(nodeName);
        }
        List<Taint> taints = node == null ? List.of() : NodeTaints.noExecute(node);
        Instant now = clock.now();
        Map<String, Instant> seen = node == null ? Map.of() : seen(nodeName, taints, now);
        if (taints.isEmpty()) {
            cancel(pod, key);
            return Result.done();
        }
        List<Toleration> tolerations = pod.getSpec().getTolerations();
        Instant bound = boundAt(pod);
        Instant deadline = null;
        for (Taint taint : taints) {
            Toleration used = NodeTaints.firstTolerating(tolerations, taint);
            if (used == null) {
                log.info(
                        "Not all taints are tolerated after update for pod on node pod=\"{}\" node=\"{}\"",
                        key,
                        nodeName);
                evict(pod, key);
                return Result.done();
            }
            Long seconds = used.getTolerationSeconds();
            if (seconds == null) {
                continue; // tolerated forever
            }
            Instant start = seen.getOrDefault(id(taint), now);
            if (bound != null && bound.isAfter(start)) {
                start = bound;
            }
            Instant due = seconds <= 0 ? now : start.plus(timings.wallSeconds(seconds));
            if (deadline == null || due.isBefore(deadline)) {
                deadline = due;
            }
        }
        if (deadline == null) {
            log.debug(
                    "Current tolerations for pod tolerate forever, cancelling any scheduled deletion pod=\"{}\"", key);
            cancel(pod, key);
            return Result.done();
        }
        if (!deadline.isAfter(now)) {
            evict(pod, key);
            return Result.done();
        }
        scheduled.put(key, deadline);
        return Result.requeueAfter(Duration.between(now, deadline));
    }

    /**
     * When each of the node's NoExecute taints started: its {@code timeAdded}, or the moment this controller first saw
     * it when that falls within {@code timeAdded}'s second (the API keeps whole seconds). Forgets taints that are gone.
     */
    private Map<String, Instant> seen(String nodeName, List<Taint> taints, Instant now) {
        return taintsSeen.compute(nodeName, (n, old) -> {
            Map<String, Instant> next = new HashMap<>();
            for (Taint t : taints) {
                String id = id(t);
                Instant firstSeen = old == null ? null : old.get(id);
                if (firstSeen == null) {
                    Instant added = NodeTaints.parse(t.getTimeAdded());
                    boolean withinTheSecond =
                            added != null && !now.isBefore(added) && now.isBefore(added.plusSeconds(1));
                    firstSeen = added == null || withinTheSecond ? now : added;
                }
                next.put(id, firstSeen);
            }
            return next;
        });
    }

    private static String id(Taint t) {
        return t.getKey() + "|" + t.getEffect() + "|" + t.getTimeAdded();
    }

    private static Instant boundAt(Pod pod) {
        PodCondition scheduledCondition = Pods.condition(pod, "PodScheduled");
        return scheduledCondition == null || !"True".equals(scheduledCondition.getStatus())
                ? null
                : NodeTaints.parse(scheduledCondition.getLastTransitionTime());
    }

    private void cancel(Pod pod, String key) {
        if (scheduled.remove(key) != null) {
            recorder.eventf(pod, EventRecorder.NORMAL, "TaintManagerEviction", "Cancelling deletion of Pod %s", key);
        }
    }

    /** kube's {@code deletePodHandler} and {@code addConditionAndDeletePod}. */
    private void evict(Pod cached, String key) {
        log.info("Deleting pod controller=\"{}\" pod=\"{}\"", COMPONENT, key);
        recorder.eventf(cached, EventRecorder.NORMAL, "TaintManagerEviction", "Marking for deletion Pod %s", key);
        scheduled.remove(key);
        String ns = cached.getMetadata().getNamespace();
        String name = cached.getMetadata().getName();
        Pod pod = client.apiReader().get(Pod.class, ns, name).orElse(null);
        if (pod == null) {
            return;
        }
        Pod modified = new PodBuilder(pod).build();
        PodCondition target = new PodCondition();
        target.setType("DisruptionTarget");
        target.setStatus("True");
        target.setReason("DeletionByTaintManager");
        target.setMessage("Taint manager: deleting due to NoExecute taint");
        if (modified.getStatus() == null) {
            modified.setStatus(new io.fabric8.kubernetes.api.model.PodStatus());
        }
        try {
            if (Pods.setCondition(modified.getStatus(), target, clock.now())) {
                pod = client.patchStatus(pod, modified);
            }
            client.delete(pod);
        } catch (NotFoundException gone) {
            // deleted meanwhile: what we wanted
        }
    }
}
