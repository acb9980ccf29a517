/**
 * The embedded cluster behind kubeloop's API server: simulated nodes with kubelets, a scheduler, and the built-in
 * controllers of kube-controller-manager an operator relies on (ReplicaSet, Deployment, node lifecycle with taint
 * based eviction, endpoints and EndpointSlices), all written with kubeloop's own controller runtime and all running
 * on the server's {@link io.kubeloop.clock.Clock}.
 *
 * <p>Time: every duration that comes from Kubernetes — a default such as the 40 s node lease, a field such as a
 * toleration's {@code tolerationSeconds} or a pod's grace period, an annotation of the kubelet simulation — is
 * <em>cluster time</em>; {@link io.kubeloop.cluster.ClusterTimings#wall(java.time.Duration)} turns it into clock
 * time by dividing it by the cluster's speed. Timestamps written into objects are the clock's.
 */
package io.kubeloop.cluster;
