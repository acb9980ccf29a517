/**
 * kubeloop's controller runtime: what controller-runtime gives Go developers, on kubeloop's informers and work
 * queue. A {@link io.kubeloop.controller.Reconciler} brings the world in line with one object's desired state;
 * a {@link io.kubeloop.controller.Manager} runs the shared informer cache, the controllers that call reconcilers,
 * leader election, and the health, readiness and metrics endpoints an SRE needs.
 */
package io.kubeloop.controller;
