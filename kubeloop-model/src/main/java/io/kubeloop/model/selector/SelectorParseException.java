package io.kubeloop.model.selector;

/**
 * A label or field selector that cannot be parsed, built or accepted for a resource.
 *
 * <p>The message is kube-apiserver's own text for the same input (for example
 * {@code unable to parse requirement: found '', expected: identifier} or
 * {@code field label not supported: spec.foo}), so a server can put it unchanged into a
 * {@code 400 BadRequest} Status and kubectl prints what it would print against a real cluster.
 */
public final class SelectorParseException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    SelectorParseException(String message) {
        super(message);
    }
}
