package io.kubeloop.apiserver.internal.http;

import java.util.ArrayList;
import java.util.List;

/**
 * What a resource request addresses, parsed from its path the way kube-apiserver's RequestInfo factory
 * does: {@code /api/v1/namespaces/default/pods/web-0/status} is group "", version v1, namespace default,
 * resource pods, name web-0, subresource status.
 *
 * <p>Rules kept from kube-apiserver: {@code /api/v1/namespaces/{name}} addresses the Namespace itself (it
 * is cluster-scoped), and {@code /namespaces/{name}/status} and {@code /finalize} are subresources of it; a
 * {@code /watch/} segment after the version is the legacy spelling of {@code ?watch=true}.
 *
 * @param group "" for the core group
 * @param namespace "" when the path names none
 * @param name "" for a collection
 * @param subresource "" when none
 * @param legacyWatch whether the path used the {@code /watch/} prefix
 */
record RequestInfo(
        String group,
        String version,
        String namespace,
        String resource,
        String name,
        String subresource,
        boolean legacyWatch) {

    /**
     * Parses a path below {@code /api/} or {@code /apis/}; returns null when it addresses no resource (for
     * example {@code /api}, {@code /apis/apps}, or {@code /api/v1}: discovery, not resources).
     */
    static RequestInfo parse(String path) {
        List<String> parts = new ArrayList<>();
        for (String p : path.split("/")) {
            if (!p.isEmpty()) {
                parts.add(p);
            }
        }
        int i;
        String group;
        String version;
        if (parts.size() >= 3 && parts.get(0).equals("api")) {
            group = "";
            version = parts.get(1);
            i = 2;
        } else if (parts.size() >= 4 && parts.get(0).equals("apis")) {
            group = parts.get(1);
            version = parts.get(2);
            i = 3;
        } else {
            return null;
        }
        boolean watch = false;
        if (parts.get(i).equals("watch")) {
            watch = true;
            i++;
        }
        List<String> rest = parts.subList(i, parts.size());
        String namespace = "";
        if (rest.size() >= 3 && rest.get(0).equals("namespaces")) {
            // namespaces/{ns}/{resource}[/{name}[/{sub}]], except namespaces/{name}/{status|finalize}
            if (rest.size() == 3 && (rest.get(2).equals("status") || rest.get(2).equals("finalize"))) {
                return new RequestInfo(group, version, "", "namespaces", rest.get(1), rest.get(2), watch);
            }
            namespace = rest.get(1);
            rest = rest.subList(2, rest.size());
        }
        if (rest.isEmpty() || rest.size() > 3) {
            return null;
        }
        return new RequestInfo(
                group,
                version,
                namespace,
                rest.get(0),
                rest.size() > 1 ? rest.get(1) : "",
                rest.size() > 2 ? rest.get(2) : "",
                watch);
    }

    boolean isCollection() {
        return name.isEmpty();
    }
}
