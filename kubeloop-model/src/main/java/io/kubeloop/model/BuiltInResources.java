package io.kubeloop.model;

import static io.kubeloop.model.ResourceType.ALL_VERBS;
import static io.kubeloop.model.ResourceType.BINDING;
import static io.kubeloop.model.ResourceType.EVICTION;
import static io.kubeloop.model.ResourceType.SCALE;
import static io.kubeloop.model.ResourceType.STATUS;

import java.util.List;
import java.util.Set;

/**
 * The built-in resources of the embedded API server, with the names, scopes, verbs, categories and
 * subresources that kube-apiserver 1.32 reports for them in discovery.
 */
final class BuiltInResources {

    private BuiltInResources() {}

    /** Namespaces have no deletecollection in kube-apiserver. */
    private static final List<String> NAMESPACE_VERBS =
            List.of("create", "delete", "get", "list", "patch", "update", "watch");

    /** Verbs of the review kinds (computed on create, never stored) and of the legacy bindings collection. */
    private static final List<String> CREATE_ONLY = List.of("create");

    static final ResourceRegistry REGISTRY = ResourceRegistry.of(List.of(
            core("Namespace", "namespaces", false, List.of("ns"), List.of(), NAMESPACE_VERBS, Set.of(STATUS)),
            core("Pod", "pods", true, List.of("po"), List.of("all"), ALL_VERBS, Set.of(STATUS, EVICTION, BINDING)),
            // the legacy collection POST /api/v1/namespaces/{ns}/bindings, create only, as pods/binding
            core("Binding", "bindings", true, List.of(), List.of(), CREATE_ONLY, Set.of()),
            core("Node", "nodes", false, List.of("no"), List.of(), ALL_VERBS, Set.of(STATUS)),
            core("Service", "services", true, List.of("svc"), List.of("all"), ALL_VERBS, Set.of(STATUS)),
            core("Endpoints", "endpoints", true, List.of("ep"), List.of(), ALL_VERBS, Set.of()),
            core("ConfigMap", "configmaps", true, List.of("cm"), List.of(), ALL_VERBS, Set.of()),
            core("Secret", "secrets", true, List.of(), List.of(), ALL_VERBS, Set.of()),
            core("ServiceAccount", "serviceaccounts", true, List.of("sa"), List.of(), ALL_VERBS, Set.of()),
            core("Event", "events", true, List.of("ev"), List.of(), ALL_VERBS, Set.of()),
            core("PersistentVolume", "persistentvolumes", false, List.of("pv"), List.of(), ALL_VERBS, Set.of(STATUS)),
            core(
                    "PersistentVolumeClaim",
                    "persistentvolumeclaims",
                    true,
                    List.of("pvc"),
                    List.of(),
                    ALL_VERBS,
                    Set.of(STATUS)),
            apps("Deployment", "deployments", List.of("deploy"), Set.of(STATUS, SCALE)),
            apps("ReplicaSet", "replicasets", List.of("rs"), Set.of(STATUS, SCALE)),
            apps("StatefulSet", "statefulsets", List.of("sts"), Set.of(STATUS, SCALE)),
            apps("DaemonSet", "daemonsets", List.of("ds"), Set.of(STATUS)),
            new ResourceType(
                    new GroupVersionKind("coordination.k8s.io", "v1", "Lease"),
                    "leases",
                    "lease",
                    true,
                    List.of(),
                    List.of(),
                    ALL_VERBS,
                    Set.of()),
            new ResourceType(
                    new GroupVersionKind("events.k8s.io", "v1", "Event"),
                    "events",
                    "event",
                    true,
                    List.of("ev"),
                    List.of(),
                    ALL_VERBS,
                    Set.of()),
            // issue 17 (groups): batch, networking, policy, autoscaling/v2, storage and discovery, as kube-apiserver
            // 1.32 reports them (kubectl api-resources; pods/eviction is a subresource of pods, see Discovery)
            named("autoscaling", "v2", "HorizontalPodAutoscaler", "horizontalpodautoscalers", true, "hpa", true),
            named("batch", "v1", "CronJob", "cronjobs", true, "cj", true),
            named("batch", "v1", "Job", "jobs", true, null, true),
            named("networking.k8s.io", "v1", "IngressClass", "ingressclasses", false, null, false),
            named("networking.k8s.io", "v1", "Ingress", "ingresses", true, "ing", true),
            named("networking.k8s.io", "v1", "NetworkPolicy", "networkpolicies", true, "netpol", false),
            named("policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", true, "pdb", true),
            named("storage.k8s.io", "v1", "StorageClass", "storageclasses", false, "sc", false),
            named("discovery.k8s.io", "v1", "EndpointSlice", "endpointslices", true, null, false),
            rbac("Role", "roles", true),
            rbac("ClusterRole", "clusterroles", false),
            rbac("RoleBinding", "rolebindings", true),
            rbac("ClusterRoleBinding", "clusterrolebindings", false),
            new ResourceType(
                    new GroupVersionKind("apiextensions.k8s.io", "v1", "CustomResourceDefinition"),
                    "customresourcedefinitions",
                    "customresourcedefinition",
                    false,
                    List.of("crd", "crds"),
                    List.of("api-extensions"),
                    ALL_VERBS,
                    Set.of(STATUS)),
            review("authorization.k8s.io", "SelfSubjectAccessReview", "selfsubjectaccessreviews"),
            review("authorization.k8s.io", "SubjectAccessReview", "subjectaccessreviews"),
            review("authorization.k8s.io", "SelfSubjectRulesReview", "selfsubjectrulesreviews"),
            review("authentication.k8s.io", "SelfSubjectReview", "selfsubjectreviews")));

