package io.kubeloop.informer.reflector;

import io.kubeloop.client.codec.UndecodableObject;

/**
 * A list or watch event held an object that does not decode, and the reflector was built to fail on one
 * ({@code undecodableObjects(FAIL)}): the list or watch fails, and the reflector backs off and relists as after any
 * other failure. The message names the object, never its content.
 */
final class UndecodableObjectException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UndecodableObjectException(String reflector, UndecodableObject object) {
        super(reflector + ": cannot decode " + object + " (undecodableObjects FAIL: failing until it changes)");
    }
}
