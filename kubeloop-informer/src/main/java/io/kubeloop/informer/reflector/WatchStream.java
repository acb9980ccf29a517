package io.kubeloop.informer.reflector;

import io.kubeloop.client.watch.WatchEvent;

/**
 * An open watch as the Reflector consumes it: events one at a time until the stream ends or fails. The
 * client's {@link io.kubeloop.client.watch.Watch} is one; tests supply their own.
 *
 * @param <T> the object type
 */
public interface WatchStream<T> extends AutoCloseable {

    /**
     * The next event, blocking until one arrives; {@code null} when the server ended the stream or it was closed.
     *
     * @throws RuntimeException the stream failed (a {@code WatchException}, a typed API exception such as
     *     {@code ExpiredException} for a 410 ERROR event, or the idle rule's timeout)
     */
    WatchEvent<T> next() throws InterruptedException;

    /** Ends the stream at once from any thread; releases its connection. Idempotent. */
    @Override
    void close();
}