    /** The categories kube gives: {@code all} for the workload kinds (jobs, cronjobs, hpa), none otherwise. */
    private static ResourceType named(
            String group,
            String version,
            String kind,
            String plural,
            boolean namespaced,
            String shortName,
            boolean status) {
        boolean all = group.equals("batch") || group.equals("autoscaling");
        return new ResourceType(
                new GroupVersionKind(group, version, kind),
                plural,
                kind.toLowerCase(java.util.Locale.ROOT),
                namespaced,
                shortName == null ? List.of() : List.of(shortName),
                all ? List.of("all") : List.of(),
                ALL_VERBS,
                status ? Set.of(STATUS) : Set.of());
    }

    private static ResourceType rbac(String kind, String plural, boolean namespaced) {
        return new ResourceType(
                new GroupVersionKind("rbac.authorization.k8s.io", "v1", kind),
                plural,
                kind.toLowerCase(java.util.Locale.ROOT),
                namespaced,
                List.of(),
                List.of(),
                ALL_VERBS,
                Set.of());
    }

    private static ResourceType review(String group, String kind, String plural) {
        return new ResourceType(
                new GroupVersionKind(group, "v1", kind),
                plural,
                kind.toLowerCase(java.util.Locale.ROOT),
                false,
                List.of(),
                List.of(),
                CREATE_ONLY,
                Set.of());
    }

    private static ResourceType core(
            String kind,
            String plural,
            boolean namespaced,
            List<String> shortNames,
            List<String> categories,
            List<String> verbs,
            Set<String> subresources) {
        return new ResourceType(
                new GroupVersionKind("", "v1", kind),
                plural,
                kind.toLowerCase(java.util.Locale.ROOT),
                namespaced,
                shortNames,
                categories,
                verbs,
                subresources);
    }

    private static ResourceType apps(String kind, String plural, List<String> shortNames, Set<String> subresources) {
        return new ResourceType(
                new GroupVersionKind("apps", "v1", kind),
                plural,
                kind.toLowerCase(java.util.Locale.ROOT),
                true,
                shortNames,
                List.of("all"),
                ALL_VERBS,
                subresources);
    }
}
