/**
 * What kube-controller-manager's workload controllers share (its {@code pkg/controller/controller_utils.go},
 * {@code controller_ref_manager.go} and {@code pkg/api/v1/pod}): pod readiness and availability, which pods are
 * active, expectations, adoption and release of owned objects, the pod index by controller.
 *
 * <p>Time rule: durations from objects ({@code minReadySeconds}) are cluster time and are compared on the clock
 * through {@link io.kubeloop.cluster.ClusterTimings#wall(java.time.Duration)}; object timestamps are the clock's.
 */
package io.kubeloop.cluster.internal.workloads;
