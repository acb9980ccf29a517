package io.kubeloop.apiserver.internal.http;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One media range of an Accept or Content-Type header, such as
 * {@code application/json;as=Table;v=v1;g=meta.k8s.io}: the type and its parameters. Parameter order does
 * not matter, as in kube-apiserver's negotiation; {@code q} is the range's quality (a range with {@code q=0}
 * is one the client refuses).
 */
record MediaType(String type, Map<String, String> parameters) {

    /** Parses one media type; the type is lower-cased, parameter values are kept as sent. */
    static MediaType parse(String value) {
        String[] parts = value.split(";");
        Map<String, String> params = new LinkedHashMap<>();
        for (int i = 1; i < parts.length; i++) {
            String p = parts[i].trim();
            int eq = p.indexOf('=');
            if (eq > 0) {
                params.put(
                        p.substring(0, eq).trim().toLowerCase(Locale.ROOT),
                        unquote(p.substring(eq + 1).trim()));
            }
        }
        return new MediaType(parts[0].trim().toLowerCase(Locale.ROOT), Map.copyOf(params));
    }

    /** The media ranges of an Accept header in the order sent; {@code * / *} when the header is absent. */
    static List<MediaType> parseAccept(String header) {
        List<MediaType> types = new ArrayList<>();
        if (header == null || header.isBlank()) {
            types.add(new MediaType("*/*", Map.of()));
            return types;
        }
        for (String option : header.split(",")) {
            if (!option.isBlank()) {
                types.add(parse(option));
            }
        }
        return types;
    }

    String param(String name) {
        return parameters.get(name);
    }

    /** The quality {@code q} of an Accept range: 1 when absent, 0 for a value that is not a number in [0, 1]. */
    double quality() {
        String q = param("q");
        if (q == null) {
            return 1;
        }
        try {
            double value = Double.parseDouble(q);
            return value >= 0 && value <= 1 ? value : 0;
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** Whether the client takes answers of this range at all ({@code q} above 0). */
    boolean acceptable() {
        return quality() > 0;
    }

    /**
     * Whether this range allows a JSON answer in some form: {@code application/json} with any parameters
     * (plain or {@code as=Table}), or a wildcard.
     */
    boolean allowsJson() {
        return type.equals("application/json") || type.equals("application/*") || type.equals("*/*");
    }

    /** Whether this range accepts plain JSON: {@code application/json} without {@code as=}, or a wildcard. */
    boolean acceptsPlainJson() {
        return (type.equals("application/json") && param("as") == null)
                || type.equals("application/*")
                || type.equals("*/*");
    }

    /** Whether this range asks for {@code application/json;as=KIND;g=GROUP;v=VERSION}. */
    boolean isJsonAs(String kind, String group, String version) {
        return type.equals("application/json")
                && kind.equals(param("as"))
                && group.equals(param("g"))
                && version.equals(param("v"));
    }

    private static String unquote(String s) {
        return s.length() >= 2 && s.startsWith("\"") && s.endsWith("\"") ? s.substring(1, s.length() - 1) : s;
    }
}
