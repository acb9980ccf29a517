/**
 * kubeloop's Kubernetes client (issue 5). {@link io.kubeloop.client.KubernetesClient} is the entry point: it
 * connects with a {@code ClientConfig} and hands out a resource client per type. The layers, each standing alone:
 * {@code io.kubeloop.client.config} (kubeconfig, in-cluster and explicit configuration, credentials, TLS
 * material), {@code io.kubeloop.client.errors} (a typed exception per API Status reason),
 * {@code io.kubeloop.client.transport} (the HTTP transport, rate limiter, retries, metrics),
 * {@code io.kubeloop.client.resource} (the verbs of a resource type, discovery) and, coming,
 * {@code io.kubeloop.client.watch} (watch events decoded one by one from a response stream). See
 * {@code kubeloop-client/README.md}.
 */
package io.kubeloop.client;
