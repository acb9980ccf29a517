/**
 * How JSON becomes model objects: {@link io.kubeloop.client.codec.Decoding} (standard, compact for caches,
 * without managedFields). Implementation classes are package-private.
 */
package io.kubeloop.client.codec;
