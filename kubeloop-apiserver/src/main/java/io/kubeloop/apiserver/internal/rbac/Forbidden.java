package io.kubeloop.apiserver.internal.rbac;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusDetails;
import io.kubeloop.model.StatusReason;
import io.kubeloop.model.Statuses;

/**
 * The 403 Status kube-apiserver writes when authorization fails, worded exactly as its Forbidden writer
 * words it:
 *
 * <pre>
 * pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"
 * pods "p" is forbidden: User "alice" cannot update resource "pods/status" in API group "" in the namespace "default"
 * nodes is forbidden: User "alice" cannot list resource "nodes" in API group "" at the cluster scope
 * deployments.apps is forbidden: User "alice" cannot list resource "deployments" in API group "apps" ...
 * forbidden: User "alice" cannot get path "/metrics"
 * </pre>
 *
 * followed by {@code : <reason>} when the authorizer gave one. Details carry name, group and the resource
 * as kind.
 */
final class Forbidden {

    private Forbidden() {}

    static Status of(Attributes a, String reason) {
        // kube-apiserver HTML-escapes the part it builds (not the reason)
        String message =
                userCannot(a).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
        if (!reason.isEmpty()) {
            message += ": " + reason;
        }
        String group = a.apiGroup();
        String resource = a.resource();
        StatusDetails details = new StatusDetails();
        details.setGroup(group);
        details.setKind(resource);
        String prefix;
        if (group.isEmpty() && resource.isEmpty()) {
            prefix = "forbidden: ";
        } else {
            String qualified = Statuses.qualified(group, resource);
            prefix = a.name().isEmpty()
                    ? qualified + " is forbidden: "
                    : qualified + " \"" + a.name() + "\" is forbidden: ";
            if (!a.name().isEmpty()) {
                details.setName(a.name());
            }
        }
        Status status = Statuses.failure(StatusReason.Forbidden, prefix + message);
        status.setDetails(details);
        return status;
    }

    private static String userCannot(Attributes a) {
        String user = "User " + quote(a.user().name()) + " cannot " + a.verb();
        if (!a.resourceRequest()) {
            return user + " path " + quote(a.path());
        }
        String where = a.namespace().isEmpty() ? "at the cluster scope" : "in the namespace " + quote(a.namespace());
        return user + " resource " + quote(a.combinedResource()) + " in API group " + quote(a.apiGroup()) + " " + where;
    }

    /** Go's %q for the printable strings that reach here. */
    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
