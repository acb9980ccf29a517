package io.kubeloop.demo.internal.scenario;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Taint;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.clock.Clock;
import io.kubeloop.cluster.EmbeddedCluster;
import io.kubeloop.cluster.SimulatedNode;
import io.kubeloop.demo.PodSet;
import io.kubeloop.demo.internal.incident.IncidentTracker;
import io.kubeloop.demo.internal.view.Frame;
import io.kubeloop.informer.InformerOptions;
import io.kubeloop.informer.ResourceEventHandler;
import io.kubeloop.informer.SharedIndexInformer;
import io.kubeloop.informer.SharedInformerFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;

/**
 * The demo's own eyes on the cluster, apart from the operator's: an administrator's client (not behind any link, so
 * the scenario's network faults do not blind it) with informers on the pods of the workload's namespace and on the
 * nodes. It feeds the live view and reports to the incident tracker the two instants the operator cannot: a pod of
 * the PodSet gone (t0, when the cluster evicted or somebody else deleted it; the scenario reports its own kills
 * first) and a pod Running and Ready (t4).
 */
final class Observer implements AutoCloseable {

    private final EmbeddedCluster cluster;
    private final String namespace;
    private final String podSet;
    private final Clock clock;
    private final SharedInformerFactory factory;
    private final SharedIndexInformer<Pod> pods;
    private final SharedIndexInformer<Node> nodes;
    private volatile IncidentTracker tracker;

    Observer(KubernetesClient admin, EmbeddedCluster cluster, String namespace, String podSet, Clock clock) {
        this.cluster = cluster;
        this.namespace = namespace;
        this.podSet = podSet;
        this.clock = clock;
        this.factory = SharedInformerFactory.builder(admin)
                .clock(clock)
                .coalesceUpdates(false)
                .threadFactory(Thread.ofVirtual().name("demo-observer-", 0).factory())
                .build();
        this.pods = factory.informerFor(
                Pod.class, InformerOptions.builder().namespace(namespace).build());
        this.nodes = factory.informerFor(Node.class);
        pods.addEventHandler(new PodEvents());
    }

    /** Starts the informers and waits until they synced. */
    void start(Duration timeout) {
        factory.start();
        if (!factory.waitForAllCachesSynced(timeout)) {
            throw new IllegalStateException("the demo's own pod and node informers did not sync within " + timeout);
        }
    }

    /** From now on, report incidents to {@code tracker}. */
    void track(IncidentTracker tracker) {
        this.tracker = tracker;
    }

    /** The PodSet's pods not being deleted, by name. */
    List<Pod> livePods() {
        List<Pod> live = new ArrayList<>();
        for (Pod pod : pods.indexer().list()) {
            if (ofPodSet(pod) && !terminating(pod)) {
                live.add(pod);
            }
        }
        live.sort(Comparator.comparing(p -> p.getMetadata().getName()));
        return live;
    }

    /** The PodSet's pods Running and Ready, not being deleted. */
    int ready() {
        return (int) livePods().stream().filter(Observer::runningReady).count();
    }

    /** The node hosting most of the PodSet's live pods (the first by name on a tie). */
    String busiestNode() {
        Map<String, Integer> count = new HashMap<>();
        for (Pod pod : livePods()) {
            String node = pod.getSpec().getNodeName();
            if (node != null) {
                count.merge(node, 1, Integer::sum);
            }
        }
        return count.entrySet().stream()
                .max(Comparator.<Map.Entry<String, Integer>>comparingInt(Map.Entry::getValue)
                        .thenComparing(Map.Entry::getKey, Comparator.reverseOrder()))
                .map(Map.Entry::getKey)
                .orElseThrow(() -> new NoSuchElementException("no pod of " + podSet + " is bound to a node"));
    }

    /** One row per node, by name. */
    List<Frame.NodeRow> nodeRows() {
        Map<String, int[]> perNode = new HashMap<>();
        for (Pod pod : pods.indexer().list()) {
            String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
            if (!ofPodSet(pod) || node == null) {
                continue;
            }
            int[] c = perNode.computeIfAbsent(node, n -> new int[3]);
            if (terminating(pod)) {
                c[2]++;
            } else {
                c[0]++;
                if (runningReady(pod)) {
                    c[1]++;
                }
            }
        }
        List<Frame.NodeRow> rows = new ArrayList<>();
        List<Node> all = new ArrayList<>(nodes.indexer().list());
        all.sort(Comparator.comparing(n -> n.getMetadata().getName()));
        for (Node node : all) {
            String name = node.getMetadata().getName();
            int[] c = perNode.getOrDefault(name, new int[3]);
            rows.add(new Frame.NodeRow(name, state(node), c[0], c[1], c[2]));
        }
        return rows;
    }

