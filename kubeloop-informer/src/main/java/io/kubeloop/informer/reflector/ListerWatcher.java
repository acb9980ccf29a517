package io.kubeloop.informer.reflector;

import io.kubeloop.client.resource.ListOptions;
import io.kubeloop.client.resource.ListPage;
import io.kubeloop.client.resource.WatchOptions;

/**
 * Lists and watches one kind of object, with the label and field selectors of its informer already applied:
 * client-go's {@code cache.ListerWatcher}. Errors are the client's typed exceptions
 * ({@code io.kubeloop.client.errors}).
 *
 * @param <T> the object type
 */
public interface ListerWatcher<T> {

    /** One page of objects. */
    ListPage<T> list(ListOptions options);

    /** Opens a watch. */
    WatchStream<T> watch(WatchOptions options);
}
