package io.kubeloop.apiserver.internal.http;

import io.kubeloop.model.ResourceRegistry;
import io.kubeloop.model.ResourceType;
import java.util.List;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The discovery documents kube-apiserver serves, generated from a {@link ResourceRegistry}: the legacy
 * {@code APIVersions}, {@code APIGroupList}, {@code APIGroup} and {@code APIResourceList}, and the aggregated
 * {@code apidiscovery.k8s.io/v2 APIGroupDiscoveryList} that kubectl 1.32 asks for first.
 */
final class Discovery {

    /** The exact Content-Type that tells client-go a discovery answer is aggregated. */
    static final String AGGREGATED_CONTENT_TYPE =
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

    private static final List<String> SUBRESOURCE_VERBS = List.of("get", "patch", "update");

    /** The subresources discovery lists, in kube's (alphabetical) order. */
    private static final List<String> SUBRESOURCES =
            List.of(ResourceType.BINDING, ResourceType.EVICTION, ResourceType.SCALE, ResourceType.STATUS);

    /** {@code pods/binding} and {@code pods/eviction} are create only; status and scale are read and written. */
    private static List<String> verbs(String subresource) {
        return subresource.equals(ResourceType.EVICTION) || subresource.equals(ResourceType.BINDING)
                ? List.of("create")
                : SUBRESOURCE_VERBS;
    }

    private final JsonMapper json;
    private final ResourceRegistry registry;

    Discovery(JsonMapper json, ResourceRegistry registry) {
        this.json = json;
        this.registry = registry;
    }

    /** {@code GET /api}, legacy form. */
    ObjectNode apiVersions(String serverAddress) {
        ObjectNode root = json.createObjectNode();
        root.put("kind", "APIVersions");
        root.putArray("versions").add("v1");
        ObjectNode cidr = root.putArray("serverAddressByClientCIDRs").addObject();
        cidr.put("clientCIDR", "0.0.0.0/0");
        cidr.put("serverAddress", serverAddress);
        return root;
    }

    /** {@code GET /apis}, legacy form: every named group. */
    ObjectNode apiGroupList() {
        ObjectNode root = json.createObjectNode();
        root.put("kind", "APIGroupList");
        root.put("apiVersion", "v1");
        ArrayNode groups = root.putArray("groups");
        for (String group : registry.groups()) {
            if (!group.isEmpty()) {
                groups.add(apiGroupBody(group));
            }
        }
        return root;
    }

    /** {@code GET /apis/{group}}, or null if the group is not served. */
    ObjectNode apiGroup(String group) {
        if (group.isEmpty() || !registry.groups().contains(group)) {
            return null;
        }
        ObjectNode root = apiGroupBody(group);
        root.put("kind", "APIGroup");
        root.put("apiVersion", "v1");
        return root;
    }

    private ObjectNode apiGroupBody(String group) {
        ObjectNode g = json.createObjectNode();
        g.put("name", group);
        ArrayNode versions = g.putArray("versions");
        for (String v : versions(group)) {
            ObjectNode gv = versions.addObject();
            gv.put("groupVersion", group + "/" + v);
            gv.put("version", v);
        }
        ObjectNode preferred = g.putObject("preferredVersion");
        String v = versions(group).get(0);
        preferred.put("groupVersion", group + "/" + v);
        preferred.put("version", v);
        return g;
    }

    private List<String> versions(String group) {
        return registry.types().stream()
                .filter(t -> t.group().equals(group))
                .map(ResourceType::version)
                .distinct()
                .toList();
    }

