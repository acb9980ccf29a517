package io.kubeloop.client.errors;

/**
 * 429 TooManyRequests: API Priority and Fairness (or a max-in-flight limit) rejected the request before
 * serving it. kube-apiserver's APF rejection is plain text ({@code Too many requests, please try again later.})
 * with a {@code Retry-After} header, so this exception often has {@link #hasServerStatus()} false;
 * {@link #retryAfterSeconds()} holds the header's seconds, or else the Status' {@code details.retryAfterSeconds}.
 */
public class TooManyRequestsException extends KubernetesApiException {

    private static final long serialVersionUID = 1L;

    TooManyRequestsException(ErrorParts parts) {
        super(parts);
    }
}
