package io.kubeloop.client.resource;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/** A URL query built parameter by parameter; null values are left out. */
final class Query {
    private final StringBuilder sb = new StringBuilder();

    Query add(String name, String value) {
        if (value != null) {
            sb.append(sb.isEmpty() ? '?' : '&').append(name).append('=').append(encode(value));
        }
        return this;
    }

    boolean isEmpty() {
        return sb.isEmpty();
    }

    static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }

    @Override
    public String toString() {
        return sb.toString();
    }
}
