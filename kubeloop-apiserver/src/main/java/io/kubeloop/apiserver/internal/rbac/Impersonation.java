package io.kubeloop.apiserver.internal.rbac;

import io.kubeloop.apiserver.internal.auth.UserInfo;
import io.kubeloop.model.Statuses;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * kube-apiserver's impersonation: the headers {@code Impersonate-User}, {@code Impersonate-Group} (repeated),
 * {@code Impersonate-Uid} and {@code Impersonate-Extra-<key>} (kubectl's {@code --as}, {@code --as-group},
 * {@code --as-uid}) make the request act as another identity, if the real user may {@code impersonate}
 * each part of it:
 *
 * <ul>
 *   <li>the user: resource {@code users} (or {@code serviceaccounts} in its namespace for
 *       {@code system:serviceaccount:<ns>:<name>}), core group, named by the user;
 *   <li>each group: resource {@code groups}, core group;
 *   <li>each extra value: resource {@code userextras/<key>} in group {@code authentication.k8s.io};
 *   <li>the uid: resource {@code uids} in group {@code authentication.k8s.io}.
 * </ul>
 *
 * <p>Checked in that order; the first refusal is the request's 403. The impersonated identity has the given
 * groups (a service account without given groups gets {@code system:serviceaccounts} and
 * {@code system:serviceaccounts:<ns>}) plus {@code system:authenticated} ({@code system:unauthenticated} for
 * {@code system:anonymous}), unless one of those two is given.
 */
final class Impersonation {

    static final String USER = "impersonate-user";
    static final String GROUP = "impersonate-group";
    static final String UID = "impersonate-uid";
    static final String EXTRA_PREFIX = "impersonate-extra-";
    private static final String AUTHENTICATION_GROUP = "authentication.k8s.io";
    private static final String ANONYMOUS = "system:anonymous";
    private static final String UNAUTHENTICATED = "system:unauthenticated";

    private Impersonation() {}

    /**
     * The identity the request acts as: {@code real} when it asks for no impersonation.
     *
     * @param headers the request headers (names in any case)
     * @throws StatusException 403 when the real user may not impersonate a part of the identity, 400 when
     *     groups, extra or uid are asked for without a user
     */
    static UserInfo apply(Map<String, List<String>> headers, UserInfo real, Authorizer authorizer) {
        String user = "";
        List<String> groups = new ArrayList<>();
        String uid = "";
        Map<String, List<String>> extra = new TreeMap<>();
        for (Map.Entry<String, List<String>> h : headers.entrySet()) {
            String name = h.getKey().toLowerCase(Locale.ROOT);
            List<String> values = h.getValue();
            if (values == null || values.isEmpty()) {
                continue;
            }
            if (name.equals(USER)) {
                user = values.get(0);
            } else if (name.equals(GROUP)) {
                groups.addAll(values);
            } else if (name.equals(UID)) {
                uid = values.get(0);
            } else if (name.startsWith(EXTRA_PREFIX)) {
                extra.computeIfAbsent(unescape(name.substring(EXTRA_PREFIX.length())), k -> new ArrayList<>())
                        .addAll(values);
            }
        }
        if (user.isEmpty()) {
            if (!groups.isEmpty() || !extra.isEmpty() || !uid.isEmpty()) {
                throw new StatusException(Statuses.badRequest("requested impersonation of groups, extra or uid "
                        + "without impersonating a user: the Impersonate-User header is missing"));
            }
            return real;
        }
        String[] serviceAccount = ServiceAccounts.split(user);
        if (serviceAccount != null) {
            check(
                    authorizer,
                    Attributes.resource(
                            real, "impersonate", "", "serviceaccounts", "", serviceAccount[0], serviceAccount[1]));
        } else {
            check(authorizer, Attributes.resource(real, "impersonate", "", "users", "", "", user));
        }
        for (String g : groups) {
            check(authorizer, Attributes.resource(real, "impersonate", "", "groups", "", "", g));
        }
        for (Map.Entry<String, List<String>> e : extra.entrySet()) {
            for (String value : e.getValue()) {
                check(
                        authorizer,
                        Attributes.resource(
                                real, "impersonate", AUTHENTICATION_GROUP, "userextras", e.getKey(), "", value));
            }
        }
        if (!uid.isEmpty()) {
            check(authorizer, Attributes.resource(real, "impersonate", AUTHENTICATION_GROUP, "uids", "", "", uid));
        }
        List<String> effectiveGroups = new ArrayList<>(groups);
        if (serviceAccount != null && groups.isEmpty()) {
            effectiveGroups.addAll(ServiceAccounts.groups(serviceAccount[0]));
        }
        if (user.equals(ANONYMOUS)) {
            if (!effectiveGroups.contains(UNAUTHENTICATED)) {
                effectiveGroups.add(UNAUTHENTICATED);
            }
        } else if (!effectiveGroups.contains(UserInfo.SYSTEM_AUTHENTICATED)
                && !effectiveGroups.contains(UNAUTHENTICATED)) {
            effectiveGroups.add(UserInfo.SYSTEM_AUTHENTICATED);
        }
        Map<String, List<String>> extraCopy = new LinkedHashMap<>();
        extra.forEach((k, v) -> extraCopy.put(k, List.copyOf(v)));
        return new UserInfo(user, uid, effectiveGroups, extraCopy);
    }

    private static void check(Authorizer authorizer, Attributes a) {
        Decision d = authorizer.authorize(a);
        if (!d.allowed()) {
            throw new StatusException(Forbidden.of(a, d.reason()));
        }
    }

    /** Extra keys travel percent-encoded in header names (kube's unescapeExtraKey). */
    private static String unescape(String key) {
        try {
            return URLDecoder.decode(key.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException malformed) {
            return key;
        }
    }
}
