package io.kubeloop.client.config;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;

/** A bearer token or basic auth fixed at configuration time; {@link #invalidate()} has nothing to refresh. */
final class StaticCredentials implements Credentials {

    static final StaticCredentials NONE = new StaticCredentials(null, "none");

    private final String header; // null: no Authorization header
    private final String description; // never a secret

    private StaticCredentials(String header, String description) {
        this.header = header;
        this.description = description;
    }

    static StaticCredentials bearer(String token) {
        return new StaticCredentials("Bearer " + token, "bearer token");
    }

    static StaticCredentials basic(String username, String password) {
        String pair = username + ":" + password;
        return new StaticCredentials(
                "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8)), "basic auth");
    }

    @Override
    public Optional<String> authorization() {
        return Optional.ofNullable(header);
    }

    @Override
    public void invalidate() {}

    @Override
    public String toString() {
        return "Credentials[" + description + "]";
    }
}
