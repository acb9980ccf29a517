/**
 * Lease-based leader election (client-go's {@code tools/leaderelection}): {@link
 * io.kubeloop.controller.leaderelection.LeaderElector} campaigns for a {@code coordination.k8s.io/v1} Lease described by
 * a {@link io.kubeloop.controller.leaderelection.LeaderElectionConfig} and tells its {@link
 * io.kubeloop.controller.leaderelection.LeaderCallbacks} when this process starts and stops leading.
 */
package io.kubeloop.controller.leaderelection;
