package io.kubeloop.client.resource;

import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.kubeloop.client.codec.Decoding;
import io.kubeloop.client.errors.NotFoundException;
import io.kubeloop.client.transport.HttpTransport;
import io.kubeloop.model.GroupVersionKind;
import io.kubeloop.model.ResourceType;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import tools.jackson.core.JacksonException;

/**
 * Finds the resource that serves a kind, from the API server's legacy discovery documents ({@code /api/v1},
 * {@code /apis/<group>/<version>}), as kubectl's RESTMapper does. One document per group version is cached;
 * a kind not found in the cached document fetches it again once (a CRD installed since), then fails.
 * Thread-safe; two threads missing at once may both fetch.
 */
public final class ApiDiscovery {

    private final HttpTransport transport;
    /** apiVersion → the resources it serves, by kind (subresources folded into their resource). */
    private final Map<String, Map<String, ResourceType>> cache = new ConcurrentHashMap<>();

    public ApiDiscovery(HttpTransport transport) {
        this.transport = Objects.requireNonNull(transport, "transport");
    }

    /**
     * The resource of {@code kind} in {@code apiVersion} ({@code v1}, {@code apps/v1}).
     *
     * @throws IllegalArgumentException when the server does not serve that group version or kind; the message
     *     names both
     */
    public ResourceType resolve(String apiVersion, String kind) {
        GroupVersionKind gvk = GroupVersionKind.of(apiVersion, ListOptions.requireText(kind, "kind"));
        Map<String, ResourceType> cached = cache.get(gvk.apiVersion());
        if (cached != null && cached.containsKey(kind)) {
            return cached.get(kind);
        }
        Map<String, ResourceType> fresh = fetch(gvk);
        cache.put(gvk.apiVersion(), fresh);
        ResourceType type = fresh.get(kind);
        if (type == null) {
            throw new IllegalArgumentException("the API server serves no kind " + kind + " in " + gvk.apiVersion()
                    + " (it serves " + new java.util.TreeSet<>(fresh.keySet()) + ")");
        }
        return type;
    }

    /** Forgets every cached document. */
    public void invalidate() {
        cache.clear();
    }

    private Map<String, ResourceType> fetch(GroupVersionKind gvk) {
        String path = gvk.group().isEmpty() ? "/api/" + gvk.version() : "/apis/" + gvk.group() + "/" + gvk.version();
        APIResourceList list;
        try {
            list = transport.send("GET", path, null, null, in -> {
                try {
                    return Decoding.standard().mapper().readValue(in, APIResourceList.class);
                } catch (JacksonException e) {
                    throw new java.io.IOException("not an APIResourceList: " + e.getOriginalMessage(), e);
                }
            });
        } catch (NotFoundException e) {
            throw new IllegalArgumentException(
                    "the API server does not serve " + gvk.apiVersion() + " (GET " + path + ": 404)", e);
        }
        Map<String, Set<String>> subresources = new ConcurrentHashMap<>();
        List<APIResource> main = new ArrayList<>();
        for (APIResource r : list.getResources()) {
            int slash = r.getName().indexOf('/');
            if (slash < 0) {
                main.add(r);
            } else {
                subresources
                        .computeIfAbsent(r.getName().substring(0, slash), k -> new HashSet<>())
                        .add(r.getName().substring(slash + 1));
            }
        }
        Map<String, ResourceType> byKind = new ConcurrentHashMap<>();
        for (APIResource r : main) {
            Set<String> subs = new HashSet<>(subresources.getOrDefault(r.getName(), Set.of()));
            subs.retainAll(Set.of(ResourceType.STATUS, ResourceType.SCALE));
            byKind.putIfAbsent(
                    r.getKind(),
                    new ResourceType(
                            new GroupVersionKind(gvk.group(), gvk.version(), r.getKind()),
                            r.getName(),
                            r.getSingularName() == null ? "" : r.getSingularName(),
                            Boolean.TRUE.equals(r.getNamespaced()),
                            nonNull(r.getShortNames()),
                            nonNull(r.getCategories()),
                            nonNull(r.getVerbs()),
                            subs));
        }
        return byKind;
    }

    private static List<String> nonNull(List<String> l) {
        return l == null ? List.of() : l;
    }
}
