/**
 * A typed, unchecked exception per Kubernetes API Status reason, made from an HTTP answer
 * ({@link io.kubeloop.client.errors.KubernetesApiException#fromResponse}) or a watch {@code ERROR} event
 * ({@link io.kubeloop.client.errors.KubernetesApiException#fromWatchError}). See
 * {@code kubeloop-client/docs/errors-and-transport.md}.
 */
package io.kubeloop.client.errors;
