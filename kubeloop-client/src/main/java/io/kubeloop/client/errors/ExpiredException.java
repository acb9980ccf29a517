package io.kubeloop.client.errors;

import java.util.Optional;

/**
 * 410, reason {@code Expired} (what kube-apiserver sends) or {@code Gone}: the history the request asked for
 * has been compacted away. A list or watch from a {@code resourceVersion} that is too old
 * ({@code too old resource version: 5 (99)}, as an HTTP 410 or a watch {@code ERROR} event) means the caller
 * must relist from the current state, as client-go's Reflector does; an expired {@code continue} token means
 * the paged list must start again (or go on, inconsistently, with {@link #inconsistentContinue()}).
 */
public class ExpiredException extends KubernetesApiException {

    private static final long serialVersionUID = 1L;

    ExpiredException(ErrorParts parts) {
        super(parts);
    }

    /**
     * Whether a paged list's {@code continue} token expired (kube-apiserver's message
     * {@code The provided continue parameter is too old ...}) rather than a resourceVersion.
     */
    public boolean isContinueExpired() {
        return serverMessage().contains("continue parameter is too old");
    }

    /**
     * Whether the list or watch asked for a {@code resourceVersion} older than the server's history: every 410
     * except an expired continue token. The caller relists (client-go: {@code IsResourceExpired}, then a list
     * with {@code resourceVersion=""}).
     */
    public boolean isResourceVersionTooOld() {
        return !isContinueExpired();
    }

    /**
     * The continue token kube-apiserver offers with an expired one, to read the rest of the list at the current
     * state (objects changed meanwhile may be missed or seen twice); empty when it offered none.
     */
    public Optional<String> inconsistentContinue() {
        var meta = status().getMetadata();
        String token = meta == null ? null : meta.getContinue();
        return token == null || token.isEmpty() ? Optional.empty() : Optional.of(token);
    }
}
