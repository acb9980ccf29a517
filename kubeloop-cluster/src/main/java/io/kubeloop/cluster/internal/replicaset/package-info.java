/**
 * kube-controller-manager's ReplicaSet controller ({@code pkg/controller/replicaset}) on kubeloop's controller
 * runtime: {@link io.kubeloop.cluster.internal.replicaset.ReplicaSetController}.
 */
package io.kubeloop.cluster.internal.replicaset;
