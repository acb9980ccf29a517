package io.kubeloop.apiserver.internal.rbac;

/** Decides whether a request may proceed. Implementations are thread-safe. */
@FunctionalInterface
interface Authorizer {

    /** Allows everything: the server without RBAC. */
    Authorizer ALWAYS_ALLOW = attributes -> Decision.ALLOWED;

    Decision authorize(Attributes attributes);

    /**
     * This authorizer behind kube-apiserver's privileged-group check: members of {@code system:masters} are
     * allowed everything without consulting it.
     */
    default Authorizer withPrivilegedGroup() {
        return attributes -> attributes.user().isAdmin() ? Decision.ALLOWED : authorize(attributes);
    }
}
