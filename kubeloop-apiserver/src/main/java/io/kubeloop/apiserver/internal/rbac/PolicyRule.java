package io.kubeloop.apiserver.internal.rbac;

import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * One rule of a Role or ClusterRole, matched as kube's RBAC authorizer ({@code RuleAllows}) matches it:
 *
 * <ul>
 *   <li>verbs: the verb, or {@code *};
 *   <li>apiGroups: the group ({@code ""} is core), or {@code *};
 *   <li>resources: {@code *}, the resource ({@code pods}), the resource with its subresource
 *       ({@code pods/status}; plain {@code pods} does not cover {@code pods/status}), or {@code *}/subresource
 *       ({@code * /scale} without the space) for that subresource of every resource. {@code pods/*} has no
 *       special meaning, as in kube;
 *   <li>resourceNames: empty means every name; otherwise the request must name one of them (so a list, which
 *       names none, is not allowed by a rule with resourceNames);
 *   <li>nonResourceURLs: {@code *}, the exact path, or a prefix ending in {@code *} ({@code /healthz/*}).
 * </ul>
 */
record PolicyRule(
        List<String> verbs,
        List<String> apiGroups,
        List<String> resources,
        List<String> resourceNames,
        List<String> nonResourceURLs) {

    PolicyRule {
        verbs = List.copyOf(verbs);
        apiGroups = List.copyOf(apiGroups);
        resources = List.copyOf(resources);
        resourceNames = List.copyOf(resourceNames);
        nonResourceURLs = List.copyOf(nonResourceURLs);
    }

    /** A rule from its JSON form; missing or non-string entries are ignored, as an unmatched value would be. */
    static PolicyRule fromJson(JsonNode rule) {
        return new PolicyRule(
                strings(rule.get("verbs")),
                strings(rule.get("apiGroups")),
                strings(rule.get("resources")),
                strings(rule.get("resourceNames")),
                strings(rule.get("nonResourceURLs")));
    }

    /** All rules of a role object ({@code rules} missing or null means none). */
    static List<PolicyRule> rulesOf(JsonNode role) {
        List<PolicyRule> rules = new ArrayList<>();
        JsonNode array = role.get("rules");
        if (array != null && array.isArray()) {
            for (JsonNode r : array) {
                if (r.isObject()) {
                    rules.add(fromJson(r));
                }
            }
        }
        return rules;
    }

    boolean allows(Attributes a) {
        if (a.resourceRequest()) {
            return verbMatches(a.verb())
                    && apiGroupMatches(a.apiGroup())
                    && resourceMatches(a.combinedResource(), a.subresource())
                    && resourceNameMatches(a.name());
        }
        return verbMatches(a.verb()) && nonResourceURLMatches(a.path());
    }

    boolean verbMatches(String verb) {
        return verbs.contains("*") || verbs.contains(verb);
    }

    boolean apiGroupMatches(String group) {
        return apiGroups.contains("*") || apiGroups.contains(group);
    }

    boolean resourceMatches(String combinedResource, String subresource) {
        for (String r : resources) {
            if (r.equals("*") || r.equals(combinedResource)) {
                return true;
            }
            if (!subresource.isEmpty() && r.equals("*/" + subresource)) {
                return true;
            }
        }
        return false;
    }

    boolean resourceNameMatches(String name) {
        return resourceNames.isEmpty() || resourceNames.contains(name);
    }

    boolean nonResourceURLMatches(String path) {
        for (String url : nonResourceURLs) {
            if (url.equals("*") || url.equals(path)) {
                return true;
            }
            if (url.endsWith("*") && path.startsWith(url.substring(0, url.length() - 1))) {
                return true;
            }
        }
        return false;
    }

    private static List<String> strings(JsonNode node) {
        List<String> out = new ArrayList<>();
        if (node != null && node.isArray()) {
            for (JsonNode n : node) {
                if (n.isString()) {
                    out.add(n.asString());
                }
            }
        }
        return out;
    }
}
