package io.kubeloop.apiserver.internal.rbac;

import io.kubeloop.apiserver.internal.storage.StorageKey;
import io.kubeloop.apiserver.internal.storage.Store;
import io.kubeloop.clock.Clock;
import io.kubeloop.model.Timestamps;
import java.util.List;
import java.util.UUID;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The RBAC objects a cluster starts with, after kube-apiserver's bootstrap policy (subsets of its rules for
 * the resources this server has), all labelled {@code kubernetes.io/bootstrapping: rbac-defaults}:
 *
 * <ul>
 *   <li>{@code cluster-admin}: everything, bound to the group {@code system:masters};
 *   <li>{@code admin}, {@code edit}, {@code view}: the user-facing roles to bind per namespace. As in kube
 *       they aggregate {@code system:aggregate-to-admin/edit/view} and any ClusterRole labelled
 *       {@code rbac.authorization.k8s.io/aggregate-to-<role>: "true"}; view is part of edit, edit of admin;
 *   <li>{@code system:discovery} (GET of /api, /apis, /openapi, /version, health), {@code system:basic-user}
 *       (create SelfSubjectAccessReview, SelfSubjectRulesReview, SelfSubjectReview), bound to
 *       {@code system:authenticated}; {@code system:public-info-viewer} (/version and health), bound to
 *       {@code system:authenticated} and {@code system:unauthenticated}.
 * </ul>
 */
final class BootstrapPolicy {

    static final String LABEL = "kubernetes.io/bootstrapping";
    static final String LABEL_VALUE = "rbac-defaults";
    private static final String AGGREGATE_TO = "rbac.authorization.k8s.io/aggregate-to-";
    private static final List<String> READ = List.of("get", "list", "watch");
    private static final List<String> WRITE = List.of("create", "delete", "deletecollection", "patch", "update");
    private static final List<String> ALL =
            List.of("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch");

    private final JsonMapper json = JsonMapper.builder().build();
    private final Clock clock;

    private BootstrapPolicy(Clock clock) {
        this.clock = clock;
    }

    /** Stores the bootstrap roles and bindings in an empty store. */
    static void install(Store store, Clock clock) {
        new BootstrapPolicy(clock).create(store);
    }

    private void create(Store store) {
        ArrayNode view = rules(
                rule(
                        READ,
                        List.of(""),
                        List.of(
                                "pods",
                                "pods/log",
                                "pods/status",
                                "services",
                                "services/status",
                                "endpoints",
                                "configmaps",
                                "serviceaccounts",
                                "events",
                                "namespaces",
                                "namespaces/status",
                                "persistentvolumeclaims",
                                "persistentvolumeclaims/status",
                                "replicationcontrollers",
                                "replicationcontrollers/scale",
                                "replicationcontrollers/status",
                                "limitranges",
                                "resourcequotas",
                                "resourcequotas/status",
                                "bindings")),
                rule(
                        READ,
                        List.of("apps"),
                        List.of(
                                "controllerrevisions",
                                "daemonsets",
                                "daemonsets/status",
                                "deployments",
                                "deployments/scale",
                                "deployments/status",
                                "replicasets",
                                "replicasets/scale",
                                "replicasets/status",
                                "statefulsets",
                                "statefulsets/scale",
                                "statefulsets/status")),
                rule(READ, List.of("events.k8s.io"), List.of("events")),
                rule(READ, List.of("batch"), List.of("cronjobs", "cronjobs/status", "jobs", "jobs/status")),
                rule(
                        READ,
                        List.of("autoscaling"),
                        List.of("horizontalpodautoscalers", "horizontalpodautoscalers/status")),
                rule(READ, List.of("networking.k8s.io"), List.of("ingresses", "ingresses/status", "networkpolicies")),
                rule(READ, List.of("policy"), List.of("poddisruptionbudgets", "poddisruptionbudgets/status")),
                rule(READ, List.of("discovery.k8s.io"), List.of("endpointslices")));
        ArrayNode edit = rules(
                rule(
                        WRITE,
                        List.of(""),
                        List.of(
                                "pods",
                                "pods/attach",
                                "pods/exec",
                                "pods/portforward",
                                "pods/proxy",
                                "pods/eviction",
                                "configmaps",
                                "endpoints",
                                "persistentvolumeclaims",
                                "replicationcontrollers",
                                "replicationcontrollers/scale",
                                "secrets",
                                "serviceaccounts",
                                "services",
                                "services/proxy")),
                rule(
                        List.of("get", "list", "watch"),
                        List.of(""),
                        List.of(
                                "secrets",
                                "pods/attach",
                                "pods/exec",
                                "pods/portforward",
                                "pods/proxy",
                                "services/proxy")),
                rule(List.of("impersonate"), List.of(""), List.of("serviceaccounts")),
                rule(List.of("create"), List.of(""), List.of("serviceaccounts/token")),
                rule(
                        WRITE,
                        List.of("apps"),
                        List.of(
                                "daemonsets",
                                "deployments",
                                "deployments/rollback",
                                "deployments/scale",
                                "replicasets",
                                "replicasets/scale",
                                "statefulsets",
                                "statefulsets/scale")),
                rule(WRITE, List.of("batch"), List.of("cronjobs", "jobs")),
                rule(WRITE, List.of("autoscaling"), List.of("horizontalpodautoscalers")),
                rule(WRITE, List.of("networking.k8s.io"), List.of("ingresses", "networkpolicies")),
                rule(WRITE, List.of("policy"), List.of("poddisruptionbudgets")),
                rule(WRITE, List.of("discovery.k8s.io"), List.of("endpointslices")));
        ArrayNode admin = rules(
                rule(ALL, List.of("rbac.authorization.k8s.io"), List.of("rolebindings", "roles")),
                rule(List.of("create"), List.of("authorization.k8s.io"), List.of("localsubjectaccessreviews")));

        clusterRole(store, "system:aggregate-to-view", AGGREGATE_TO + "view", view, null);
        clusterRole(store, "system:aggregate-to-edit", AGGREGATE_TO + "edit", edit, null);
        clusterRole(store, "system:aggregate-to-admin", AGGREGATE_TO + "admin", admin, null);
        // the rules kube's aggregation controller would have written into the aggregated roles
        clusterRole(store, "view", AGGREGATE_TO + "edit", view, "view");
        clusterRole(store, "edit", AGGREGATE_TO + "admin", concat(view, edit), "edit");
        clusterRole(store, "admin", null, concat(view, edit, admin), "admin");

        ArrayNode everything = rules(rule(List.of("*"), List.of("*"), List.of("*")));
        ObjectNode allPaths = everything.addObject();
        allPaths.set("nonResourceURLs", strings(List.of("*")));
        allPaths.set("verbs", strings(List.of("*")));
        clusterRole(store, "cluster-admin", null, everything, null);

        ArrayNode discovery = rules();
        discovery.add(nonResourceRule(List.of(
                "/livez",
                "/readyz",
                "/healthz",
                "/version",
                "/version/",
                "/openapi",
                "/openapi/*",
                "/api",
                "/api/*",
                "/apis",
                "/apis/*")));
        clusterRole(store, "system:discovery", null, discovery, null);
        clusterRole(
                store,
                "system:basic-user",
                null,
                rules(
                        rule(
                                List.of("create"),
                                List.of("authorization.k8s.io"),
                                List.of("selfsubjectaccessreviews", "selfsubjectrulesreviews")),
                        rule(List.of("create"), List.of("authentication.k8s.io"), List.of("selfsubjectreviews"))),
                null);
        ArrayNode publicInfo = rules();
        publicInfo.add(nonResourceRule(List.of("/livez", "/readyz", "/healthz", "/version", "/version/")));
        clusterRole(store, "system:public-info-viewer", null, publicInfo, null);

        binding(store, "cluster-admin", List.of("system:masters"));
        binding(store, "system:discovery", List.of("system:authenticated"));
        binding(store, "system:basic-user", List.of("system:authenticated"));
        binding(store, "system:public-info-viewer", List.of("system:authenticated", "system:unauthenticated"));
    }

