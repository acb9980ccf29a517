/**
 * The embedded API server's storage layer: a revisioned, multi-version in-memory object store with a bounded
 * event history and watches ({@link io.kubeloop.apiserver.internal.storage.Store}, built with
 * {@link io.kubeloop.apiserver.internal.storage.Store#builder()}). Objects are Jackson trees keyed by
 * {@link io.kubeloop.apiserver.internal.storage.StorageKey}; failures are
 * {@link io.kubeloop.apiserver.internal.storage.StorageException}s carrying kube-apiserver's Status data. No HTTP here:
 * the REST layer maps requests onto these calls.
 */
package io.kubeloop.apiserver.internal.storage;