    private static String state(Node node) {
        String ready = "Unknown";
        if (node.getStatus() != null && node.getStatus().getConditions() != null) {
            for (NodeCondition c : node.getStatus().getConditions()) {
                if ("Ready".equals(c.getType())) {
                    ready = "True".equals(c.getStatus())
                            ? "Ready"
                            : "False".equals(c.getStatus()) ? "NotReady" : "Unknown";
                }
            }
        }
        boolean cordoned =
                node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable());
        return cordoned ? ready + ",SchedulingDisabled" : ready;
    }

    boolean ofPodSet(Pod pod) {
        Map<String, String> labels = pod.getMetadata().getLabels();
        return labels != null && podSet.equals(labels.get(PodSet.NAME_LABEL));
    }

    static boolean terminating(Pod pod) {
        return pod.getMetadata().getDeletionTimestamp() != null;
    }

    static boolean runningReady(Pod pod) {
        if (pod.getStatus() == null || !"Running".equals(pod.getStatus().getPhase())) {
            return false;
        }
        if (pod.getStatus().getConditions() == null) {
            return false;
        }
        for (PodCondition c : pod.getStatus().getConditions()) {
            if ("Ready".equals(c.getType())) {
                return "True".equals(c.getStatus());
            }
        }
        return false;
    }

    /**
     * Why a pod went: {@code evicted} when the taint eviction marked it, or its node is stopped or tainted NoExecute
     * for being not ready or unreachable; {@code deleted} otherwise.
     */
    String cause(Pod pod) {
        if (pod.getStatus() != null && pod.getStatus().getConditions() != null) {
            for (PodCondition c : pod.getStatus().getConditions()) {
                if ("DisruptionTarget".equals(c.getType()) && "DeletionByTaintManager".equals(c.getReason())) {
                    return "evicted";
                }
            }
        }
        String nodeName = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
        if (nodeName == null) {
            return "deleted";
        }
        try {
            if (cluster.node(nodeName).state() != SimulatedNode.State.RUNNING) {
                return "evicted";
            }
        } catch (NoSuchElementException e) {
            // a node of the API only; judge by its taints
        }
        Node node = nodes.indexer().getByKey(nodeName).orElse(null);
        if (node != null && node.getSpec() != null && node.getSpec().getTaints() != null) {
            for (Taint t : node.getSpec().getTaints()) {
                if ("NoExecute".equals(t.getEffect())
                        && ("node.kubernetes.io/unreachable".equals(t.getKey())
                                || "node.kubernetes.io/not-ready".equals(t.getKey()))) {
                    return "evicted";
                }
            }
        }
        return "deleted";
    }

    private void gone(Pod pod, long nanos) {
        IncidentTracker t = tracker;
        if (t == null || !ofPodSet(pod)) {
            return;
        }
        t.podGone(
                pod.getMetadata().getNamespace(),
                pod.getMetadata().getName(),
                pod.getMetadata().getUid(),
                podSet,
                pod.getSpec() == null ? null : pod.getSpec().getNodeName(),
                cause(pod),
                nanos);
    }

    private void running(Pod pod, long nanos) {
        IncidentTracker t = tracker;
        if (t != null && ofPodSet(pod)) {
            t.podRunning(pod.getMetadata().getNamespace(), pod.getMetadata().getName(), nanos);
        }
    }

    /** t0 for deletions the scenario did not make, t4 for every pod that becomes Running and Ready. */
    private final class PodEvents implements ResourceEventHandler<Pod> {
        @Override
        public void onAdd(Pod pod, boolean isInInitialList) {
            if (!terminating(pod) && runningReady(pod)) {
                running(pod, clock.nanoTime());
            }
        }

        @Override
        public void onUpdate(Pod old, Pod pod) {
            long now = clock.nanoTime();
            if (terminating(pod)) {
                if (!terminating(old)) {
                    gone(pod, now);
                }
            } else if (runningReady(pod) && !runningReady(old)) {
                running(pod, now);
            }
        }

        @Override
        public void onDelete(Pod pod, boolean finalStateUnknown) {
            if (pod != null && !terminating(pod)) {
                gone(pod, clock.nanoTime());
            }
        }
    }

    @Override
    public void close() {
        factory.shutdown();
    }

    @Override
    public String toString() {
        return "Observer{" + namespace + "/" + podSet + "}";
    }

    static String nodeOf(Pod pod) {
        return Objects.requireNonNullElse(pod.getSpec().getNodeName(), "unscheduled");
    }
}
