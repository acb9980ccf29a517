/**
 * Resource clients: {@link io.kubeloop.client.resource.ResourceClient} (get, list one page or all, create,
 * update, updateStatus, patch, delete, deleteCollection, scale) with its options
 * ({@link io.kubeloop.client.resource.ListOptions}, {@link io.kubeloop.client.resource.PatchOptions},
 * {@link io.kubeloop.client.resource.DeleteOptions}) and results ({@link io.kubeloop.client.resource.ListPage},
 * {@link io.kubeloop.client.resource.Scale}), and {@link io.kubeloop.client.resource.ApiDiscovery}, which finds the
 * resource of a kind. See {@code kubeloop-client/docs/operations.md}.
 */
package io.kubeloop.client.resource;
