/**
 * Informers: {@link io.kubeloop.informer.SharedIndexInformer} and
 * {@link io.kubeloop.informer.SharedInformerFactory}, with client-go's semantics.
 */
package io.kubeloop.informer;
