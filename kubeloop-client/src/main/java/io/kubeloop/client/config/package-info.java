/**
 * Client configuration: where the API server is, which servers to trust, and who the client is — from a
 * kubeconfig (kubectl's search and merge rules), the pod's service account, or a builder. {@link
 * io.kubeloop.client.config.ClientConfig} is the result; {@link io.kubeloop.client.config.Credentials} is what
 * the transport asks per request; {@link io.kubeloop.client.config.ConfigException} names what is wrong
 * without ever showing a secret. See {@code kubeloop-client/docs/config.md}.
 */
package io.kubeloop.client.config;
