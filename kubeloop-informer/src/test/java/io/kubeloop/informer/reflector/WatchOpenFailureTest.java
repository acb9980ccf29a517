package io.kubeloop.informer.reflector;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.client.resource.ListOptions;
import io.kubeloop.client.resource.WatchOptions;
import io.kubeloop.informer.testing.ApiErrors;
import java.time.Duration;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the reflector does when opening a watch fails, by failure: watch again in place after a backoff of at least
 * Retry-After, or tell the handler, back off and relist (client-go-semantics.md §2.5 step 2).
 */
class WatchOpenFailureTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    static Stream<Arguments> failures() {
        return Stream.of(
                // name, failure, wait before the next attempt, relist?, resourceVersion of the relist
                Arguments.of(
                        "connection refused",
                        (Supplier<RuntimeException>) ApiErrors::connectionRefused,
                        Duration.ofMillis(800),
                        false,
                        null),
                Arguments.of(
                        "429 with Retry-After 5",
                        (Supplier<RuntimeException>) () -> ApiErrors.tooManyRequests(5),
                        Duration.ofSeconds(5),
                        false,
                        null),
                Arguments.of(
                        "503 with Retry-After 3",
                        (Supplier<RuntimeException>) () -> ApiErrors.serviceUnavailable(3),
                        Duration.ofSeconds(3),
                        false,
                        null),
                Arguments.of(
                        "503 without Retry-After",
                        (Supplier<RuntimeException>) () -> ApiErrors.serviceUnavailable(-1),
                        Duration.ofMillis(800),
                        true,
                        "1"),
                Arguments.of(
                        "403 Forbidden",
                        (Supplier<RuntimeException>) ApiErrors::forbidden,
                        Duration.ofMillis(800),
                        true,
                        "1"),
                Arguments.of(
                        "500 InternalError",
                        (Supplier<RuntimeException>) () -> ApiErrors.internalError("x"),
                        Duration.ofMillis(800),
                        true,
                        "1"),
                Arguments.of(
                        "410 Expired",
                        (Supplier<RuntimeException>) () -> ApiErrors.expired("1", "7"),
                        Duration.ofMillis(800),
                        true,
                        "1"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("failures")
    void aFailedWatchOpenIsRetriedInPlaceOrRelisted(
            String name, Supplier<RuntimeException> failure, Duration wait, boolean relist, String relistRv)
            throws Exception {
        try (ReflectorHarness h = new ReflectorHarness()) {
            h.source.add(ReflectorHarness.cm("a"));
            h.source.failNextWatches(1, failure);
            h.start();
            h.awaitBackingOff();
            assertThat(h.errors).singleElement().isInstanceOf(failure.get().getClass());
            h.clock.step(wait.minusMillis(1));
            ReflectorHarness.assertStays(() -> h.source.watchCalls() == 1 && h.source.listCalls() == 1);
            h.clock.step(Duration.ofMillis(1));
            h.awaitWatching();
            assertThat(h.source.listCalls()).isEqualTo(relist ? 2 : 1);
            if (relist) {
                assertThat(h.source.listRequests())
                        .extracting(ListOptions::resourceVersion)
                        .containsExactly("0", relistRv);
            }
            assertThat(h.source.watchRequests())
                    .extracting(WatchOptions::resourceVersion)
                    .containsExactly("1", "1");
        }
    }
}
