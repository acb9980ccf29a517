/**
 * kubeloop's main job: the pod-guardian operator ({@link io.kubeloop.demo.PodSet}, {@link
 * io.kubeloop.demo.PodGuardian}) and the seed's 3 a.m. incident played against it on the embedded cluster ({@link
 * io.kubeloop.demo.Demo}), ending with a recovery report ({@link io.kubeloop.demo.DemoReport}).
 */
package io.kubeloop.demo;
