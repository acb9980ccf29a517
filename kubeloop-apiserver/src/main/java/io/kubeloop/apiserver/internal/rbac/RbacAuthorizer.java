package io.kubeloop.apiserver.internal.rbac;

import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.kubeloop.apiserver.internal.auth.UserInfo;
import io.kubeloop.apiserver.internal.storage.NotFoundException;
import io.kubeloop.apiserver.internal.storage.StorageKey;
import io.kubeloop.apiserver.internal.storage.Store;
import io.kubeloop.model.selector.LabelSelector;
import io.kubeloop.model.selector.SelectorParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * kube-apiserver's RBAC authorizer over the objects in the store: a request is allowed when some
 * ClusterRoleBinding, or some RoleBinding in the request's namespace, binds a subject the user matches to a
 * role with a rule that {@linkplain PolicyRule#allows allows} it. Nothing is cached: every decision reads the
 * current bindings and roles, so a change to an RBAC object takes effect on the next request.
 *
 * <p>Subjects: {@code User} by name, {@code Group} by membership, {@code ServiceAccount} by the user name
 * {@code system:serviceaccount:<ns>:<name>} (a RoleBinding's subject without a namespace means the binding's
 * namespace). A ClusterRole with an {@code aggregationRule} has, besides its own rules, those of every
 * ClusterRole its selectors match, as kube's aggregation controller would have written them into it.
 */
final class RbacAuthorizer implements Authorizer, RuleResolver {

    static final String GROUP = "rbac.authorization.k8s.io";

    private final Store store;

    RbacAuthorizer(Store store) {
        this.store = store;
    }

    @Override
    public Decision authorize(Attributes a) {
        Set<String> errors = new LinkedHashSet<>();
        for (ObjectNode binding : list("clusterrolebindings", "")) {
            String allowedBy = visit(binding, "", a, errors);
            if (allowedBy != null) {
                return new Decision(true, "RBAC: allowed by ClusterRoleBinding \"" + name(binding) + "\"" + allowedBy);
            }
        }
        if (!a.namespace().isEmpty()) {
            for (ObjectNode binding : list("rolebindings", a.namespace())) {
                String allowedBy = visit(binding, a.namespace(), a, errors);
                if (allowedBy != null) {
                    return new Decision(
                            true,
                            "RBAC: allowed by RoleBinding \"" + name(binding) + "/" + a.namespace() + "\"" + allowedBy);
                }
            }
        }
        return Decision.notAllowed(errors.isEmpty() ? "" : "RBAC: " + aggregate(errors));
    }

    @Override
    public Rules rulesFor(UserInfo user, String namespace) {
        Set<String> errors = new LinkedHashSet<>();
        List<PolicyRule> rules = new ArrayList<>();
        for (ObjectNode binding : list("clusterrolebindings", "")) {
            rules.addAll(boundRules(binding, "", user, errors));
        }
        if (!namespace.isEmpty()) {
            for (ObjectNode binding : list("rolebindings", namespace)) {
                rules.addAll(boundRules(binding, namespace, user, errors));
            }
        }
        return new Rules(rules, aggregate(errors));
    }

    /** The rules {@code binding} gives the user: none if it does not apply or its role is missing. */
    private List<PolicyRule> boundRules(
            ObjectNode binding, String bindingNamespace, UserInfo user, Set<String> errors) {
        if (appliesTo(binding, user, bindingNamespace) == null) {
            return List.of();
        }
        JsonNode roleRef = binding.path("roleRef");
        try {
            return rules(roleRef.path("kind").asString(""), roleRef.path("name").asString(""), bindingNamespace);
        } catch (RoleNotFound e) {
            errors.add(e.getMessage());
            return List.of();
        }
    }

    /** utilerrors.NewAggregate's text: "" for none, one error as itself, several as {@code [a, b]}. */
    private static String aggregate(Set<String> errors) {
        if (errors.isEmpty()) {
            return "";
        }
        return errors.size() == 1 ? errors.iterator().next() : "[" + String.join(", ", errors) + "]";
    }

    /**
     * If {@code binding} applies to the user and its role allows the request, the rest of kube's "allowed by"
     * description ({@code  of ClusterRole "view" to User "alice"}); else null, adding any error met to
     * {@code errors}.
     */
    private String visit(ObjectNode binding, String bindingNamespace, Attributes a, Set<String> errors) {
        JsonNode subject = appliesTo(binding, a.user(), bindingNamespace);
        if (subject == null) {
            return null;
        }
        JsonNode roleRef = binding.path("roleRef");
        String kind = roleRef.path("kind").asString("");
        String roleName = roleRef.path("name").asString("");
        List<PolicyRule> rules;
        try {
            rules = rules(kind, roleName, bindingNamespace);
        } catch (RoleNotFound e) {
            errors.add(e.getMessage());
            return null;
        }
        for (PolicyRule rule : rules) {
            if (rule.allows(a)) {
                return " of " + kind + " \"" + roleName + "\" to " + describe(subject, bindingNamespace);
            }
        }
        return null;
    }

    /** The subject of {@code binding} that the user matches, or null. */
    static JsonNode appliesTo(JsonNode binding, UserInfo user, String bindingNamespace) {
        JsonNode subjects = binding.get("subjects");
        if (subjects == null || !subjects.isArray()) {
            return null;
        }
        for (JsonNode s : subjects) {
            String name = s.path("name").asString("");
            boolean matches =
                    switch (s.path("kind").asString("")) {
                        case "User" -> user.name().equals(name);
                        case "Group" -> user.groups().contains(name);
                        case "ServiceAccount" -> {
                            String ns = s.path("namespace").asString("");
                            ns = ns.isEmpty() ? bindingNamespace : ns;
                            yield !ns.isEmpty() && user.name().equals(ServiceAccounts.userName(ns, name));
                        }
                        default -> false;
                    };
            if (matches) {
                return s;
            }
        }
        return null;
    }

    private static String describe(JsonNode subject, String bindingNamespace) {
        String kind = subject.path("kind").asString("");
        String name = subject.path("name").asString("");
        if (kind.equals("ServiceAccount")) {
            String ns = subject.path("namespace").asString("");
            return kind + " \"" + name + "/" + (ns.isEmpty() ? bindingNamespace : ns) + "\"";
        }
        return kind + " \"" + name + "\"";
    }

    private List<PolicyRule> rules(String kind, String name, String bindingNamespace) {
        return switch (kind) {
            case "Role" -> PolicyRule.rulesOf(get("roles", bindingNamespace, name, "role"));
            case "ClusterRole" -> clusterRoleRules(get("clusterroles", "", name, "clusterrole"));
            default -> throw new RoleNotFound("unsupported role reference kind: \"" + kind + "\"");
        };
    }

    private List<PolicyRule> clusterRoleRules(ObjectNode role) {
        List<PolicyRule> rules = new ArrayList<>();
        collect(role, rules, new HashSet<>(), null);
        return rules;
    }

    /**
     * Adds the rules of {@code role} and, if it aggregates, of every ClusterRole its selectors match,
     * recursively (kube's controller reaches the same fixed point by rewriting aggregated roles' rules);
     * {@code visited} breaks cycles.
     */
    private void collect(ObjectNode role, List<PolicyRule> rules, Set<String> visited, List<ObjectNode> all) {
        if (!visited.add(name(role))) {
            return;
        }
        rules.addAll(PolicyRule.rulesOf(role));
        JsonNode selectors = role.path("aggregationRule").path("clusterRoleSelectors");
        if (!selectors.isArray() || selectors.isEmpty()) {
            return;
        }
        List<LabelSelector> parsed = new ArrayList<>();
        for (JsonNode s : selectors) {
            try {
                parsed.add(labelSelector(s));
            } catch (SelectorParseException invalid) {
                // an invalid selector selects nothing
            }
        }
        List<ObjectNode> roles = all != null ? all : list("clusterroles", "");
        for (ObjectNode other : roles) {
            Map<String, String> labels = labels(other);
            if (parsed.stream().anyMatch(sel -> sel.matches(labels))) {
                collect(other, rules, visited, roles);
            }
        }
    }

    private static LabelSelector labelSelector(JsonNode s) {
        io.fabric8.kubernetes.api.model.LabelSelector selector = new io.fabric8.kubernetes.api.model.LabelSelector();
        Map<String, String> matchLabels = new LinkedHashMap<>();
        s.path("matchLabels")
                .properties()
                .forEach(e -> matchLabels.put(e.getKey(), e.getValue().asString("")));
        selector.setMatchLabels(matchLabels);
        List<LabelSelectorRequirement> expressions = new ArrayList<>();
        for (JsonNode e : s.path("matchExpressions")) {
            List<String> values = new ArrayList<>();
            e.path("values").forEach(v -> values.add(v.asString("")));
            expressions.add(new LabelSelectorRequirement(
                    e.path("key").asString(""), e.path("operator").asString(""), values));
        }
        selector.setMatchExpressions(expressions);
        return LabelSelector.fromLabelSelector(selector);
    }

    private static Map<String, String> labels(JsonNode object) {
        Map<String, String> labels = new LinkedHashMap<>();
        object.path("metadata")
                .path("labels")
                .properties()
                .forEach(e -> labels.put(e.getKey(), e.getValue().asString("")));
        return labels;
    }

    private ObjectNode get(String resource, String namespace, String name, String singular) {
        try {
            return store.get(new StorageKey(GROUP, resource, namespace, name));
        } catch (NotFoundException e) {
            throw new RoleNotFound(singular + "." + GROUP + " \"" + name + "\" not found");
        }
    }

    private List<ObjectNode> list(String resource, String namespace) {
        return store.list(GROUP, resource, namespace, 0, null, 0, null).items();
    }

    private static String name(JsonNode object) {
        return object.path("metadata").path("name").asString("");
    }

    /** A binding whose role cannot be read; its message is kube's. */
    private static final class RoleNotFound extends RuntimeException {
        private static final long serialVersionUID = 1L;

        RoleNotFound(String message) {
            super(message, null, false, false);
        }
    }
}
