/**
 * What you test a Kubernetes controller with: {@link io.kubeloop.testkit.KubeloopTest}, a JUnit 5 extension
 * that gives a test class a real, in-process API server and each test method its own namespace and client.
 *
 * <p>The module also brings, as dependencies rather than copies: {@code io.kubeloop.clock.FakeClock} (time you
 * step by hand, for every kubeloop timer) and {@code io.kubeloop.informer.testing.FakeSource} (client-go's
 * {@code FakeControllerSource}: a {@code ListerWatcher} you drive by hand, with {@code ApiErrors} for its
 * failures).
 */
package io.kubeloop.testkit;
