package io.kubeloop.apiserver.internal.registry;

import io.kubeloop.model.ResourceType;
import java.util.HashMap;
import java.util.Map;

/**
 * The strategies of the built-in resources, by group and resource. A resource without one (every custom
 * resource: its CRD's schema rules it) gets {@link #NONE}. Immutable after construction.
 */
public final class Strategies {

    /** The strategy of a resource with no rules of its own. */
    public static final ResourceStrategy NONE = new ResourceStrategy() {};

    private final Map<String, ResourceStrategy> byResource;

    private Strategies(Map<String, ResourceStrategy> byResource) {
        this.byResource = Map.copyOf(byResource);
    }

    /** The strategies of kube's built-in resources, with kube-apiserver's default settings. */
    public static Strategies builtIn() {
        return builtIn(PodStrategy.DEFAULT_TOLERATION_SECONDS, PodStrategy.DEFAULT_TOLERATION_SECONDS);
    }

    /**
     * The strategies of kube's built-in resources.
     *
     * @param notReadySeconds the DefaultTolerationSeconds admission plugin's {@code not-ready} tolerationSeconds
     * @param unreachableSeconds its {@code unreachable} tolerationSeconds
     */
    public static Strategies builtIn(long notReadySeconds, long unreachableSeconds) {
        Map<String, ResourceStrategy> s = new HashMap<>();
        // one line per resource: s.put(key("apps", "deployments"), new DeploymentStrategy());
        // issue 17 (groups): batch, networking, policy, autoscaling/v2, storage, discovery, PV/PVC
        s.put(key("batch", "jobs"), new JobStrategy());
        s.put(key("batch", "cronjobs"), new CronJobStrategy());
        s.put(key("networking.k8s.io", "ingresses"), new IngressStrategy());
        s.put(key("networking.k8s.io", "ingressclasses"), new IngressClassStrategy());
        s.put(key("networking.k8s.io", "networkpolicies"), new NetworkPolicyStrategy());
        s.put(key("policy", "poddisruptionbudgets"), new PodDisruptionBudgetStrategy());
        s.put(key("autoscaling", "horizontalpodautoscalers"), new HorizontalPodAutoscalerStrategy());
        s.put(key("storage.k8s.io", "storageclasses"), new StorageClassStrategy());
        s.put(key("discovery.k8s.io", "endpointslices"), new EndpointSliceStrategy());
        s.put(key("", "persistentvolumes"), new PersistentVolumeStrategy());
        s.put(key("", "persistentvolumeclaims"), new PersistentVolumeClaimStrategy());
        // workloads: pods and the apps/v1 controllers of pods
        s.put(key("", "pods"), new PodStrategy(notReadySeconds, unreachableSeconds));
        s.put(key("", "nodes"), new NodeStrategy());
        s.put(key("apps", "deployments"), new DeploymentStrategy());
        s.put(key("apps", "replicasets"), new ReplicaSetStrategy());
        s.put(key("apps", "statefulsets"), new StatefulSetStrategy());
        s.put(key("apps", "daemonsets"), new DaemonSetStrategy());
        // meta: core kinds with rules beyond the metadata (which ObjectRules checks for every kind)
        s.put(key("", "services"), new ServiceStrategy());
        s.put(key("", "namespaces"), new NamespaceStrategy());
        s.put(key("", "secrets"), new SecretStrategy());
        s.put(key("", "configmaps"), new ConfigMapStrategy());
        return new Strategies(s);
    }

    public ResourceStrategy of(ResourceType type) {
        return byResource.getOrDefault(key(type.group(), type.plural()), NONE);
    }

    static String key(String group, String plural) {
        return group + "/" + plural;
    }
}
