package io.kubeloop.client.errors;

/**
 * 403 Forbidden: the user is authenticated but not allowed to do this, e.g. {@code pods is forbidden: User
 * "alice" cannot list resource "pods" in API group "" in the namespace "default"}; also an admission plugin's
 * refusal.
 */
public class ForbiddenException extends KubernetesApiException {

    private static final long serialVersionUID = 1L;

    ForbiddenException(ErrorParts parts) {
        super(parts);
    }
}
