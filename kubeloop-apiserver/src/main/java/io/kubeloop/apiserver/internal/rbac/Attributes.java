package io.kubeloop.apiserver.internal.rbac;

import io.kubeloop.apiserver.internal.auth.UserInfo;
import java.util.Objects;

/**
 * What an authorizer decides on, as kube-apiserver's {@code authorizer.Attributes}: who asks to do which verb
 * to what. A resource request names a group, resource, optional subresource, namespace and name; a
 * non-resource request names a path ({@code /healthz}, {@code /apis/apps}).
 *
 * @param verb for resources a Kubernetes verb (get, list, watch, create, update, patch, delete,
 *     deletecollection, impersonate, ...); for paths the lower-cased HTTP method
 * @param namespace "" for cluster-scoped requests and for requests across all namespaces
 * @param name "" when the request names no object
 * @param path the URL path of a non-resource request; "" for resource requests
 */
record Attributes(
        UserInfo user,
        String verb,
        boolean resourceRequest,
        String apiGroup,
        String apiVersion,
        String resource,
        String subresource,
        String namespace,
        String name,
        String path) {

    Attributes {
        Objects.requireNonNull(user, "user");
        verb = nz(verb);
        apiGroup = nz(apiGroup);
        apiVersion = nz(apiVersion);
        resource = nz(resource);
        subresource = nz(subresource);
        namespace = nz(namespace);
        name = nz(name);
        path = nz(path);
    }

    static Attributes resource(
            UserInfo user,
            String verb,
            String apiGroup,
            String resource,
            String subresource,
            String namespace,
            String name) {
        return new Attributes(user, verb, true, apiGroup, "*", resource, subresource, namespace, name, "");
    }

    static Attributes nonResource(UserInfo user, String verb, String path) {
        return new Attributes(user, verb, false, "", "", "", "", "", "", path);
    }

    /** {@code pods} or {@code pods/status}: what RBAC rules' {@code resources} match against. */
    String combinedResource() {
        return subresource.isEmpty() ? resource : resource + "/" + subresource;
    }

    Attributes withUser(UserInfo other) {
        return new Attributes(
                other, verb, resourceRequest, apiGroup, apiVersion, resource, subresource, namespace, name, path);
    }

    private static String nz(String s) {
        return s == null ? "" : s;
    }
}
