package io.kubeloop.apiserver.fault;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Which requests a fault applies to: one resource (its plural, or plural.group), one kube verb, both, or all
 * ({@code null} for either means any).
 */
record Scope(String resource, String verb) {

    /** The verbs of kube-apiserver's request info, the only values {@code verb} may take. */
    static final Set<String> VERBS =
            Set.of("get", "list", "watch", "create", "update", "patch", "delete", "deletecollection");

    static final Scope ALL = new Scope(null, null);

    Scope {
        if (resource != null && (resource.isBlank() || resource.contains("/"))) {
            throw new IllegalArgumentException(
                    "resource must be a resource name such as pods or deployments.apps, " + "was \"" + resource + "\"");
        }
        if (verb != null && !VERBS.contains(verb)) {
            throw new IllegalArgumentException("verb must be one of get, list, watch, create, update, patch, delete, "
                    + "deletecollection, was \"" + verb + "\"");
        }
    }

    Scope withResource(String r) {
        return new Scope(r, verb);
    }

    Scope withVerb(String v) {
        return new Scope(resource, v);
    }

    /** Whether a request for {@code group}/{@code plural} with kube verb {@code requestVerb} is in scope. */
    boolean matches(String group, String plural, String requestVerb) {
        return (verb == null || verb.equals(requestVerb)) && matchesResource(group, plural);
    }

    boolean matchesResource(String group, String plural) {
        return resource == null || resource.equals(plural) || resource.equals(qualified(group, plural));
    }

    /** The resource as metrics and logs name it: {@code pods}, {@code deployments.apps}. */
    static String qualified(String group, String plural) {
        return group.isEmpty() ? plural : plural + "." + group;
    }

    String resourceLabel() {
        return resource == null ? "" : resource;
    }

    String verbLabel() {
        return verb == null ? "" : verb;
    }

    void describe(Map<String, Object> into) {
        if (resource != null) {
            into.put("resource", resource);
        }
        if (verb != null) {
            into.put("verb", verb);
        }
    }

    @Override
    public String toString() {
        Map<String, Object> m = new LinkedHashMap<>();
        describe(m);
        return m.toString();
    }
}
