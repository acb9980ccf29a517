package io.kubeloop.model;

import static io.kubeloop.model.ResourceType.ALL_VERBS;
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

    /** Verbs of the review kinds: they are computed on create and never stored. */
    private static final List<String> CREATE_ONLY = List.of("create");

    static final ResourceRegistry REGISTRY = ResourceRegistry.of(List.of(
            core("Namespace", "namespaces", false, List.of("ns"), List.of(), NAMESPACE_VERBS, Set.of(STATUS)),
            core("Pod", "pods", true, List.of("po"), List.of("all"), ALL_VERBS, Set.of(STATUS)),
            core("Node", "nodes", false, List.of("no"), List.of(), ALL_VERBS, Set.of(STATUS)),
            core("Service", "services", true, List.of("svc"), List.of("all"), ALL_VERBS, Set.of(STATUS)),
            core("Endpoints", "endpoints", true, List.of("ep"), List.of(), ALL_VERBS, Set.of()),
            core("ConfigMap", "configmaps", true, List.of("cm"), List.of(), ALL_VERBS, Set.of()),
            core("Secret", "secrets", true, List.of(), List.of(), ALL_VERBS, Set.of()),
            core("ServiceAccount", "serviceaccounts", true, List.of("sa"), List.of(), ALL_VERBS, Set.of()),
            core("Event", "events", true, List.of("ev"), List.of(), ALL_VERBS, Set.of()),
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