    private void clusterRole(Store store, String name, String label, ArrayNode rules, String aggregates) {
        ObjectNode role = object("ClusterRole", name);
        if (label != null) {
            ((ObjectNode) role.get("metadata").get("labels")).put(label, "true");
        }
        if (aggregates != null) {
            role.putObject("aggregationRule")
                    .putArray("clusterRoleSelectors")
                    .addObject()
                    .putObject("matchLabels")
                    .put(AGGREGATE_TO + aggregates, "true");
        }
        role.set("rules", rules);
        store.create(StorageKey.clusterScoped(RbacAuthorizer.GROUP, "clusterroles", name), role);
    }

    private void binding(Store store, String name, List<String> groups) {
        ObjectNode b = object("ClusterRoleBinding", name);
        ObjectNode ref = b.putObject("roleRef");
        ref.put("apiGroup", RbacAuthorizer.GROUP);
        ref.put("kind", "ClusterRole");
        ref.put("name", name);
        ArrayNode subjects = b.putArray("subjects");
        for (String g : groups) {
            subjects.addObject()
                    .put("apiGroup", RbacAuthorizer.GROUP)
                    .put("kind", "Group")
                    .put("name", g);
        }
        store.create(StorageKey.clusterScoped(RbacAuthorizer.GROUP, "clusterrolebindings", name), b);
    }

    private ObjectNode object(String kind, String name) {
        ObjectNode o = json.createObjectNode();
        o.put("apiVersion", RbacAuthorizer.GROUP + "/v1");
        o.put("kind", kind);
        ObjectNode meta = o.putObject("metadata");
        meta.put("name", name);
        meta.put("uid", UUID.randomUUID().toString());
        meta.put("creationTimestamp", Timestamps.format(clock.now()));
        meta.putObject("labels").put(LABEL, LABEL_VALUE);
        meta.putObject("annotations").put("rbac.authorization.kubernetes.io/autoupdate", "true");
        return o;
    }

    private ObjectNode rule(List<String> verbs, List<String> groups, List<String> resources) {
        ObjectNode r = json.createObjectNode();
        r.set("apiGroups", strings(groups));
        r.set("resources", strings(resources));
        r.set("verbs", strings(verbs));
        return r;
    }

    private ObjectNode nonResourceRule(List<String> urls) {
        ObjectNode r = json.createObjectNode();
        r.set("nonResourceURLs", strings(urls));
        r.set("verbs", strings(List.of("get")));
        return r;
    }

    private ArrayNode rules(ObjectNode... rules) {
        ArrayNode a = json.createArrayNode();
        for (ObjectNode r : rules) {
            a.add(r);
        }
        return a;
    }

    private ArrayNode concat(ArrayNode... parts) {
        ArrayNode a = json.createArrayNode();
        for (ArrayNode p : parts) {
            p.forEach(r -> a.add(r.deepCopy()));
        }
        return a;
    }

    private ArrayNode strings(List<String> values) {
        ArrayNode a = json.createArrayNode();
        values.forEach(a::add);
        return a;
    }
}
