/**
 * Watch response bodies decoded one event at a time with Jackson's streaming parser:
 * {@link io.kubeloop.client.watch.WatchEventDecoder} (pull, single-threaded) and {@link io.kubeloop.client.watch.Watch}
 * (a reading thread, a bounded queue, the idle rule that closes a watch which receives no bytes, and
 * {@code close()} from any thread). List responses are decoded item by item inside {@code ResourceClient.list}.
 * This layer knows nothing of HTTP: it is given the response body as an
 * {@code InputStream}. See {@code kubeloop-client/docs/watch.md}.
 */
package io.kubeloop.client.watch;
