package io.kubeloop.model;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The resources a server serves, looked up the ways clients name them: by group and plural (URLs), by
 * group-version-kind (objects), and by the names kubectl accepts ({@code po}, {@code pod}, {@code pods},
 * {@code Pod}, {@code deployments.apps}).
 *
 * <p>Immutable; {@link #with} returns a new registry, so a server can swap registries atomically when
 * custom resources come and go. Invariants: a (group, version, plural) triple and a group-version-kind each
 * name at most one resource type (one resource may be served at several versions, as a custom resource is);
 * the order of {@link #types()} is registration order, which discovery keeps, so the first registered version
 * of a resource is its preferred one.
 */
public final class ResourceRegistry {

    private final List<ResourceType> types;
    private final Map<String, ResourceType> byGroupResource;
    private final Map<GroupVersionKind, ResourceType> byKind;

    private ResourceRegistry(List<ResourceType> types) {
        this.types = List.copyOf(types);
        Map<String, ResourceType> groupResource = new LinkedHashMap<>();
        Map<GroupVersionKind, ResourceType> kinds = new LinkedHashMap<>();
        for (ResourceType t : this.types) {
            if (groupResource.putIfAbsent(t.group() + "/" + t.version() + "/" + t.plural(), t) != null) {
                throw new IllegalArgumentException(
                        "resource " + t.qualifiedName() + " version " + t.version() + " is registered twice");
            }
            groupResource.putIfAbsent(t.group() + "/" + t.plural(), t); // the first version is the preferred one
            if (kinds.putIfAbsent(t.gvk(), t) != null) {
                throw new IllegalArgumentException("kind " + t.gvk() + " is registered twice");
            }
        }
        this.byGroupResource = Map.copyOf(groupResource);
        this.byKind = Map.copyOf(kinds);
    }

    /** A registry of exactly these types. */
    public static ResourceRegistry of(List<ResourceType> types) {
        return new ResourceRegistry(types);
    }

    /** The built-in resources of the embedded API server (see {@link BuiltInResources}). */
    public static ResourceRegistry builtIn() {
        return BuiltInResources.REGISTRY;
    }

    /** This registry plus {@code type}, replacing a type with the same group and plural. */
    public ResourceRegistry with(ResourceType type) {
        List<ResourceType> next = new ArrayList<>(types.size() + 1);
        for (ResourceType t : types) {
            if (!(t.group().equals(type.group()) && t.plural().equals(type.plural()))) {
                next.add(t);
            }
        }
        next.add(type);
        return new ResourceRegistry(next);
    }

    /**
     * This registry with {@code versions} (one resource served at several versions, preferred first) replacing
     * every version of that resource.
     */
    public ResourceRegistry withVersions(List<ResourceType> versions) {
        if (versions.isEmpty()) {
            throw new IllegalArgumentException("a resource needs at least one version");
        }
        ResourceType first = versions.get(0);
        for (ResourceType v : versions) {
            if (!v.group().equals(first.group()) || !v.plural().equals(first.plural())) {
                throw new IllegalArgumentException("versions of one resource must share group and plural: "
                        + v.qualifiedName() + " is not " + first.qualifiedName());
            }
        }
        List<ResourceType> next = new ArrayList<>(without(first.group(), first.plural()).types);
        next.addAll(versions);
        return new ResourceRegistry(next);
    }

    /** This registry without the resource {@code plural} of {@code group}, at every version. */
    public ResourceRegistry without(String group, String plural) {
        return new ResourceRegistry(types.stream()
                .filter(t -> !(t.group().equals(group) && t.plural().equals(plural)))
                .toList());
    }

    public List<ResourceType> types() {
        return types;
    }

    /** The resource {@code plural} of {@code group} (the core group is ""), at its preferred version. */
    public Optional<ResourceType> byResource(String group, String plural) {
        return Optional.ofNullable(byGroupResource.get(group + "/" + plural));
    }

    /** The resource {@code plural} of {@code group}, only if it is served at {@code version}. */
    public Optional<ResourceType> byResource(GroupVersionResource gvr) {
        return Optional.ofNullable(byGroupResource.get(gvr.group() + "/" + gvr.version() + "/" + gvr.resource()));
    }

    public Optional<ResourceType> byKind(GroupVersionKind gvk) {
        return Optional.ofNullable(byKind.get(gvk));
    }

    /**
     * Resolves a name as kubectl does: a plural, singular, short name or kind, case-insensitively, optionally
     * qualified by a group ({@code deployments.apps}, {@code deploy.apps}). When several groups serve the
     * same short name, the core group wins, then registration order.
     */
    public Optional<ResourceType> resolve(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        Optional<ResourceType> unqualified = matchName(n, null);
        if (unqualified.isPresent()) {
            return unqualified;
        }
        int dot = n.indexOf('.');
        if (dot > 0) {
            return matchName(n.substring(0, dot), n.substring(dot + 1));
        }
        return Optional.empty();
    }

    private Optional<ResourceType> matchName(String name, String group) {
        ResourceType found = null;
        for (ResourceType t : types) {
            if (group != null && !t.group().equals(group)) {
                continue;
            }
            if (t.plural().equals(name)
                    || t.singular().equals(name)
                    || t.kind().toLowerCase(Locale.ROOT).equals(name)
                    || t.shortNames().contains(name)) {
                if (t.group().isEmpty()) {
                    return Optional.of(t);
                }
                if (found == null) {
                    found = t;
                }
            }
        }
        return Optional.ofNullable(found);
    }

    /** The groups served, core ("") first, then in registration order. */
    public List<String> groups() {
        Set<String> groups = new java.util.LinkedHashSet<>();
        groups.add("");
        types.forEach(t -> groups.add(t.group()));
        if (types.stream().noneMatch(t -> t.group().isEmpty())) {
            groups.remove("");
        }
        return List.copyOf(groups);
    }

    /** The types of one group and version, in registration order. */
    public List<ResourceType> typesIn(String group, String version) {
        return types.stream()
                .filter(t -> t.group().equals(group) && t.version().equals(version))
                .toList();
    }
}
