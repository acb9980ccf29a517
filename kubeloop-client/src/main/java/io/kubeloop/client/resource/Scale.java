package io.kubeloop.client.resource;

/**
 * An {@code autoscaling/v1 Scale}: the replica count of a Deployment, ReplicaSet, StatefulSet or a custom
 * resource with a scale subresource.
 *
 * @param name the scaled object's name
 * @param namespace its namespace
 * @param resourceVersion the scaled object's resourceVersion
 * @param replicas the desired count ({@code spec.replicas})
 * @param statusReplicas the observed count ({@code status.replicas})
 * @param selector the label selector of its pods, as a string ({@code status.selector}); null if none
 */
public record Scale(
        String name, String namespace, String resourceVersion, int replicas, int statusReplicas, String selector) {}
