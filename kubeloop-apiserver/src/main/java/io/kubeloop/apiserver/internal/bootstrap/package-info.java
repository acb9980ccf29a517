/**
 * The objects every Kubernetes cluster has without anyone creating them, and the controllers that keep them: the
 * {@code kubernetes} Service (and its Endpoints) in {@code default}, and in every namespace the
 * {@code kube-root-ca.crt} ConfigMap and the {@code default} ServiceAccount.
 */
package io.kubeloop.apiserver.internal.bootstrap;
