/**
 * What happens to an object between a DELETE and its removal, as kube-apiserver and kube-controller-manager do
 * it: finalizers and {@code deletionTimestamp}, graceful pod deletion (the server plays the kubelet's part),
 * garbage collection by {@code ownerReferences} (Background, Foreground and Orphan propagation) and namespace
 * termination. {@link io.kubeloop.apiserver.internal.lifecycle.ObjectLifecycle} is the one entry point: the REST layer
 * calls it for deletes, updates and creates, and it runs the background controller that follows the store's
 * watches. Internal to kubeloop; use {@link io.kubeloop.apiserver.EmbeddedApiServer}.
 */
package io.kubeloop.apiserver.internal.lifecycle;
