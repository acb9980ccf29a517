package io.kubeloop.cluster.internal.workloads;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.kubeloop.controller.Manager;
import io.kubeloop.controller.OwnerReferences;
import io.kubeloop.informer.SharedIndexInformer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The control plane's pod index by controller (kube's {@code PodControllerUIDIndex}, 1.31+): a pod is indexed under
 * its controller's uid, an orphan under {@link #orphanKey(String)} of its namespace — so a workload controller reads
 * the pods it owns and the orphans it might adopt without scanning every pod of the namespace (100,000 pods make a
 * scan per reconcile the bottleneck).
 *
 * <p>{@link #install} is idempotent: every controller that needs the index calls it before the manager starts.
 */
public final class PodIndexes {

    /** The index name on the manager's pod informer. */
    public static final String BY_CONTROLLER = "kubeloop.io/pod-controller-uid";

    private PodIndexes() {}

    /** Adds the index to the manager's pod informer unless it is there already. */
    public static void install(Manager manager) {
        SharedIndexInformer<Pod> pods = manager.informerFactory().informerFor(Pod.class);
        if (pods.indexer().indexers().containsKey(BY_CONTROLLER)) {
            return;
        }
        try {
            pods.addIndexers(Map.of(BY_CONTROLLER, PodIndexes::keys));
        } catch (IllegalArgumentException raced) {
            // another controller added it between the check and the add: the same index
        }
    }

    /** The index key of the orphan pods of {@code namespace}. */
    public static String orphanKey(String namespace) {
        return "orphan/" + namespace;
    }

    /**
     * The pods {@code controller} controls and the orphans of its namespace, from the cache as the cache's own
     * objects: never change them.
     */
    public static List<Pod> ownedAndOrphans(Manager manager, HasMetadata controller) {
        var client = manager.client();
        String ns = controller.getMetadata().getNamespace();
        List<Pod> owned = client.listByIndexReadOnly(
                Pod.class, ns, BY_CONTROLLER, controller.getMetadata().getUid());
        List<Pod> orphans = client.listByIndexReadOnly(Pod.class, ns, BY_CONTROLLER, orphanKey(ns));
        List<Pod> all = new ArrayList<>(owned.size() + orphans.size());
        all.addAll(owned);
        all.addAll(orphans);
        return all;
    }

    private static List<String> keys(Pod pod) {
        return OwnerReferences.controllerOf(pod)
                .map(ref -> List.of(ref.getUid() == null ? "" : ref.getUid()))
                .orElseGet(() -> List.of(orphanKey(pod.getMetadata().getNamespace())));
    }
}
