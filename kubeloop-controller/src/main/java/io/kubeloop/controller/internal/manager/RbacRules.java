package io.kubeloop.controller.internal.manager;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Collects what a manager does against the API server — the verbs per resource and namespace — and renders the
 * Roles and ClusterRole that grant exactly that. Rules for one namespace go into a {@code Role} there; rules at the
 * cluster scope (all namespaces, or a cluster-scoped resource) into a {@code ClusterRole}. Output is deterministic:
 * roles by namespace, rules by group then resource, verbs in Kubernetes' usual order. Not thread-safe (built and
 * rendered by one call).
 */
public final class RbacRules {

    private static final List<String> VERB_ORDER =
            List.of("get", "list", "watch", "create", "update", "patch", "delete", "deletecollection");

    /** namespace ("" = cluster scope) → group → resource → verbs. */
    private final Map<String, Map<String, Map<String, Set<String>>>> rules = new TreeMap<>();

    /**
     * Grants {@code verbs} on {@code resource} (plural, or {@code plural/subresource}) in {@code group} ("" = core).
     *
     * @param namespace null for the cluster scope
     */
    public RbacRules grant(String namespace, String group, String resource, String... verbs) {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(resource, "resource");
        Set<String> set = rules.computeIfAbsent(namespace == null ? "" : namespace, k -> new TreeMap<>())
                .computeIfAbsent(group, k -> new TreeMap<>())
                .computeIfAbsent(resource, k -> new TreeSet<>(RbacRules::compareVerbs));
        set.addAll(List.of(verbs));
        return this;
    }

    private static int compareVerbs(String a, String b) {
        int ia = VERB_ORDER.indexOf(a);
        int ib = VERB_ORDER.indexOf(b);
        if (ia < 0 && ib < 0) {
            return a.compareTo(b);
        }
        if (ia < 0) {
            return 1;
        }
        if (ib < 0) {
            return -1;
        }
        return Integer.compare(ia, ib);
    }

    /** Whether nothing was granted. */
    public boolean isEmpty() {
        return rules.isEmpty();
    }

    /**
     * The YAML documents: a {@code ClusterRole} named {@code name} for the cluster-scoped rules (if any), then a
     * {@code Role} named {@code name} per namespace; separated by {@code ---}.
     */
    public String toYaml(String name) {
        List<String> docs = new ArrayList<>();
        Map<String, Map<String, Set<String>>> cluster = rules.get("");
        if (cluster != null) {
            docs.add(role("ClusterRole", name, null, cluster));
        }
        rules.forEach((ns, groups) -> {
            if (!ns.isEmpty()) {
                docs.add(role("Role", name, ns, groups));
            }
        });
        return String.join("---\n", docs);
    }

    private static String role(
            String kind, String name, String namespace, Map<String, Map<String, Set<String>>> groups) {
        StringBuilder b = new StringBuilder();
        b.append("apiVersion: rbac.authorization.k8s.io/v1\n");
        b.append("kind: ").append(kind).append('\n');
        b.append("metadata:\n");
        b.append("  name: ").append(quote(name)).append('\n');
        if (namespace != null) {
            b.append("  namespace: ").append(quote(namespace)).append('\n');
        }
        b.append("rules:\n");
        groups.forEach((group, resources) -> resources.forEach((resource, verbs) -> {
            b.append("- apiGroups: [").append(quote(group)).append("]\n");
            b.append("  resources: [").append(quote(resource)).append("]\n");
            b.append("  verbs: [")
                    .append(String.join(
                            ", ", verbs.stream().map(RbacRules::quote).toList()))
                    .append("]\n");
        }));
        return b.toString();
    }

    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
