/**
 * The pieces the client's HTTP transport is assembled from: the client-side {@link
 * io.kubeloop.client.transport.RateLimiter} (a token bucket), the {@link io.kubeloop.client.transport.RetryPolicy}
 * (which reads are sent again on 429/503 and reset connections, and when), and
 * {@link io.kubeloop.client.transport.ClientMetrics} (client-go's {@code rest_client_*} metrics through
 * Micrometer). See {@code kubeloop-client/docs/errors-and-transport.md}.
 */
package io.kubeloop.client.transport;
