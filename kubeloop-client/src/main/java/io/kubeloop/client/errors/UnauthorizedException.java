package io.kubeloop.client.errors;

/**
 * 401 Unauthorized: the server did not accept the request's credentials (no token or client certificate, or an
 * expired or unknown one). A client with refreshable credentials (an exec plugin, a rotated token file) should
 * refresh them and try once more.
 */
public class UnauthorizedException extends KubernetesApiException {

    private static final long serialVersionUID = 1L;

    UnauthorizedException(ErrorParts parts) {
        super(parts);
    }
}
