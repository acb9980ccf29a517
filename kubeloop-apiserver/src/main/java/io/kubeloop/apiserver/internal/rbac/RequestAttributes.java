package io.kubeloop.apiserver.internal.rbac;

import io.kubeloop.apiserver.internal.auth.UserInfo;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Derives a request's {@link Attributes} from its method, path and query exactly as kube-apiserver's
 * {@code RequestInfoFactory} does, before the path is known to name a served resource (so a forbidden user
 * learns nothing from 404s):
 *
 * <ul>
 *   <li>{@code /api/{v}/...} and {@code /apis/{g}/{v}/...} with at least one more segment are resource
 *       requests; everything else ({@code /api}, {@code /api/v1}, {@code /apis/apps/v1}, {@code /healthz},
 *       {@code /metrics}, {@code /openapi/v3}) is a non-resource request whose verb is the lower-cased method.
 *   <li>GET/HEAD is get, or list / watch ({@code watch=true}) without a name; POST create, PUT update, PATCH
 *       patch, DELETE delete, or deletecollection without a name. A {@code /watch/} segment makes the verb
 *       watch.
 *   <li>{@code namespaces/{ns}/{resource}/...} sets the namespace, except {@code namespaces/{name}/status}
 *       and {@code /finalize}, subresources of the Namespace; {@code /namespaces/{name}} itself has namespace
 *       and name {@code {name}}.
 *   <li>A list or watch with {@code fieldSelector=metadata.name=X} names X, so resourceNames rules apply.
 * </ul>
 */
final class RequestAttributes {

    private static final Set<String> NAMESPACE_SUBRESOURCES = Set.of("status", "finalize");

    private RequestAttributes() {}

    static Attributes of(UserInfo user, String method, String path, String rawQuery) {
        List<String> parts = new ArrayList<>();
        for (String p : path.split("/")) {
            if (!p.isEmpty()) {
                parts.add(p);
            }
        }
        String lowerMethod = method.toLowerCase(Locale.ROOT);
        Attributes nonResource = Attributes.nonResource(user, lowerMethod, path);
        if (parts.size() < 3 || !(parts.get(0).equals("api") || parts.get(0).equals("apis"))) {
            return nonResource;
        }
        int i = 1;
        String group = "";
        if (parts.get(0).equals("apis")) {
            if (parts.size() < 4) {
                return nonResource;
            }
            group = parts.get(1);
            i = 2;
        }
        String version = parts.get(i++);
        String verb;
        boolean watchSegment = false;
        if (parts.get(i).equals("watch") || parts.get(i).equals("proxy")) {
            if (parts.size() - i < 2) {
                // kube-apiserver cannot tell the resource either; it is then nothing RBAC can grant
                return new Attributes(user, parts.get(i), true, group, version, "", "", "", "", path);
            }
            verb = parts.get(i++);
            watchSegment = verb.equals("watch");
        } else {
            verb = switch (method) {
                case "POST" -> "create";
                case "GET", "HEAD" -> "get";
                case "PUT" -> "update";
                case "PATCH" -> "patch";
                case "DELETE" -> "delete";
                default -> "";
            };
        }
        List<String> rest = parts.subList(i, parts.size());
        String namespace = "";
        if (rest.get(0).equals("namespaces")) {
            if (rest.size() > 1) {
                namespace = rest.get(1);
                if (rest.size() > 2 && !NAMESPACE_SUBRESOURCES.contains(rest.get(2))) {
                    rest = rest.subList(2, rest.size());
                }
            }
        }
        String resource = rest.get(0);
        String name = rest.size() >= 2 ? rest.get(1) : "";
        String subresource = rest.size() >= 3 && !verb.equals("proxy") ? rest.get(2) : "";
        if (name.isEmpty() && verb.equals("get")) {
            String watch = queryValue(rawQuery, "watch");
            verb = watch != null && isTrue(watch) ? "watch" : "list";
            name = nameFromFieldSelector(queryValue(rawQuery, "fieldSelector"));
        } else if (name.isEmpty() && watchSegment) {
            name = nameFromFieldSelector(queryValue(rawQuery, "fieldSelector"));
        }
        if (name.isEmpty() && verb.equals("delete")) {
            verb = "deletecollection";
        }
        return new Attributes(user, verb, true, group, version, resource, subresource, namespace, name, path);
    }

    /** apimachinery's query-parameter bool: anything but 0, false and f (any case) is true. */
    private static boolean isTrue(String value) {
        return !(value.equals("0") || value.equalsIgnoreCase("false") || value.equalsIgnoreCase("f"));
    }

    /** The X of {@code metadata.name=X} or {@code metadata.name==X} in a field selector, else "". */
    private static String nameFromFieldSelector(String selector) {
        if (selector == null) {
            return "";
        }
        for (String term : selector.split(",")) {
            String t = term.strip();
            String value = null;
            if (t.startsWith("metadata.name==")) {
                value = t.substring("metadata.name==".length());
            } else if (t.startsWith("metadata.name=")) {
                value = t.substring("metadata.name=".length());
            }
            if (value != null) {
                value = value.strip();
                boolean validSegment = !value.isEmpty()
                        && !value.equals(".")
                        && !value.equals("..")
                        && !value.contains("/")
                        && !value.contains("%");
                return validSegment ? value : "";
            }
        }
        return "";
    }

    private static String queryValue(String rawQuery, String key) {
        if (rawQuery == null) {
            return null;
        }
        for (String pair : rawQuery.split("&")) {
            int eq = pair.indexOf('=');
            String k = decode(eq < 0 ? pair : pair.substring(0, eq));
            if (k.equals(key)) {
                return eq < 0 ? "" : decode(pair.substring(eq + 1));
            }
        }
        return null;
    }

    /** Query decoding that never throws: a malformed escape is kept as sent. */
    private static String decode(String s) {
        try {
            return URLDecoder.decode(s, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException malformed) {
            return s;
        }
    }
}
