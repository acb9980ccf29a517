/**
 * Test doubles for the informer machinery, shipped in the main jar as client-go ships
 * {@code tools/cache/testing}: {@link io.kubeloop.informer.testing.FakeSource} (client-go's
 * {@code FakeControllerSource}, a {@code ListerWatcher} you drive by hand) and
 * {@link io.kubeloop.informer.testing.ApiErrors} (the client's typed failures, built exactly as a real server
 * produces them). Users get them, with {@code FakeClock} and a JUnit 5 extension, by depending on
 * {@code kubeloop-testkit} at test scope.
 *
 * <p>They live here rather than in {@code kubeloop-testkit} because this module's own unit tests use them and
 * the testkit depends on this module: a Maven reactor allows no cycle, not even through test scope.
 */
package io.kubeloop.informer.testing;
