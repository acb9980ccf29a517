/**
 * The informer's cache: a thread-safe {@link io.kubeloop.informer.cache.Store} with
 * {@link io.kubeloop.informer.cache.Indexer indexes}, key functions and listers. Objects in the cache are shared
 * and must never be mutated.
 */
package io.kubeloop.informer.cache;
