package io.kubeloop.informer.reflector;

/**
 * A watch ended cleanly after less than a second without delivering a single event: client-go's
 * {@code VeryShortWatchError}. Something between the reflector and the server (a proxy, a server that refuses the
 * watch in a way that looks like a clean close) keeps closing it; the reflector backs off and relists instead of
 * re-watching in a tight loop.
 */
public final class VeryShortWatchException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    VeryShortWatchException(String reflectorName) {
        super("very short watch: " + reflectorName
                + ": Unexpected watch close - watch lasted less than a second and no items received");
    }
}
