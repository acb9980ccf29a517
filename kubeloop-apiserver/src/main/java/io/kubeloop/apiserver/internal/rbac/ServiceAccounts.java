package io.kubeloop.apiserver.internal.rbac;

import java.util.List;

/** The user names and groups Kubernetes gives service accounts. */
final class ServiceAccounts {

    static final String PREFIX = "system:serviceaccount:";
    static final String ALL_GROUP = "system:serviceaccounts";

    private ServiceAccounts() {}

    /** {@code system:serviceaccount:<namespace>:<name>}. */
    static String userName(String namespace, String name) {
        return PREFIX + namespace + ":" + name;
    }

    /** {@code [namespace, name]} of a service account user name, or null if it is not one. */
    static String[] split(String userName) {
        if (!userName.startsWith(PREFIX)) {
            return null;
        }
        String rest = userName.substring(PREFIX.length());
        int colon = rest.indexOf(':');
        if (colon <= 0 || colon == rest.length() - 1 || rest.indexOf(':', colon + 1) >= 0) {
            return null;
        }
        return new String[] {rest.substring(0, colon), rest.substring(colon + 1)};
    }

    /** {@code system:serviceaccounts} and {@code system:serviceaccounts:<namespace>}. */
    static List<String> groups(String namespace) {
        return List.of(ALL_GROUP, ALL_GROUP + ":" + namespace);
    }
}
