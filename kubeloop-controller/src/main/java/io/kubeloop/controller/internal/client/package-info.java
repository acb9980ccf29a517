/**
 * The implementation of {@link io.kubeloop.controller.ControllerClient}: cached reads with copies, lazily started
 * informers, read-your-own-writes, the uncached reader. Not public API.
 */
package io.kubeloop.controller.internal.client;
