package io.kubeloop.apiserver.internal.rbac;

/**
 * An authorizer's answer. {@code reason} says which binding allowed the request, or why none could be
 * evaluated (a binding to a missing role); "" when there is nothing to say. RBAC never denies explicitly: a
 * request it does not allow is simply not allowed.
 */
record Decision(boolean allowed, String reason) {

    static final Decision ALLOWED = new Decision(true, "");

    static Decision notAllowed(String reason) {
        return new Decision(false, reason);
    }
}
