/**
 * The client's HTTP transport, {@link io.kubeloop.client.transport.HttpTransport} (one {@code java.net.http}
 * client per API server: auth per request, rate limit, retries, metrics, typed errors), and the pieces it is
 * assembled from: the client-side {@link io.kubeloop.client.transport.RateLimiter} (a token bucket), the
 * {@link io.kubeloop.client.transport.RetryPolicy} (which reads are sent again on 429/503 and reset connections,
 * and when), and {@link io.kubeloop.client.transport.ClientMetrics} (client-go's {@code rest_client_*} metrics
 * through Micrometer). See {@code kubeloop-client/docs/errors-and-transport.md} and {@code docs/operations.md}.
 */
package io.kubeloop.client.transport;
