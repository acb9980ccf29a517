package io.kubeloop.apiserver.internal.table;

import io.kubeloop.model.ResourceType;
import java.util.Map;
import tools.jackson.databind.node.ObjectNode;

/** Which printer a resource's objects get: the kube-apiserver printer of the built-in kind, or the default. */
final class Printers {

    private static final Printer DEFAULT = new DefaultPrinter();
    private static final Printer SCALE = new ScalePrinter();

    /** By {@code group/plural}, as served. */
    private static final Map<String, Printer> BUILT_IN = Map.ofEntries(
            Map.entry("/pods", new PodPrinter()),
            Map.entry("/nodes", new NodePrinter()),
            Map.entry("/services", new ServicePrinter()),
            Map.entry("/endpoints", new EndpointsPrinter()),
            Map.entry("/namespaces", new NamespacePrinter()),
            Map.entry("/configmaps", new ConfigMapPrinter()),
            Map.entry("/secrets", new SecretPrinter()),
            Map.entry("/serviceaccounts", new ServiceAccountPrinter()),
            Map.entry("/events", new EventPrinter(false)),
            Map.entry("events.k8s.io/events", new EventPrinter(true)),
            Map.entry("apps/deployments", new DeploymentPrinter()),
            Map.entry("apps/replicasets", new ReplicaSetPrinter()),
            Map.entry("apps/statefulsets", new StatefulSetPrinter()),
            Map.entry("apps/daemonsets", new DaemonSetPrinter()),
            Map.entry("coordination.k8s.io/leases", new LeasePrinter()),
            // issue 17 (groups)
            Map.entry("/persistentvolumes", new PersistentVolumePrinter()),
            Map.entry("/persistentvolumeclaims", new PersistentVolumeClaimPrinter()),
            Map.entry("batch/jobs", new JobPrinter()),
            Map.entry("batch/cronjobs", new CronJobPrinter()),
            Map.entry("networking.k8s.io/ingresses", new IngressPrinter()),
            Map.entry("networking.k8s.io/ingressclasses", new IngressClassPrinter()),
            Map.entry("networking.k8s.io/networkpolicies", new NetworkPolicyPrinter()),
            Map.entry("policy/poddisruptionbudgets", new PodDisruptionBudgetPrinter()),
            Map.entry("autoscaling/horizontalpodautoscalers", new HorizontalPodAutoscalerPrinter()),
            Map.entry("storage.k8s.io/storageclasses", new StorageClassPrinter()),
            Map.entry("discovery.k8s.io/endpointslices", new EndpointSlicePrinter()));

    private Printers() {}

    static Printer forType(ResourceType type) {
        return BUILT_IN.getOrDefault(type.group() + "/" + type.plural(), DEFAULT);
    }

    /** The printer of one object of {@code type}: the Scale printer for a {@code /scale} subresource. */
    static Printer forObject(ResourceType type, ObjectNode object) {
        if (Fields.text(object.get("kind")).equals("Scale")
                && Fields.text(object.get("apiVersion")).equals("autoscaling/v1")) {
            return SCALE;
        }
        return forType(type);
    }
}
