package io.kubeloop.apiserver.internal.auth;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Who made a request, as kube-apiserver's authenticators report it: the user name, an optional uid, the
 * groups (always including {@code system:authenticated} for an authenticated user) and extra attributes.
 *
 * <p>The embedded server attaches one to every request it accepts; {@link #ADMIN} is the identity of
 * requests when authentication is off, and is always allowed everything.
 */
public record UserInfo(String name, String uid, List<String> groups, Map<String, List<String>> extra) {

    /** The group whose members bypass authorization, as in kube-apiserver. */
    public static final String SYSTEM_MASTERS = "system:masters";

    public static final String SYSTEM_AUTHENTICATED = "system:authenticated";

    /** The bootstrap administrator: the identity of every request when authentication is off. */
    public static final UserInfo ADMIN =
            new UserInfo("kubeloop-admin", "", List.of(SYSTEM_MASTERS, SYSTEM_AUTHENTICATED), Map.of());

    public UserInfo {
        Objects.requireNonNull(name, "name");
        uid = uid == null ? "" : uid;
        groups = List.copyOf(groups);
        extra = Map.copyOf(extra);
    }

    /** Whether this identity is a member of {@link #SYSTEM_MASTERS}, which RBAC never denies. */
    public boolean isAdmin() {
        return groups.contains(SYSTEM_MASTERS);
    }
}
