package io.kubeloop.client.config;

/**
 * The client configuration cannot be loaded or used: a missing or unreadable file, bad YAML, an unknown
 * context, cluster or user, an unreadable or unsupported key, a CA that is not PEM, a credential plugin that
 * failed. The message names the file, context or field at fault; it never contains a token, password, key
 * or certificate.
 */
public class ConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ConfigException(String message) {
        super(message);
    }

    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }
}
