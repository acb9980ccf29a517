/**
 * kubeloop's Kubernetes client (issue 5), built in layers that each stand alone:
 * {@code io.kubeloop.client.config} (kubeconfig, in-cluster and explicit configuration, credentials, TLS
 * material), {@code io.kubeloop.client.errors} (a typed exception per API Status reason),
 * {@code io.kubeloop.client.watch} (watch events decoded one by one from a response stream), and the
 * transport and resource clients that put them together.
 */
package io.kubeloop.client;
