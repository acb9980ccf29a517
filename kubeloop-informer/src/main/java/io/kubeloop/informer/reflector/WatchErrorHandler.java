package io.kubeloop.informer.reflector;

/**
 * Told about every failure of a {@link Reflector}: a list that failed, a watch that could not be opened, a watch
 * that ended with an error (410 "too old resource version", a broken or idle stream). Called on the reflector's
 * thread before it backs off, relists or watches again; it must return quickly and must not throw (what it
 * throws is logged and ignored). The reflector recovers by itself whatever the handler does: the handler is for
 * logging, metrics and health, as client-go's {@code WatchErrorHandler}.
 *
 * <p>The default, {@link #LOGGING}, logs like client-go: an expired resourceVersion at INFO (it is routine), every
 * other failure at WARN, naming the reflector and the reason.
 */
@FunctionalInterface
public interface WatchErrorHandler {

    /** Logs at INFO for a 410 and at WARN otherwise, through the {@code io.kubeloop.informer.reflector.Reflector} logger. */
    WatchErrorHandler LOGGING = DefaultWatchErrorHandler::log;

    /**
     * @param reflectorName the reflector's name, e.g. {@code pods in default}
     * @param error what failed; a typed {@code io.kubeloop.client.errors} exception, a {@code WatchException},
     *     an {@code UncheckedIOException} for a request that got no answer, or a {@link VeryShortWatchException}
     */
    void onWatchError(String reflectorName, Throwable error);
}
