/**
 * The test kit's service provider interface: how {@code @KubeloopTest(nodes = N)} reaches {@code kubeloop-cluster}
 * without depending on it. For kubeloop's own modules; users neither implement nor call it.
 */
package io.kubeloop.testkit.spi;
