package io.kubeloop.model;

import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Everything kubeloop needs to know about one served resource: its names (kind, plural, singular, short
 * names), scope, verbs, categories and subresources. The embedded API server derives its URLs, discovery
 * documents and OpenAPI from these; the client and informers use them to build request paths.
 *
 * @param gvk the kind and the version served
 * @param plural the resource name in URLs ({@code pods})
 * @param singular the singular name ({@code pod})
 * @param namespaced whether objects live in a namespace
 * @param shortNames kubectl's abbreviations ({@code po})
 * @param categories groups such as {@code all}
 * @param verbs the verbs of the main resource, in discovery order
 * @param subresources {@code status}, {@code scale}, {@code eviction} and {@code binding} (pods)
 * @param listKind the kind of a list of these objects; null means {@code <kind>List} ({@code PodList})
 */
public record ResourceType(
        GroupVersionKind gvk,
        String plural,
        String singular,
        boolean namespaced,
        List<String> shortNames,
        List<String> categories,
        List<String> verbs,
        Set<String> subresources,
        String listKind) {

    /** The verbs of an ordinary resource, in kube-apiserver's discovery order. */
    public static final List<String> ALL_VERBS =
            List.of("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch");

    public static final String STATUS = "status";
    public static final String SCALE = "scale";

    /** {@code pods/eviction}: a policy/v1 Eviction is POSTed to it (create only). */
    public static final String EVICTION = "eviction";

    /** {@code pods/binding}: a v1 Binding is POSTed to it to assign the pod to a node (create only). */
    public static final String BINDING = "binding";

    public ResourceType {
        Objects.requireNonNull(gvk, "gvk");
        Objects.requireNonNull(plural, "plural");
        Objects.requireNonNull(singular, "singular");
        shortNames = List.copyOf(shortNames);
        categories = List.copyOf(categories);
        verbs = List.copyOf(verbs);
        subresources = Set.copyOf(subresources);
        if (listKind == null || listKind.isEmpty()) {
            listKind = gvk.kind() + "List";
        }
    }

    /** A resource whose list kind is {@code <kind>List}, as every built-in's is. */
    public ResourceType(
            GroupVersionKind gvk,
            String plural,
            String singular,
            boolean namespaced,
            List<String> shortNames,
            List<String> categories,
            List<String> verbs,
            Set<String> subresources) {
        this(gvk, plural, singular, namespaced, shortNames, categories, verbs, subresources, null);
    }

    public String group() {
        return gvk.group();
    }

    public String version() {
        return gvk.version();
    }

    public String kind() {
        return gvk.kind();
    }

    public GroupVersionResource gvr() {
        return new GroupVersionResource(gvk.group(), gvk.version(), plural);
    }

    /** {@code pods} for the core group, {@code deployments.apps} otherwise: kubectl's fully qualified name. */
    public String qualifiedName() {
        return gvk.group().isEmpty() ? plural : plural + "." + gvk.group();
    }

    public boolean hasStatus() {
        return subresources.contains(STATUS);
    }

    public boolean hasScale() {
        return subresources.contains(SCALE);
    }
}