    /** {@code GET /api/v1} or {@code /apis/{group}/{version}}, or null if not served. */
    ObjectNode apiResourceList(String group, String version) {
        List<ResourceType> types = registry.typesIn(group, version);
        if (types.isEmpty()) {
            return null;
        }
        ObjectNode root = json.createObjectNode();
        root.put("kind", "APIResourceList");
        if (!group.isEmpty()) {
            root.put("apiVersion", "v1"); // /api/v1 omits it, as kube-apiserver does
        }
        root.put("groupVersion", group.isEmpty() ? version : group + "/" + version);
        ArrayNode resources = root.putArray("resources");
        for (ResourceType t : types) {
            ObjectNode r = resources.addObject();
            r.put("name", t.plural());
            r.put("singularName", t.singular());
            r.put("namespaced", t.namespaced());
            r.put("kind", t.kind());
            strings(r.putArray("verbs"), t.verbs());
            if (!t.shortNames().isEmpty()) {
                strings(r.putArray("shortNames"), t.shortNames());
            }
            if (!t.categories().isEmpty()) {
                strings(r.putArray("categories"), t.categories());
            }
            for (String sub : SUBRESOURCES) {
                if (!t.subresources().contains(sub)) {
                    continue;
                }
                ObjectNode s = resources.addObject();
                s.put("name", t.plural() + "/" + sub);
                s.put("singularName", "");
                s.put("namespaced", t.namespaced());
                if (sub.equals(ResourceType.SCALE)) {
                    s.put("group", "autoscaling");
                    s.put("version", "v1");
                    s.put("kind", "Scale");
                } else if (sub.equals(ResourceType.EVICTION)) {
                    s.put("group", "policy");
                    s.put("version", "v1");
                    s.put("kind", "Eviction");
                } else if (sub.equals(ResourceType.BINDING)) {
                    s.put("kind", "Binding");
                } else {
                    s.put("kind", t.kind());
                }
                strings(s.putArray("verbs"), verbs(sub));
            }
        }
        return root;
    }

    /** Aggregated discovery: {@code /api} (core only) or {@code /apis} (named groups). */
    ObjectNode aggregated(boolean core) {
        ObjectNode root = json.createObjectNode();
        root.put("kind", "APIGroupDiscoveryList");
        root.put("apiVersion", "apidiscovery.k8s.io/v2");
        root.putObject("metadata");
        ArrayNode items = root.putArray("items");
        for (String group : registry.groups()) {
            if (group.isEmpty() != core) {
                continue;
            }
            ObjectNode item = items.addObject();
            ObjectNode meta = item.putObject("metadata");
            if (!core) {
                meta.put("name", group);
            }
            meta.putNull("creationTimestamp");
            ArrayNode versions = item.putArray("versions");
            for (String version : versions(group)) {
                ObjectNode v = versions.addObject();
                v.put("version", version);
                v.put("freshness", "Current");
                ArrayNode resources = v.putArray("resources");
                for (ResourceType t : registry.typesIn(group, version)) {
                    ObjectNode r = resources.addObject();
                    r.put("resource", t.plural());
                    kind(r.putObject("responseKind"), t.group(), t.version(), t.kind());
                    r.put("scope", t.namespaced() ? "Namespaced" : "Cluster");
                    r.put("singularResource", t.singular());
                    strings(r.putArray("verbs"), t.verbs());
                    if (!t.shortNames().isEmpty()) {
                        strings(r.putArray("shortNames"), t.shortNames());
                    }
                    if (!t.categories().isEmpty()) {
                        strings(r.putArray("categories"), t.categories());
                    }
                    if (!t.subresources().isEmpty()) {
                        ArrayNode subs = r.putArray("subresources");
                        for (String sub : SUBRESOURCES) {
                            if (!t.subresources().contains(sub)) {
                                continue;
                            }
                            ObjectNode s = subs.addObject();
                            s.put("subresource", sub);
                            if (sub.equals(ResourceType.SCALE)) {
                                kind(s.putObject("responseKind"), "autoscaling", "v1", "Scale");
                            } else if (sub.equals(ResourceType.EVICTION)) {
                                kind(s.putObject("responseKind"), "policy", "v1", "Eviction");
                            } else if (sub.equals(ResourceType.BINDING)) {
                                kind(s.putObject("responseKind"), "", "v1", "Binding");
                            } else {
                                kind(s.putObject("responseKind"), t.group(), t.version(), t.kind());
                            }
                            strings(s.putArray("verbs"), verbs(sub));
                        }
                    }
                }
            }
        }
        return root;
    }

    private static void kind(ObjectNode node, String group, String version, String kind) {
        node.put("group", group);
        node.put("version", version);
        node.put("kind", kind);
    }

    private static void strings(ArrayNode array, List<String> values) {
        values.forEach(array::add);
    }

    /**
     * Whether an Accept header prefers aggregated discovery v2 (kubectl 1.32 always lists it first): the
     * first range that this server can answer decides.
     */
    static boolean wantsAggregated(String accept) {
        for (MediaType m : MediaType.parseAccept(accept)) {
            if (m.isJsonAs("APIGroupDiscoveryList", "apidiscovery.k8s.io", "v2")) {
                return true;
            }
            if (m.acceptsPlainJson()) {
                return false;
            }
        }
        return false;
    }
}
